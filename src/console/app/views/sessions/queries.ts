/** The Sessions view's GraphQL documents and the shapes they answer (see schema.graphql). */

const SUMMARY = `id sessionType assets tags createdAt expiresAt ttlHours timeRemainingHours state isArchived
  totalQueries userId owner`;

export const LIST = `query Sessions($cursor: String, $includeArchived: Boolean, $limit: Int) {
  analysisSessions(cursor: $cursor, includeArchived: $includeArchived, limit: $limit) {
    totalSessions nextCursor sessions { ${SUMMARY} }
  }
}`;

export const DETAIL = `query Session($id: ID!) {
  analysisSession(id: $id) {
    ${SUMMARY} asOf archivedAt lastAccessedAt durationHours cacheHitRate context intermediateResults
    resultNames queryTypeCounts
    recentQueries(limit: 100) { seq at queryType parameters resultSummary symbols latencyMs cacheHit }
  }
}`;

export const ANALYTICS = `query Analytics($days: Int) {
  sessionAnalytics(days: $days) {
    periodDays totalSessions activeSessions expiredSessions archivedSessions totalQueries avgQueriesPerSession
    avgDurationSeconds abandonmentRate cacheHitRate
    sessionTypeBreakdown { name count } queryTypeDistribution { name count }
    topAssets { name count } popularTags { name count }
  }
}`;

const LIFETIME = 'capped grantedHours requestedHours maxTtlHours session { id }';

export const CREATE = `mutation Create($sessionType: AnalysisSessionType!, $assets: [String!]!, $tags: [String!], $ttlHours: Float) {
  createAnalysisSession(sessionType: $sessionType, assets: $assets, tags: $tags, ttlHours: $ttlHours) { ${LIFETIME} }
}`;

export const EXTEND = `mutation Extend($id: ID!, $hours: Float) {
  extendAnalysisSession(id: $id, hours: $hours) { ${LIFETIME} }
}`;

export const ARCHIVE = 'mutation Archive($id: ID!) { archiveAnalysisSession(id: $id) { id state } }';

export const SESSION_TYPES = ['EQUITY', 'CRYPTO', 'COMPARATIVE', 'MACRO'] as const;
export type SessionType = (typeof SESSION_TYPES)[number];
export type SessionState = 'ACTIVE' | 'EXPIRED' | 'ARCHIVED';

export interface SessionSummary {
  readonly id: string;
  readonly sessionType: SessionType;
  readonly assets: readonly string[];
  readonly tags: readonly string[];
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly ttlHours: number;
  readonly timeRemainingHours: number;
  readonly state: SessionState;
  readonly isArchived: boolean;
  readonly totalQueries: number;
  readonly userId: string | null;
  readonly owner: string | null;
}

export interface QueryRecord {
  readonly seq: number;
  readonly at: string;
  readonly queryType: string;
  readonly parameters: Record<string, unknown>;
  readonly resultSummary: string;
  readonly symbols: readonly string[];
  readonly latencyMs: number;
  readonly cacheHit: boolean | null;
}

export interface Session extends SessionSummary {
  readonly asOf: string;
  readonly archivedAt: string | null;
  readonly lastAccessedAt: string;
  readonly durationHours: number;
  readonly cacheHitRate: number | null;
  readonly context: Record<string, unknown>;
  readonly intermediateResults: Record<string, unknown>;
  readonly resultNames: readonly string[];
  readonly queryTypeCounts: Record<string, number>;
  readonly recentQueries: readonly QueryRecord[];
}

export interface Count {
  readonly name: string;
  readonly count: number;
}

export interface Analytics {
  readonly periodDays: number;
  readonly totalSessions: number;
  readonly activeSessions: number;
  readonly expiredSessions: number;
  readonly archivedSessions: number;
  readonly totalQueries: number;
  readonly avgQueriesPerSession: number;
  readonly avgDurationSeconds: number;
  readonly abandonmentRate: number;
  readonly cacheHitRate: number | null;
  readonly sessionTypeBreakdown: readonly Count[];
  readonly queryTypeDistribution: readonly Count[];
  readonly topAssets: readonly Count[];
  readonly popularTags: readonly Count[];
}

export interface Lifetime {
  readonly capped: boolean;
  readonly grantedHours: number;
  readonly requestedHours: number;
  readonly maxTtlHours: number;
  readonly session: { id: string };
}

export const STATE_TONE: Record<SessionState, string> = { ACTIVE: 'ok', EXPIRED: 'warn', ARCHIVED: 'muted' };

/** "2 d 3 h", "45 min": a time-to-live in words. */
export function hoursText(hours: number): string {
  if (hours <= 0) return 'expired';
  if (hours < 1) return `${Math.max(1, Math.round(hours * 60))} min`;
  if (hours < 48) return `${Math.round(hours * 10) / 10} h`;
  return `${Math.floor(hours / 24)} d ${Math.round(hours % 24)} h`;
}

import { type BuilderTypes, builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import type { Counted, DailyMetrics, SessionAnalytics } from './session.analytics.ts';
import {
  HOUR_MS,
  type Lifetime,
  SESSION_LIMITS,
  type SessionState,
  type SessionType,
} from './session.rules.ts';
import type { QueryRecordRow, SessionPage, SessionView } from './session.service.ts';
import { sessionsDeps } from './sessions.deps.ts';

/** Analysis sessions as GraphQL returns them (the tools' snake_case shapes are in sessions.wire.ts). */

export const DEFAULT_RECENT_QUERIES = 10;

const TYPE_DESCRIPTIONS: Readonly<Record<SessionType, string>> = {
  equity: 'Stock analysis.',
  crypto: 'Cryptocurrency analysis.',
  portfolio: 'Portfolio analysis.',
  comparative: 'Comparison of several assets.',
  macro: 'Macroeconomic analysis.',
};

export const SessionTypeEnum = builder.enumType('AnalysisSessionType', {
  description: 'What an analysis session is for.',
  values: enumValues(TYPE_DESCRIPTIONS),
});

const STATE_DESCRIPTIONS: Readonly<Record<SessionState, string>> = {
  active: 'Usable: queries are tracked in it, its context and results can change, it can be extended.',
  expired: 'Past its expiry and not yet archived by the cleanup: readable only.',
  archived:
    'Archived (by its owner, or by the cleanup after it expired): readable only, deleted after SESSION_RETENTION_DAYS.',
};

export const SessionStateEnum = builder.enumType('AnalysisSessionState', {
  description: 'Where an analysis session is in its life.',
  values: enumValues(STATE_DESCRIPTIONS),
});

const hoursBetween = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / HOUR_MS);

export const QueryRecordRef = builder.objectRef<QueryRecordRow>('AnalysisQueryRecord').implement({
  description: 'One tracked data-tool call. Value object: it belongs to its session.',
  fields: (t) => ({
    seq: t.exposeInt('seq', { description: 'Its number in the session (1 = first tracked query).' }),
    queryType: t.exposeString('queryType', {
      description: 'The tool: `search-by-symbol`, `search-by-coin` or `execute-fk-dsl`.',
    }),
    parameters: t.field({
      type: 'JSON',
      description: 'The arguments it was called with.',
      resolve: (q) => q.parameters,
    }),
    resultSummary: t.exposeString('resultSummary', { description: 'One line on what it answered.' }),
    symbols: t.exposeStringList('symbols', { description: 'Instruments it was about.' }),
    latencyMs: t.exposeFloat('latencyMs', { description: 'How long the call took, in milliseconds.' }),
    cacheHit: t.boolean({
      nullable: true,
      description: 'Whether it was answered from the cache; null when the tool cannot tell (FK-DSL).',
      resolve: (q) => q.cacheHit,
    }),
    at: t.field({ type: 'DateTime', description: 'When it was recorded.', resolve: (q) => q.at }),
  }),
});

export const SessionRef = builder.objectRef<SessionView>('AnalysisSession').implement({
  description:
    'Assets and queries grouped with context, history and a time-to-live. Entity: `id` is stable. ' +
    'Times are read at `asOf` (the answer time).',
  fields: (t) => ({ ...sessionContentFields(t), ...sessionHistoryFields(t), ...sessionTimeFields(t) }),
});

type SessionFields = PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, SessionView>;

/** What the session holds: its assets, tags, state, context and named results. */
function sessionContentFields(t: SessionFields) {
  return {
    id: t.id({ description: 'The session id: keep it for later calls.', resolve: (s) => s.row.id }),
    userId: t.string({
      nullable: true,
      description: 'The user id given at creation.',
      resolve: (s) => s.row.userId,
    }),
    sessionType: t.field({
      type: SessionTypeEnum,
      description: 'What it is for.',
      resolve: (s) => s.row.sessionType as SessionType,
    }),
    assets: t.stringList({ description: 'Symbols, upper-cased.', resolve: (s) => s.row.assets }),
    tags: t.stringList({ description: 'Tags for filtering.', resolve: (s) => s.row.tags }),
    state: t.field({
      type: SessionStateEnum,
      description: 'Active, expired or archived.',
      resolve: (s) => s.state,
    }),
    isExpired: t.boolean({
      description: 'Past its expiry (archived or not).',
      resolve: (s) => s.row.expiresAt <= s.asOf,
    }),
    isArchived: t.boolean({ description: 'Archived.', resolve: (s) => s.row.status === 'archived' }),
    context: t.field({
      type: 'JSON',
      description: 'Key/value context (updateSessionContext).',
      resolve: (s) => s.row.context,
    }),
    intermediateResults: t.field({
      type: 'JSON',
      description: 'Named results (storeSessionResult), as a map of name to value.',
      resolve: (s) => s.row.intermediateResults,
    }),
    resultNames: t.stringList({
      description: 'Names of the stored results.',
      resolve: (s) => Object.keys(s.row.intermediateResults),
    }),
  };
}

/** The queries tracked in it. */
function sessionHistoryFields(t: SessionFields) {
  return {
    totalQueries: t.int({
      description: 'Queries tracked in it (all of them, also past the record limit).',
      resolve: (s) => s.row.totalQueries,
    }),
    cacheHitRate: t.float({
      nullable: true,
      description:
        'Share of its tracked queries answered from the cache, 0 to 1; null before any that could tell.',
      resolve: (s) => (s.row.cacheKnown > 0 ? s.row.cacheHits / s.row.cacheKnown : null),
    }),
    queryTypeCounts: t.field({
      type: 'JSON',
      description: 'Tracked queries per tool name.',
      resolve: (s) => s.row.queryTypes,
    }),
    recentQueries: t.field({
      type: [QueryRecordRef],
      description: `The most recent query records, newest first (the newest SESSION_MAX_QUERIES_PER_SESSION are kept).`,
      args: {
        limit: t.arg.int({
          defaultValue: DEFAULT_RECENT_QUERIES,
          description: `How many, 0 to ${SESSION_LIMITS.recentQueries}.`,
        }),
      },
      resolve: (s, { limit }, ctx) =>
        sessionsDeps(ctx).sessions.store.recentQueries(s.row.id, limit ?? DEFAULT_RECENT_QUERIES),
    }),
  };
}

/** Its times, time-to-live and owner. */
function sessionTimeFields(t: SessionFields) {
  return {
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was created.',
      resolve: (s) => s.row.createdAt,
    }),
    lastAccessedAt: t.field({
      type: 'DateTime',
      description: 'When it was last used (a query tracked, context or results changed, extended).',
      resolve: (s) => s.row.lastAccessedAt,
    }),
    expiresAt: t.field({
      type: 'DateTime',
      description: 'When it expires.',
      resolve: (s) => s.row.expiresAt,
    }),
    archivedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was archived.',
      resolve: (s) => s.row.archivedAt,
    }),
    ttlHours: t.float({
      description: 'Its whole time-to-live: creation to expiry, in hours.',
      resolve: (s) => hoursBetween(s.row.createdAt, s.row.expiresAt),
    }),
    timeRemainingHours: t.float({
      description: 'Hours until it expires (0 once expired).',
      resolve: (s) => hoursBetween(s.asOf, s.row.expiresAt),
    }),
    durationHours: t.float({
      description: 'Hours from creation to its last use.',
      resolve: (s) => hoursBetween(s.row.createdAt, s.row.lastAccessedAt),
    }),
    asOf: t.field({ type: 'DateTime', description: 'When this answer was read.', resolve: (s) => s.asOf }),
    owner: t.string({
      nullable: true,
      description: "Its owner's principal id, shown to admins for other owners' sessions; null otherwise.",
      resolve: (s) => (s.showOwner ? s.row.owner : null),
    }),
  };
}

export interface SessionChange {
  readonly view: SessionView;
  readonly ttl: Lifetime;
}

export const SessionChangeRef = builder.objectRef<SessionChange>('AnalysisSessionLifetime').implement({
  description:
    'A session after a create or extend, with what was granted (value object): a session lives at most SESSION_MAX_TTL_HOURS ' +
    'from its creation, and a request past that is granted up to it (`capped`), not refused.',
  fields: (t) => ({
    session: t.field({ type: SessionRef, description: 'The session.', resolve: (c) => c.view }),
    requestedHours: t.float({ description: 'Hours asked for.', resolve: (c) => c.ttl.requestedHours }),
    grantedHours: t.float({ description: 'Hours added to its expiry.', resolve: (c) => c.ttl.grantedHours }),
    capped: t.boolean({
      description: 'True when the max-TTL rule granted less than asked.',
      resolve: (c) => c.ttl.capped,
    }),
    maxTtlHours: t.int({
      description: 'SESSION_MAX_TTL_HOURS: the longest lifetime from creation.',
      resolve: (_c, _a, ctx) => sessionsDeps(ctx).sessions.store.settings.maxTtlHours,
    }),
  }),
});

export const SessionPageRef = builder.objectRef<SessionPage>('AnalysisSessionPage').implement({
  description: 'One page of sessions, newest first. Value object.',
  fields: (t) => ({
    sessions: t.field({
      type: [SessionRef],
      description: 'The sessions on this page.',
      resolve: (p) => p.sessions,
    }),
    totalSessions: t.int({
      description: 'Sessions the filter matches, on all pages.',
      resolve: (p) => p.total,
    }),
    nextCursor: t.string({
      nullable: true,
      description: 'Pass as `cursor` for the next page; null on the last.',
      resolve: (p) => p.nextCursor,
    }),
  }),
});

const CountedRef = builder.objectRef<Counted>('AnalysisCount').implement({
  description: 'A name with how often it occurs. Value object.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Symbol, tag, query type or session type.' }),
    count: t.exposeInt('count', { description: 'How often.' }),
  }),
});

const DailyRef = builder.objectRef<DailyMetrics>('AnalysisDailyMetrics').implement({
  description:
    'What the daily metrics task summed up for one UTC day (sessions created that day). Value object.',
  fields: (t) => ({
    day: t.exposeString('day', { description: 'The UTC day, YYYY-MM-DD.' }),
    sessionsCreated: t.exposeInt('sessionsCreated', { description: 'Sessions created that day.' }),
    queries: t.exposeInt('queries', { description: 'Queries tracked in them.' }),
    sessionTypes: t.field({
      type: 'JSON',
      description: 'Sessions per type.',
      resolve: (d) => d.sessionTypes,
    }),
    queryTypes: t.field({ type: 'JSON', description: 'Queries per tool.', resolve: (d) => d.queryTypes }),
  }),
});

export const AnalyticsRef = builder.objectRef<SessionAnalytics>('AnalysisSessionAnalytics').implement({
  description:
    'Statistics of the sessions created in the period that the caller may see (value object). Duration runs from creation to ' +
    'the last use; the abandonment rate is the share of the ended sessions (expired or archived) that tracked no query.',
  fields: (t) => ({
    periodDays: t.exposeInt('periodDays', { description: 'Days covered, up to now.' }),
    since: t.field({ type: 'DateTime', description: 'Start of the period.', resolve: (a) => a.since }),
    totalSessions: t.exposeInt('totalSessions', { description: 'Sessions created in the period.' }),
    activeSessions: t.exposeInt('activeSessions', { description: 'Of them, active now.' }),
    expiredSessions: t.exposeInt('expiredSessions', {
      description: 'Of them, expired and not yet archived.',
    }),
    archivedSessions: t.exposeInt('archivedSessions', { description: 'Of them, archived.' }),
    totalQueries: t.exposeInt('totalQueries', { description: 'Queries tracked in them.' }),
    cacheHitRate: t.float({
      nullable: true,
      description: 'Share answered from the cache; null when no query could tell.',
      resolve: (a) => a.cacheHitRate,
    }),
    avgDurationSeconds: t.exposeFloat('avgDurationSeconds', {
      description: 'Mean creation-to-last-use time.',
    }),
    avgQueriesPerSession: t.exposeFloat('avgQueriesPerSession', { description: 'Mean tracked queries.' }),
    abandonmentRate: t.exposeFloat('abandonmentRate', {
      description: 'Ended sessions without a query / ended sessions.',
    }),
    topAssets: t.field({
      type: [CountedRef],
      description: 'The 10 most frequent assets.',
      resolve: (a) => a.topAssets,
    }),
    queryTypeDistribution: t.field({
      type: [CountedRef],
      description: 'Queries per tool.',
      resolve: (a) => a.queryTypeDistribution,
    }),
    sessionTypeBreakdown: t.field({
      type: [CountedRef],
      description: 'Sessions per type.',
      resolve: (a) => a.sessionTypeBreakdown,
    }),
    popularTags: t.field({
      type: [CountedRef],
      description: 'The 10 most frequent tags.',
      resolve: (a) => a.popularTags,
    }),
    daily: t.field({
      type: [DailyRef],
      description:
        "The daily metrics task's days in the period, newest first (whole server: admins only; empty otherwise).",
      resolve: (a) => a.daily,
    }),
  }),
});

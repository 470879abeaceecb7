import { z } from 'zod';
import { SESSION_TYPES } from './session.rules.ts';

/**
 * The session tools' answers: the compatibility shapes (snake_case, `session_id`, `type`), from the
 * GraphQL data of sessions.documents.ts. Every answer says `status: "success"`, as the earlier
 * tools did; a failure is an error result instead (isError on MCP, its status on REST).
 */

type Json = Record<string, unknown>;
export type SessionData = Json & {
  id: string;
  sessionType: string;
  state: string;
  recentQueries?: Json[];
};

const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value);
const round = (value: unknown, digits = 4) =>
  typeof value === 'number' ? Math.round(value * 10 ** digits) / 10 ** digits : value;

export const isoTime = z.string().describe('ISO 8601 time, UTC');
const counted = (key: string) => z.array(z.object({ [key]: z.string(), count: z.number().int() }));

export const queryRecordSchema = z.object({
  seq: z.number().int(),
  query_type: z.string(),
  parameters: z.record(z.string(), z.unknown()),
  result_summary: z.string(),
  symbols: z.array(z.string()),
  latency_ms: z.number(),
  cache_hit: z.boolean().nullable(),
  timestamp: isoTime,
});

export const sessionSummarySchema = z.object({
  session_id: z.string(),
  user_id: z.string().nullable(),
  type: z.enum(SESSION_TYPES),
  assets: z.array(z.string()),
  tags: z.array(z.string()),
  session_state: z.enum(['active', 'expired', 'archived']),
  created_at: isoTime,
  expires_at: isoTime,
  last_accessed_at: isoTime,
  archived_at: isoTime.nullable(),
  is_expired: z.boolean(),
  is_archived: z.boolean(),
  ttl_hours: z.number(),
  time_remaining_hours: z.number(),
  duration_hours: z.number(),
  total_queries: z.number().int(),
  cache_hit_rate: z.number().nullable(),
  query_type_counts: z.record(z.string(), z.number()),
  owner: z.string().optional().describe("Shown to admins on other owners' sessions"),
});

export function sessionWire(s: SessionData) {
  return {
    session_id: s.id,
    user_id: (s.userId as string | null) ?? null,
    type: lower(s.sessionType) as (typeof SESSION_TYPES)[number],
    assets: s.assets as string[],
    tags: s.tags as string[],
    session_state: lower(s.state) as 'active' | 'expired' | 'archived',
    created_at: s.createdAt as string,
    expires_at: s.expiresAt as string,
    last_accessed_at: s.lastAccessedAt as string,
    archived_at: (s.archivedAt as string | null) ?? null,
    is_expired: s.isExpired as boolean,
    is_archived: s.isArchived as boolean,
    ttl_hours: round(s.ttlHours) as number,
    time_remaining_hours: round(s.timeRemainingHours) as number,
    duration_hours: round(s.durationHours) as number,
    total_queries: s.totalQueries as number,
    cache_hit_rate: round(s.cacheHitRate) as number | null,
    query_type_counts: s.queryTypeCounts as Record<string, number>,
    ...(s.owner ? { owner: s.owner as string } : {}),
  };
}

export function queryRecordWire(q: Json) {
  return {
    seq: q.seq as number,
    query_type: q.queryType as string,
    parameters: q.parameters as Json,
    result_summary: q.resultSummary as string,
    symbols: q.symbols as string[],
    latency_ms: round(q.latencyMs, 3) as number,
    cache_hit: (q.cacheHit as boolean | null) ?? null,
    timestamp: q.at as string,
  };
}

export const sessionInfoSchema = sessionSummarySchema.extend({
  status: z.literal('success'),
  recent_queries: z.array(queryRecordSchema).describe('Newest first'),
  state: z.object({
    context: z.record(z.string(), z.unknown()),
    intermediate_results: z.record(z.string(), z.unknown()),
    history: z.object({
      total_queries: z.number().int(),
      cache_hit_rate: z.number().nullable(),
      recent_queries: z.array(queryRecordSchema),
    }),
  }),
});

export function sessionInfoWire(s: SessionData) {
  const summary = sessionWire(s);
  const recent = (s.recentQueries ?? []).map(queryRecordWire);
  return {
    status: 'success' as const,
    ...summary,
    recent_queries: recent,
    state: {
      context: s.context as Json,
      intermediate_results: s.intermediateResults as Json,
      history: {
        total_queries: summary.total_queries,
        cache_hit_rate: summary.cache_hit_rate,
        recent_queries: recent,
      },
    },
  };
}

export const lifetimeSchema = z.object({
  requested_hours: z.number(),
  granted_hours: z.number().describe('Hours added to the expiry'),
  ttl_capped: z.boolean().describe('True when SESSION_MAX_TTL_HOURS granted less than asked'),
  max_ttl_hours: z.number().int().describe('The longest lifetime from creation'),
});

export function lifetimeWire(c: Json) {
  return {
    requested_hours: round(c.requestedHours) as number,
    granted_hours: round(c.grantedHours) as number,
    ttl_capped: c.capped as boolean,
    max_ttl_hours: c.maxTtlHours as number,
  };
}

export const analyticsSchema = z.object({
  status: z.literal('success'),
  period_days: z.number().int(),
  since: isoTime,
  total_sessions: z.number().int(),
  active_sessions: z.number().int(),
  expired_sessions: z.number().int(),
  archived_sessions: z.number().int(),
  total_queries: z.number().int(),
  cache_hit_rate: z.number().nullable(),
  avg_duration_seconds: z.number(),
  avg_queries_per_session: z.number(),
  abandonment_rate: z
    .number()
    .describe('Ended sessions (expired or archived) without a query / ended sessions'),
  top_assets: counted('symbol'),
  query_type_distribution: z.record(z.string(), z.number().int()),
  session_type_breakdown: z.record(z.string(), z.number().int()),
  popular_tags: counted('tag'),
  daily: z.array(
    z.object({
      day: z.string(),
      sessions_created: z.number().int(),
      queries: z.number().int(),
      session_types: z.record(z.string(), z.number()),
      query_types: z.record(z.string(), z.number()),
    }),
  ),
});

type Counted = { name: string; count: number };
const asMap = (rows: Counted[], key?: (name: string) => string) =>
  Object.fromEntries(rows.map((r) => [key ? key(r.name) : r.name, r.count]));

export function analyticsWire(a: Json): z.infer<typeof analyticsSchema> {
  return {
    status: 'success',
    period_days: a.periodDays as number,
    since: a.since as string,
    total_sessions: a.totalSessions as number,
    active_sessions: a.activeSessions as number,
    expired_sessions: a.expiredSessions as number,
    archived_sessions: a.archivedSessions as number,
    total_queries: a.totalQueries as number,
    cache_hit_rate: round(a.cacheHitRate) as number | null,
    avg_duration_seconds: round(a.avgDurationSeconds, 1) as number,
    avg_queries_per_session: round(a.avgQueriesPerSession, 2) as number,
    abandonment_rate: round(a.abandonmentRate) as number,
    top_assets: (a.topAssets as Counted[]).map((r) => ({ symbol: r.name, count: r.count })),
    query_type_distribution: asMap(a.queryTypeDistribution as Counted[]),
    session_type_breakdown: asMap(a.sessionTypeBreakdown as Counted[], (n) => n.toLowerCase()),
    popular_tags: (a.popularTags as Counted[]).map((r) => ({ tag: r.name, count: r.count })),
    daily: (a.daily as Json[]).map((d) => ({
      day: d.day as string,
      sessions_created: d.sessionsCreated as number,
      queries: d.queries as number,
      session_types: d.sessionTypes as Record<string, number>,
      query_types: d.queryTypes as Record<string, number>,
    })),
  };
}

import {
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  real,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Analysis sessions, owned by the principal that created them. `status` is what was decided
 * (`active` or `archived`); a session past `expires_at` that is still `active` reads as expired
 * until the cleanup archives it. Counters are updated in the statement that records a query, so
 * concurrent calls lose nothing; `query_types` counts every tracked query by type, also those whose
 * record was dropped to keep the newest SESSION_MAX_QUERIES_PER_SESSION.
 */
export const analysisSessions = pgTable(
  'analysis_sessions',
  {
    id: text('id').primaryKey(),
    owner: text('owner').notNull(),
    userId: text('user_id'),
    sessionType: text('session_type').notNull(),
    assets: jsonb('assets').$type<string[]>().notNull(),
    tags: jsonb('tags').$type<string[]>().notNull(),
    context: jsonb('context').$type<Record<string, unknown>>().notNull(),
    intermediateResults: jsonb('intermediate_results').$type<Record<string, unknown>>().notNull(),
    status: text('status').$type<'active' | 'archived'>().notNull(),
    archivedReason: text('archived_reason').$type<'expired' | 'archived'>(),
    totalQueries: integer('total_queries').notNull().default(0),
    /** Tracked queries that said whether they were answered from the cache, and those that were. */
    cacheKnown: integer('cache_known').notNull().default(0),
    cacheHits: integer('cache_hits').notNull().default(0),
    queryTypes: jsonb('query_types').$type<Record<string, number>>().notNull(),
    createdAt: at('created_at').notNull(),
    lastAccessedAt: at('last_accessed_at').notNull(),
    expiresAt: at('expires_at').notNull(),
    archivedAt: at('archived_at'),
  },
  (t) => [
    index('analysis_sessions_owner_created_idx').on(t.owner, t.createdAt, t.id),
    index('analysis_sessions_status_expires_idx').on(t.status, t.expiresAt),
    index('analysis_sessions_created_idx').on(t.createdAt),
  ],
);

/** Query records of a session: `seq` is the session's running count when it was recorded. */
export const analysisSessionQueries = pgTable(
  'analysis_session_queries',
  {
    sessionId: text('session_id')
      .notNull()
      .references(() => analysisSessions.id, { onDelete: 'cascade' }),
    seq: integer('seq').notNull(),
    queryType: text('query_type').notNull(),
    parameters: jsonb('parameters').$type<Record<string, unknown>>().notNull(),
    resultSummary: text('result_summary').notNull(),
    symbols: jsonb('symbols').$type<string[]>().notNull(),
    latencyMs: real('latency_ms').notNull(),
    cacheHit: boolean('cache_hit'),
    at: at('at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.seq] })],
);

/** One row per UTC day: the day's sessions summed up by the daily metrics task (recomputed alike). */
export const analysisSessionDailyMetrics = pgTable('analysis_session_daily_metrics', {
  day: date('day', { mode: 'string' }).primaryKey(),
  sessionsCreated: integer('sessions_created').notNull(),
  queries: integer('queries').notNull(),
  sessionTypes: jsonb('session_types').$type<Record<string, number>>().notNull(),
  queryTypes: jsonb('query_types').$type<Record<string, number>>().notNull(),
  computedAt: at('computed_at').notNull(),
});

/** When each upkeep task last ran (shared by every instance, so each runs once per interval). */
export const analysisSessionUpkeep = pgTable('analysis_session_upkeep', {
  task: text('task').primaryKey(),
  lastRunAt: at('last_run_at').notNull(),
  lastResult: jsonb('last_result').$type<Record<string, unknown>>().notNull(),
});

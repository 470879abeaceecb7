import { desc, gte, sql } from 'drizzle-orm';
import { ownerFilter, type Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import { AppError, ValidationError } from '../platform/errors.ts';
import { checkUserId, SESSION_LIMITS, SESSION_TYPES } from './session.rules.ts';
import { analysisSessionDailyMetrics } from './sessions.sql.ts';

export const DEFAULT_ANALYTICS_DAYS = 30;
const TOP = 10;
const DAY_MS = 86_400_000;

export interface AnalyticsQuery {
  readonly userId?: string | null;
  readonly sessionType?: string | null;
  readonly days?: number | null;
}

export interface Counted {
  readonly name: string;
  readonly count: number;
}

export interface DailyMetrics {
  readonly day: string;
  readonly sessionsCreated: number;
  readonly queries: number;
  readonly sessionTypes: Record<string, number>;
  readonly queryTypes: Record<string, number>;
}

export interface SessionAnalytics {
  readonly periodDays: number;
  readonly since: Date;
  readonly totalSessions: number;
  readonly activeSessions: number;
  readonly expiredSessions: number;
  readonly archivedSessions: number;
  readonly totalQueries: number;
  readonly cacheHitRate: number | null;
  readonly avgDurationSeconds: number;
  readonly avgQueriesPerSession: number;
  readonly abandonmentRate: number;
  readonly topAssets: Counted[];
  readonly queryTypeDistribution: Counted[];
  readonly sessionTypeBreakdown: Counted[];
  readonly popularTags: Counted[];
  /** The daily metrics task's rows for the period (whole server; admins only). */
  readonly daily: DailyMetrics[];
}

export interface SessionAnalyticsOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  /** SESSION_ENABLE_ANALYTICS. */
  readonly enabled: boolean;
}

/**
 * Session analytics over the sessions created in the last `days` days that the caller may see
 * (their own; an admin's cover every owner), optionally of one `userId` and one session type.
 * - duration: from creation to the last use (a query tracked, the context or a result changed);
 * - abandonment rate: of the sessions that ended (expired or archived), the share that never
 *   tracked a query; 0 when none ended;
 * - query types count every tracked query, also those whose record was dropped past the limit.
 */
export class SessionAnalyticsService {
  readonly #o: SessionAnalyticsOptions;

  constructor(options: SessionAnalyticsOptions) {
    this.#o = options;
  }

  get enabled(): boolean {
    return this.#o.enabled;
  }

  assertEnabled(): void {
    if (!this.#o.enabled) {
      throw new AppError(
        'SESSION_ANALYTICS_DISABLED',
        'session analytics are turned off on this server (SESSION_ENABLE_ANALYTICS=false)',
      );
    }
  }

  async analytics(principal: Principal, query: AnalyticsQuery = {}): Promise<SessionAnalytics> {
    this.assertEnabled();
    const days = query.days ?? DEFAULT_ANALYTICS_DAYS;
    if (!Number.isInteger(days) || days < 1 || days > SESSION_LIMITS.analyticsDays) {
      throw new ValidationError(
        'days',
        `must be a whole number of days, 1 to ${SESSION_LIMITS.analyticsDays}`,
      );
    }
    const userId = checkUserId(query.userId);
    const sessionType = query.sessionType == null ? null : String(query.sessionType).toLowerCase();
    if (sessionType !== null && !(SESSION_TYPES as readonly string[]).includes(sessionType)) {
      throw new ValidationError('sessionType', `must be one of ${SESSION_TYPES.join(', ')}`);
    }
    const now = this.#o.clock.now();
    const since = new Date(now.getTime() - days * DAY_MS);
    const owner = ownerFilter(principal) ?? null;
    const nowSql = sql`${now.toISOString()}::timestamptz`;
    const where = sql`s.created_at >= ${since.toISOString()}::timestamptz
      and (${owner}::text is null or s.owner = ${owner}::text)
      and (${userId}::text is null or s.user_id = ${userId}::text)
      and (${sessionType}::text is null or s.session_type = ${sessionType}::text)`;
    const db = this.#o.database.db;
    const ended = sql`(s.status = 'archived' or s.expires_at <= ${nowSql})`;
    const [totals, assets, tags, types, queryTypes, daily] = await Promise.all([
      queryRows<Record<string, number | null>>(
        db,
        sql`select count(*)::int as total,
          (count(*) filter (where s.status = 'active' and s.expires_at > ${nowSql}))::int as active,
          (count(*) filter (where s.status = 'active' and s.expires_at <= ${nowSql}))::int as expired,
          (count(*) filter (where s.status = 'archived'))::int as archived,
          coalesce(sum(s.total_queries), 0)::int as queries,
          coalesce(sum(s.cache_hits), 0)::int as hits,
          coalesce(sum(s.cache_known), 0)::int as known,
          coalesce(avg(extract(epoch from (s.last_accessed_at - s.created_at))), 0)::float8 as duration,
          (count(*) filter (where ${ended}))::int as ended,
          (count(*) filter (where ${ended} and s.total_queries = 0))::int as abandoned
        from analysis_sessions s where ${where}`,
      ),
      this.#counted(sql`select a.value as name, count(*)::int as count
        from analysis_sessions s, jsonb_array_elements_text(s.assets) a
        where ${where} group by a.value order by count desc, name limit ${TOP}`),
      this.#counted(sql`select t.value as name, count(*)::int as count
        from analysis_sessions s, jsonb_array_elements_text(s.tags) t
        where ${where} group by t.value order by count desc, name limit ${TOP}`),
      this.#counted(sql`select s.session_type as name, count(*)::int as count
        from analysis_sessions s where ${where} group by s.session_type order by count desc, name`),
      this.#counted(sql`select q.key as name, sum(q.value::int)::int as count
        from analysis_sessions s, jsonb_each_text(s.query_types) q
        where ${where} group by q.key order by count desc, name`),
      owner === null ? this.daily(since) : Promise.resolve([]),
    ]);
    const t = totals[0] ?? {};
    const total = Number(t.total ?? 0);
    const queries = Number(t.queries ?? 0);
    const known = Number(t.known ?? 0);
    const endedCount = Number(t.ended ?? 0);
    return {
      periodDays: days,
      since,
      totalSessions: total,
      activeSessions: Number(t.active ?? 0),
      expiredSessions: Number(t.expired ?? 0),
      archivedSessions: Number(t.archived ?? 0),
      totalQueries: queries,
      cacheHitRate: known > 0 ? Number(t.hits ?? 0) / known : null,
      avgDurationSeconds: Number(t.duration ?? 0),
      avgQueriesPerSession: total > 0 ? queries / total : 0,
      abandonmentRate: endedCount > 0 ? Number(t.abandoned ?? 0) / endedCount : 0,
      topAssets: assets,
      queryTypeDistribution: queryTypes,
      sessionTypeBreakdown: types,
      popularTags: tags,
      daily,
    };
  }

  /** Rows of the daily metrics task from `since` on, newest first. */
  async daily(since: Date): Promise<DailyMetrics[]> {
    const rows = await this.#o.database.db
      .select()
      .from(analysisSessionDailyMetrics)
      .where(gte(analysisSessionDailyMetrics.day, since.toISOString().slice(0, 10)))
      .orderBy(desc(analysisSessionDailyMetrics.day));
    return rows.map(({ computedAt: _c, ...row }) => row);
  }

  async #counted(query: ReturnType<typeof sql>): Promise<Counted[]> {
    const rows = await queryRows<{ name: string; count: number }>(this.#o.database.db, query);
    return rows.map((r) => ({ name: String(r.name), count: Number(r.count) }));
  }
}

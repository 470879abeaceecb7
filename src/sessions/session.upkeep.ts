import { and, eq, lt, lte, sql } from 'drizzle-orm';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import type { Logger } from '../platform/observability/logger.ts';
import {
  analysisSessionDailyMetrics,
  analysisSessionQueries,
  analysisSessions,
  analysisSessionUpkeep,
} from './sessions.sql.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Days the metrics task fills in at most per run when it has fallen behind (or runs first). */
const METRICS_BACKFILL_DAYS = 7;

export interface SessionUpkeepOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  /** SESSION_CLEANUP_INTERVAL_MINUTES: how often expired sessions are archived. */
  readonly cleanupIntervalMinutes: number;
  /** SESSION_RETENTION_DAYS: archived sessions older than this are deleted (daily). */
  readonly retentionDays: number;
  /** SESSION_ENABLE_ANALYTICS: without it the daily metrics are not computed. */
  readonly analytics: boolean;
  /** SESSION_MAX_QUERIES_PER_SESSION: query records kept per session (the newest). */
  readonly maxQueriesPerSession: number;
}

export type UpkeepTask = 'archive-expired' | 'delete-archived' | 'prune-records' | 'daily-metrics';

/**
 * The sessions' scheduled upkeep. A job runs every minute on some instance; each task is due once
 * per its interval, and which run takes it is decided in the database (the task's row is claimed
 * with its last run time), so every task runs once per interval between all instances.
 * - archive-expired (every SESSION_CLEANUP_INTERVAL_MINUTES): active sessions past their expiry
 *   become `archived` (reason `expired`); nothing is deleted.
 * - delete-archived (daily): sessions archived more than SESSION_RETENTION_DAYS ago are deleted
 *   with their query records.
 * - prune-records (daily): query records older than a session's newest
 *   SESSION_MAX_QUERIES_PER_SESSION are deleted. Each tracked call drops the one record it pushes
 *   out (session.tracker.ts); this only finds records kept under a larger limit before a restart.
 * - daily-metrics (daily): each complete UTC day since the last computed one (at most a week back)
 *   and always yesterday are summed up; recomputing a day writes the same row.
 */
export class SessionUpkeep {
  readonly #o: SessionUpkeepOptions;

  constructor(options: SessionUpkeepOptions) {
    this.#o = options;
  }

  /** Runs the tasks that are due; what each did, for the tasks this run took. */
  async runDue(): Promise<Partial<Record<UpkeepTask, number>>> {
    const done: Partial<Record<UpkeepTask, number>> = {};
    const tasks: [UpkeepTask, number, () => Promise<number>][] = [
      ['archive-expired', this.#o.cleanupIntervalMinutes * MINUTE_MS, () => this.archiveExpired()],
      ['delete-archived', DAY_MS, () => this.deleteArchived()],
      ['prune-records', DAY_MS, () => this.pruneRecords()],
    ];
    if (this.#o.analytics) tasks.push(['daily-metrics', DAY_MS, () => this.computeDailyMetrics()]);
    for (const [task, intervalMs, run] of tasks) {
      if (!(await this.#claim(task, intervalMs))) continue;
      try {
        const count = await run();
        done[task] = count;
        await this.#o.database.db
          .update(analysisSessionUpkeep)
          .set({ lastResult: { count } })
          .where(eq(analysisSessionUpkeep.task, task));
        if (count > 0) this.#o.logger.info({ task, count }, 'session upkeep');
      } catch (error) {
        this.#o.logger.warn({ err: error, task }, 'session upkeep task failed');
        // Not claimed after all: the next minute's run tries again.
        await this.#o.database.db.delete(analysisSessionUpkeep).where(eq(analysisSessionUpkeep.task, task));
      }
    }
    return done;
  }

  async archiveExpired(): Promise<number> {
    const now = this.#o.clock.now();
    const archived = await this.#o.database.db
      .update(analysisSessions)
      .set({ status: 'archived', archivedAt: now, archivedReason: 'expired' })
      .where(and(eq(analysisSessions.status, 'active'), lte(analysisSessions.expiresAt, now)))
      .returning({ id: analysisSessions.id });
    return archived.length;
  }

  async deleteArchived(): Promise<number> {
    const cutoff = new Date(this.#o.clock.now().getTime() - this.#o.retentionDays * DAY_MS);
    const deleted = await this.#o.database.db
      .delete(analysisSessions)
      .where(and(eq(analysisSessions.status, 'archived'), lt(analysisSessions.archivedAt, cutoff)))
      .returning({ id: analysisSessions.id });
    return deleted.length;
  }

  async pruneRecords(): Promise<number> {
    const deleted = await queryRows<{ n: number }>(
      this.#o.database.db,
      sql`
        with pruned as (
          delete from ${analysisSessionQueries} q using ${analysisSessions} s
          where q.session_id = s.id and q.seq <= s.total_queries - ${this.#o.maxQueriesPerSession}::int
          returning 1
        )
        select count(*)::int as n from pruned`,
    );
    return deleted[0]?.n ?? 0;
  }

  /** Computes the complete days due; the number of days written. */
  async computeDailyMetrics(): Promise<number> {
    const today = startOfUtcDay(this.#o.clock.now());
    const yesterday = new Date(today.getTime() - DAY_MS);
    const [newest] = await queryRows<{ day: string | null }>(
      this.#o.database.db,
      sql`select max(day)::text as day from analysis_session_daily_metrics`,
    );
    const earliest = new Date(today.getTime() - METRICS_BACKFILL_DAYS * DAY_MS);
    const after = newest?.day ? new Date(`${newest.day}T00:00:00Z`) : undefined;
    let day =
      after && after.getTime() + DAY_MS > earliest.getTime() ? new Date(after.getTime() + DAY_MS) : earliest;
    if (day.getTime() > yesterday.getTime()) day = yesterday;
    let written = 0;
    for (; day.getTime() < today.getTime(); day = new Date(day.getTime() + DAY_MS)) {
      await this.computeDay(day);
      written++;
    }
    return written;
  }

  /** Sums up the sessions created on one UTC day (idempotent: the same day writes the same row). */
  async computeDay(day: Date): Promise<void> {
    const start = startOfUtcDay(day);
    const end = new Date(start.getTime() + DAY_MS);
    const range = sql`s.created_at >= ${start.toISOString()}::timestamptz and s.created_at < ${end.toISOString()}::timestamptz`;
    const db = this.#o.database.db;
    const [[totals], types, queryTypes] = await Promise.all([
      queryRows<{ sessions: number; queries: number }>(
        db,
        sql`select count(*)::int as sessions, coalesce(sum(s.total_queries), 0)::int as queries
          from analysis_sessions s where ${range}`,
      ),
      queryRows<{ name: string; count: number }>(
        db,
        sql`select s.session_type as name, count(*)::int as count from analysis_sessions s
          where ${range} group by s.session_type`,
      ),
      queryRows<{ name: string; count: number }>(
        db,
        sql`select q.key as name, sum(q.value::int)::int as count
          from analysis_sessions s, jsonb_each_text(s.query_types) q where ${range} group by q.key`,
      ),
    ]);
    const row = {
      day: start.toISOString().slice(0, 10),
      sessionsCreated: Number(totals?.sessions ?? 0),
      queries: Number(totals?.queries ?? 0),
      sessionTypes: Object.fromEntries(types.map((r) => [r.name, Number(r.count)])),
      queryTypes: Object.fromEntries(queryTypes.map((r) => [r.name, Number(r.count)])),
      computedAt: this.#o.clock.now(),
    };
    await db
      .insert(analysisSessionDailyMetrics)
      .values(row)
      .onConflictDoUpdate({ target: analysisSessionDailyMetrics.day, set: row });
  }

  /** Takes the task for this run if its interval has passed since its last run (on any instance). */
  async #claim(task: UpkeepTask, intervalMs: number): Promise<boolean> {
    const now = this.#o.clock.now();
    const due = new Date(now.getTime() - intervalMs);
    const claimed = await this.#o.database.db
      .insert(analysisSessionUpkeep)
      .values({ task, lastRunAt: now, lastResult: {} })
      .onConflictDoUpdate({
        target: analysisSessionUpkeep.task,
        set: { lastRunAt: now, lastResult: {} },
        setWhere: lte(analysisSessionUpkeep.lastRunAt, due),
      })
      .returning({ task: analysisSessionUpkeep.task });
    return claimed.length > 0;
  }
}

function startOfUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

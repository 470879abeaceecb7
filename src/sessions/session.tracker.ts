import { sql } from 'drizzle-orm';
import { hasScope } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import type { SessionService } from './session.service.ts';
import type { ToolCall, ToolCallRecorder } from './tool-calls.port.ts';

export interface SessionTrackerOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly sessions: SessionService;
  /** SESSION_MAX_QUERIES_PER_SESSION: query records kept per session (the newest). */
  readonly maxQueriesPerSession: number;
}

const MAX_SUMMARY_CHARS = 500;
const MAX_PARAMETERS_CHARS = 4_000;

/**
 * Records the data tools' calls that carry a `sessionId` in that session, in one transaction: the
 * session's counters (total, cache hits, count per query type, last access) move, the query record
 * is added with the session's new count as its sequence number, and the record this one pushes
 * out of the newest SESSION_MAX_QUERIES_PER_SESSION is dropped. The row lock the update takes
 * orders concurrent calls, so none is lost and every record has its own number. `total_queries`
 * and the per-type counts keep counting past the limit; only the stored records are bounded.
 *
 * The record dropped is the one numbered exactly `total - limit`: one index lookup. A range
 * (`seq <= total - limit`) walked the index from the session's first record over the entries of
 * every record dropped before, which only a vacuum removes (the embedded database never runs one),
 * so each call cost more than the one before (1,000 records past the limit: a call took twice as
 * long). Records left below the window when the limit is lowered are dropped by the daily upkeep.
 *
 * A session that cannot take the call (unknown, someone else's, expired, archived) makes the call
 * fail with that reason: the caller asked for it to be recorded, and it was not.
 */
export class SessionTracker implements ToolCallRecorder {
  readonly #o: SessionTrackerOptions;

  constructor(options: SessionTrackerOptions) {
    this.#o = options;
  }

  async record(call: ToolCall): Promise<void> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (await this.#append(call)) return;
      // Tells why (NOT_FOUND, SESSION_EXPIRED, SESSION_ARCHIVED); a session that is usable now was
      // extended meanwhile, and the append is tried once more.
      await this.#o.sessions.assertUsable(call.principal, call.sessionId);
    }
  }

  async #append(call: ToolCall): Promise<boolean> {
    const now = this.#o.clock.now().toISOString();
    const admin = hasScope(call.principal, 'admin');
    const known = call.cacheHit === null ? 0 : 1;
    const hit = call.cacheHit === true ? 1 : 0;
    const parameters = JSON.stringify(call.parameters);
    // Two statements in one transaction: the update's row lock orders concurrent calls, and the
    // delete, a statement of its own, reads after the calls before this one committed. In one
    // statement its snapshot was taken before it waited for that lock, so the record to drop,
    // inserted by a call that committed meanwhile, was not seen and stayed.
    return this.#o.database.db.transaction(async (tx) => {
      const rows = await queryRows<{ id: string; total: number }>(
        tx,
        sql`
        with bumped as (
          update analysis_sessions set
            total_queries = total_queries + 1,
            cache_known = cache_known + ${known}::int,
            cache_hits = cache_hits + ${hit}::int,
            query_types = jsonb_set(query_types, array[${call.tool}::text],
              to_jsonb(coalesce((query_types ->> ${call.tool}::text)::int, 0) + 1)),
            last_accessed_at = ${now}::timestamptz
          where id = ${call.sessionId}::text
            and (${admin}::boolean or owner = ${call.principal.id}::text)
            and status = 'active' and expires_at > ${now}::timestamptz
          returning id, total_queries
        ), added as (
          insert into analysis_session_queries
            (session_id, seq, query_type, parameters, result_summary, symbols, latency_ms, cache_hit, at)
          select id, total_queries, ${call.tool}::text,
            ${parameters.length > MAX_PARAMETERS_CHARS ? '{"truncated":true}' : parameters}::jsonb,
            ${call.resultSummary.slice(0, MAX_SUMMARY_CHARS)}::text, ${JSON.stringify(call.symbols)}::jsonb,
            ${Math.max(0, call.durationMs)}::real, ${call.cacheHit}::boolean, ${now}::timestamptz
          from bumped
          returning seq
        )
        select id, total_queries::int as total from bumped`,
      );
      const bumped = rows[0];
      if (!bumped) return false;
      await tx.execute(sql`
        delete from analysis_session_queries
        where session_id = ${bumped.id}::text and seq = ${Number(bumped.total) - this.#o.maxQueriesPerSession}::int`);
      return true;
    });
  }
}

import { and, asc, count, desc, gt, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { Executor, Transaction } from '../platform/db/database.ts';
import { type EventFilter, type EventQuery, encodeEventCursor } from './event-filter.ts';
import { watchdogEvents } from './events.sql.ts';

export type WatchdogEvent = typeof watchdogEvents.$inferSelect;

export interface EventPage {
  readonly events: WatchdogEvent[];
  /** Present when older events match: pass it back as `cursor` for the next page. */
  readonly nextCursor: string | null;
}

/** Rows deleted per statement by retention, so one sweep never holds a long lock or a huge result. */
const DELETE_BATCH = 5_000;

/**
 * Takes a transaction, not a database: an event is stored in the transaction that announces it
 * (see event-bus.ts), so listeners never hear of an event that was rolled back.
 */
export async function insertWatchdogEvent(tx: Transaction, row: WatchdogEvent): Promise<WatchdogEvent> {
  const [stored] = await tx.insert(watchdogEvents).values(row).returning();
  return stored!;
}

export async function findWatchdogEvents(db: Executor, ids: readonly string[]): Promise<WatchdogEvent[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(watchdogEvents)
    .where(inArray(watchdogEvents.id, [...ids]))
    .orderBy(asc(watchdogEvents.id));
}

/** Events with an id above `afterId`, oldest first (catching up on a feed). */
export async function listWatchdogEventsAfter(
  db: Executor,
  afterId: string,
  limit: number,
): Promise<WatchdogEvent[]> {
  return db
    .select()
    .from(watchdogEvents)
    .where(gt(watchdogEvents.id, afterId))
    .orderBy(asc(watchdogEvents.id))
    .limit(limit);
}

/** The conditions of a filter, as `matchesEventFilter` applies them to a live event. */
function filterConditions(filter: EventFilter): (SQL | undefined)[] {
  const t = watchdogEvents;
  return [
    filter.severities.length > 0 ? inArray(t.severity, [...filter.severities]) : undefined,
    filter.eventTypes.length > 0 ? inArray(t.eventType, [...filter.eventTypes]) : undefined,
    filter.watchdogs.length > 0 ? inArray(t.watchdog, [...filter.watchdogs]) : undefined,
    filter.symbols.length > 0 ? or(inArray(t.symbol, [...filter.symbols]), isNull(t.symbol)) : undefined,
    filter.since ? gte(t.occurredAt, filter.since) : undefined,
    filter.until ? lt(t.occurredAt, filter.until) : undefined,
  ];
}

/** One page of the events a (parsed) query selects, newest first. */
export async function queryWatchdogEvents(db: Executor, query: EventQuery): Promise<EventPage> {
  const t = watchdogEvents;
  const rows = await db
    .select()
    .from(t)
    .where(and(...filterConditions(query), query.after ? lt(t.id, query.after) : undefined))
    .orderBy(desc(t.id))
    .limit(query.limit + 1);
  const more = rows.length > query.limit;
  const events = more ? rows.slice(0, query.limit) : rows;
  return { events, nextCursor: more ? encodeEventCursor(events.at(-1)!.id) : null };
}

/** What a replay reads (built from `since` and `last` by event-replay.ts). */
export interface ReplayQuery {
  readonly filter: EventFilter;
  readonly afterId: string | undefined;
  readonly last: number;
}

export interface ReplayResult {
  /** Oldest first. */
  readonly events: readonly WatchdogEvent[];
  /** False when older events the query selects were left out (more than `last` matched). */
  readonly complete: boolean;
}

/**
 * The newest `last` events a replay selects, oldest first (see event-replay.ts); one row more is
 * read to tell whether older ones were left out, never more.
 */
export async function replayWatchdogEvents(db: Executor, query: ReplayQuery): Promise<ReplayResult> {
  const t = watchdogEvents;
  const rows = await db
    .select()
    .from(t)
    .where(and(...filterConditions(query.filter), query.afterId ? gt(t.id, query.afterId) : undefined))
    .orderBy(desc(t.id))
    .limit(query.last + 1);
  const complete = rows.length <= query.last;
  const events = complete ? rows : rows.slice(0, query.last);
  return { events: events.reverse(), complete };
}

/** Deletes events that occurred before `before` (the retention cut-off); returns how many. */
export async function deleteWatchdogEventsBefore(db: Executor, before: Date): Promise<number> {
  let deleted = 0;
  for (;;) {
    const batch = db
      .select({ id: watchdogEvents.id })
      .from(watchdogEvents)
      .where(lt(watchdogEvents.occurredAt, before))
      .limit(DELETE_BATCH);
    const rows = await db
      .delete(watchdogEvents)
      .where(inArray(watchdogEvents.id, batch))
      .returning({ id: watchdogEvents.id });
    deleted += rows.length;
    if (rows.length < DELETE_BATCH) return deleted;
  }
}

/** How many events are stored, per severity (severities without any are absent). */
export async function countWatchdogEventsBySeverity(
  db: Executor,
): Promise<Array<{ severity: WatchdogEvent['severity']; n: number }>> {
  const rows = await db
    .select({ severity: watchdogEvents.severity, n: count() })
    .from(watchdogEvents)
    .groupBy(watchdogEvents.severity);
  return rows.map(({ severity, n }) => ({ severity, n: Number(n) }));
}

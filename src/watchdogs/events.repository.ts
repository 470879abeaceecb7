import { and, asc, desc, gt, gte, inArray, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { Executor, Transaction } from '../platform/db/database.ts';
import { type EventQuery, encodeEventCursor } from './event-filter.ts';
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

/** One page of the events a (parsed) query selects, newest first. */
export async function queryWatchdogEvents(db: Executor, query: EventQuery): Promise<EventPage> {
  const t = watchdogEvents;
  const where: (SQL | undefined)[] = [
    query.severities.length > 0 ? inArray(t.severity, [...query.severities]) : undefined,
    query.eventTypes.length > 0 ? inArray(t.eventType, [...query.eventTypes]) : undefined,
    query.watchdogs.length > 0 ? inArray(t.watchdog, [...query.watchdogs]) : undefined,
    query.symbols.length > 0 ? or(inArray(t.symbol, [...query.symbols]), isNull(t.symbol)) : undefined,
    query.since ? gte(t.occurredAt, query.since) : undefined,
    query.until ? lt(t.occurredAt, query.until) : undefined,
    query.after ? lt(t.id, query.after) : undefined,
  ];
  const rows = await db
    .select()
    .from(t)
    .where(and(...where))
    .orderBy(desc(t.id))
    .limit(query.limit + 1);
  const more = rows.length > query.limit;
  const events = more ? rows.slice(0, query.limit) : rows;
  return { events, nextCursor: more ? encodeEventCursor(events.at(-1)!.id) : null };
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

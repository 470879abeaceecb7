import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { EMPTY_REARM_STATE } from './detectors/rearm.ts';
import type { WatchdogName } from './registry.ts';
import { watchdogStates } from './states.sql.ts';

/** A watchdog's shared row (states.sql.ts): its switch, health counters and re-arm memory. */
export type WatchdogState = typeof watchdogStates.$inferSelect;

/** Columns a write may change (the name is the key). */
export type WatchdogStateChanges = Partial<Omit<typeof watchdogStates.$inferInsert, 'name'>>;

/** Creates the rows of `names` that are missing, starting at `since` (the first writer wins). */
export async function insertMissingWatchdogStates(
  db: Executor,
  names: readonly WatchdogName[],
  since: Date,
): Promise<void> {
  await db
    .insert(watchdogStates)
    .values(names.map((name) => ({ name, since, rearm: EMPTY_REARM_STATE })))
    .onConflictDoNothing();
}

export async function listWatchdogStates(db: Executor): Promise<WatchdogState[]> {
  return db.select().from(watchdogStates);
}

/**
 * One watchdog's row; with `lock` (inside a transaction) the row stays locked until it ends, so
 * the writes that follow see no other writer in between.
 */
export async function findWatchdogState(
  db: Executor,
  name: WatchdogName,
  lock = false,
): Promise<WatchdogState | undefined> {
  const query = db.select().from(watchdogStates).where(eq(watchdogStates.name, name));
  const [row] = lock ? await query.for('update') : await query;
  return row;
}

export async function updateWatchdogState(
  db: Executor,
  name: WatchdogName,
  changes: WatchdogStateChanges,
): Promise<void> {
  await db.update(watchdogStates).set(changes).where(eq(watchdogStates.name, name));
}

/**
 * Writes `changes` and bumps the row's generation in one statement (a restart: a check that began
 * before it does not write its results).
 */
export async function bumpWatchdogState(
  db: Executor,
  name: WatchdogName,
  changes: Omit<WatchdogStateChanges, 'generation'>,
): Promise<void> {
  await db
    .update(watchdogStates)
    .set({ ...changes, generation: sql`${watchdogStates.generation} + 1` })
    .where(eq(watchdogStates.name, name));
}

import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../platform/db/database.ts';
import { queryRows } from '../../platform/db/raw.ts';
import { marketDataSharedCache as entries } from './shared-cache.sql.ts';

/** A shared answer as stored, its age measured by the database's clock. */
export interface SharedRow {
  readonly payload: string;
  readonly ttlMs: number;
  readonly ageMs: number;
}

export interface SharedWrite {
  readonly key: string;
  readonly payload: string;
  readonly bytes: number;
  readonly ttlMs: number;
  /** How long ago (this instance's clock) the answer was obtained: its age when the row is written. */
  readonly ageMs: number;
}

export interface SweepBounds {
  readonly maxBytes: number;
  readonly maxEntries: number;
  /** Rows one sweep deletes at most. */
  readonly batch: number;
}

/** One lookup by primary key. */
export async function findSharedEntry(db: Database, key: string): Promise<SharedRow | undefined> {
  const [row] = await db
    .select({
      payload: entries.payload,
      ttlMs: entries.ttlMs,
      ageMs: sql<number>`(extract(epoch from (now() - ${entries.writtenAt})) * 1000)::float8`.mapWith(Number),
    })
    .from(entries)
    .where(eq(entries.key, key));
  return row;
}

/** Writes the answer, unless the row already holds one obtained later (another instance's). */
export async function upsertSharedEntry(db: Database, write: SharedWrite): Promise<void> {
  const writtenAt = sql`now() - ${write.ageMs}::float8 * interval '1 millisecond'`;
  await db
    .insert(entries)
    .values({
      key: write.key,
      payload: write.payload,
      bytes: write.bytes,
      ttlMs: write.ttlMs,
      writtenAt,
      expiresAt: sql`${writtenAt} + ${write.ttlMs}::float8 * interval '1 millisecond'`,
    })
    .onConflictDoUpdate({
      target: entries.key,
      set: {
        payload: sql`excluded.payload`,
        bytes: sql`excluded.bytes`,
        ttlMs: sql`excluded.ttl_ms`,
        writtenAt: sql`excluded.written_at`,
        expiresAt: sql`excluded.expires_at`,
      },
      setWhere: sql`excluded.written_at >= ${entries.writtenAt}`,
    });
}

/**
 * One bounded sweep: expired rows first, then, while the rows together are over the byte or entry
 * bound, those that would expire soonest. One instance sweeps at a time (the others skip their
 * turn). Returns the rows deleted.
 */
export async function sweepSharedEntries(db: Database, bounds: SweepBounds): Promise<number> {
  return db.transaction(async (tx) => {
    const [lock] = await queryRows<{ locked: boolean }>(
      tx,
      sql`select pg_try_advisory_xact_lock(hashtextextended('market-data-shared-cache:sweep', 0)) as locked`,
    );
    if (!lock?.locked) return 0;
    const expired = await tx
      .delete(entries)
      .where(
        sql`${entries.key} in (select key from market_data_shared_cache where expires_at <= now()
          order by expires_at limit ${bounds.batch})`,
      )
      .returning({ key: entries.key });
    const left = bounds.batch - expired.length;
    if (left <= 0) return expired.length;
    const over = await tx
      .delete(entries)
      .where(
        sql`${entries.key} in (select key from (select key, sum(bytes) over w as running, row_number() over w as n
          from market_data_shared_cache window w as (order by expires_at desc, key)) ranked
          where ranked.running > ${bounds.maxBytes} or ranked.n > ${bounds.maxEntries} limit ${left})`,
      )
      .returning({ key: entries.key });
    return expired.length + over.length;
  });
}

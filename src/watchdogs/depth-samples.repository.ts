import { and, asc, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { watchdogDepthSamples } from './depth-samples.sql.ts';
import type { DepthSample } from './kinds/liquidity-drop/detector.ts';

export interface RecordedDepth {
  readonly symbol: string;
  readonly venue: string;
  readonly sampledAt: Date;
  readonly depth: number;
}

/** Samples of these symbols at or after `since`, oldest first, grouped by `symbol@venue`. */
export async function readDepthSamples(
  db: Executor,
  symbols: readonly string[],
  since: Date,
): Promise<Map<string, DepthSample[]>> {
  const out = new Map<string, DepthSample[]>();
  if (symbols.length === 0) return out;
  const rows = await db
    .select()
    .from(watchdogDepthSamples)
    .where(
      and(inArray(watchdogDepthSamples.symbol, [...symbols]), gte(watchdogDepthSamples.sampledAt, since)),
    )
    .orderBy(asc(watchdogDepthSamples.sampledAt));
  for (const r of rows) {
    const key = depthKey(r.symbol, r.venue);
    const list = out.get(key) ?? [];
    list.push({ time: r.sampledAt, depth: r.depth });
    out.set(key, list);
  }
  return out;
}

/** Stores samples; a sample for a (book, time) already recorded is kept as it was. */
export async function recordDepthSamples(db: Executor, samples: readonly RecordedDepth[]): Promise<void> {
  if (samples.length === 0) return;
  await db
    .insert(watchdogDepthSamples)
    .values([...samples])
    .onConflictDoNothing();
}

/** Deletes samples older than `before` (outside every window); returns how many. */
export async function deleteDepthSamplesBefore(db: Executor, before: Date): Promise<number> {
  const deleted = await db
    .delete(watchdogDepthSamples)
    .where(lt(watchdogDepthSamples.sampledAt, before))
    .returning({ one: sql<number>`1` });
  return deleted.length;
}

export function depthKey(symbol: string, venue: string): string {
  return `${symbol}@${venue}`;
}

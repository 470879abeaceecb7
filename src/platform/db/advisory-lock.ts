import { sql } from 'drizzle-orm';
import type { Executor } from './database.ts';

/**
 * Takes the transaction-scoped advisory lock named `scope:key` (released when the transaction
 * ends). Check-then-insert under a per-owner bound (alerts, sessions, tasks) takes it first, so a
 * burst of concurrent calls of one owner is counted one call after another, on one instance or
 * many, and never overshoots the bound.
 */
export async function lockForTransaction(tx: Executor, scope: string, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`${scope}:${key}`}, 0))`);
}

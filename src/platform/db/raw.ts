import type { SQL } from 'drizzle-orm';
import type { Executor } from './database.ts';

/**
 * `execute()` answers differently per driver: postgres.js gives an array of rows, PGlite gives
 * `{ rows }`. Raw SQL goes through here so callers always get rows.
 */
export async function queryRows<T extends Record<string, unknown>>(
  executor: Executor,
  query: SQL,
): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown;
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

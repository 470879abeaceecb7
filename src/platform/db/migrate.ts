import type { PgliteDatabase } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PostgresJsDatabase } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import type { DatabaseHandle } from './database.ts';

/** Arbitrary but fixed: every Vigil instance contends for the same advisory lock. */
const MIGRATION_LOCK_KEY = 0x56_69_67_69_6c; // "Vigil"

/**
 * drizzle's migrate() takes no lock of its own. Instances that start together serialise on a
 * session-level advisory lock held on one reserved connection; the second one then finds nothing to do.
 */
export async function runMigrations(handle: DatabaseHandle, migrationsFolder: string): Promise<void> {
  if (handle.mode === 'pglite') {
    // PGlite has exactly one connection and one process (see data-dir-lock.ts): nothing to race.
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder });
    return;
  }
  const connection = await handle.sql.reserve();
  try {
    await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
    await migratePostgres(handle.db as unknown as PostgresJsDatabase, { migrationsFolder });
  } finally {
    await connection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
    connection.release();
  }
}

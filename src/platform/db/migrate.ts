import type { PgliteDatabase } from 'drizzle-orm/pglite';
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
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(handle.db as unknown as PgliteDatabase, { migrationsFolder });
    return;
  }
  const [{ default: postgres }, { drizzle }, { migrate: migratePostgres }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
    import('drizzle-orm/postgres-js/migrator'),
  ]);
  // Its own connections without the serving timeouts: waiting for another instance's migration on
  // the advisory lock, or rewriting a large table, may rightly take longer than a request may.
  const sql = postgres(handle.url, {
    max: 2,
    onnotice: () => {},
    connect_timeout: handle.timeouts.connectMs / 1000,
    connection: { application_name: 'vigil-migrate', statement_timeout: 0, lock_timeout: 0 },
  });
  try {
    const connection = await sql.reserve();
    try {
      await connection`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`;
      await migratePostgres(drizzle(sql), { migrationsFolder });
    } finally {
      await connection`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.catch(() => {});
      connection.release();
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

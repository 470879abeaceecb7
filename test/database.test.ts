import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { DataDirInUseError } from '../src/platform/db/data-dir-lock.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { queryRows } from '../src/platform/db/raw.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestDatabase, drivers } from './support/databases.ts';

const logger = createLogger('silent');

describe.each(drivers)('database on %s', (driver) => {
  it('migrates to the same tables, and a second run is a no-op', async () => {
    const database = await createTestDatabase(driver);
    const handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger,
    });
    try {
      await runMigrations(handle, MIGRATIONS_FOLDER);
      await runMigrations(handle, MIGRATIONS_FOLDER);
      const tables = await queryRows<{ table_name: string }>(
        handle.db,
        sql`select table_name from information_schema.tables where table_schema = 'public' order by 1`,
      );
      expect(tables.map((t) => t.table_name)).toContain('service_instances');
      const applied = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      expect(applied[0]?.n).toBeGreaterThanOrEqual(1);
    } finally {
      await handle.close();
      await database.cleanup();
    }
  });
});

describe.runIf(drivers.includes('postgres'))('instances starting together on one Postgres', () => {
  it('serialise their migrations on the advisory lock and all succeed', async () => {
    const database = await createTestDatabase('postgres');
    const handles: DatabaseHandle[] = [];
    try {
      for (let i = 0; i < 4; i++) {
        handles.push(
          await openDatabase({ url: database.url, pgliteDir: database.dataDir, logger, poolSize: 2 }),
        );
      }
      await Promise.all(handles.map((h) => runMigrations(h, MIGRATIONS_FOLDER)));
      const applied = await queryRows<{ n: number }>(
        handles[0]!.db,
        sql`select count(*)::int as n from drizzle.__drizzle_migrations`,
      );
      // Each migration is recorded exactly once although four instances ran them at once.
      const distinct = await queryRows<{ n: number }>(
        handles[0]!.db,
        sql`select count(distinct hash)::int as n from drizzle.__drizzle_migrations`,
      );
      expect(applied[0]?.n).toBe(distinct[0]?.n);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
      await database.cleanup();
    }
  });
});

describe('the embedded database directory', () => {
  // Lock edge cases (stale pid files, other processes, crashed holders): test/abuse/data-dir-lock.test.ts.
  it('refuses a second opener while the first holds it, and is free again after close', async () => {
    const database = await createTestDatabase('pglite');
    const dir = pgliteDirFor(database.dataDir);
    const first = await openDatabase({ pgliteDir: dir, logger });
    try {
      await expect(openDatabase({ pgliteDir: dir, logger })).rejects.toThrow(DataDirInUseError);
      await expect(openDatabase({ pgliteDir: dir, logger })).rejects.toThrow(/in use by process \d+/);
    } finally {
      await first.close();
    }
    const again = await openDatabase({ pgliteDir: dir, logger });
    await again.ping();
    await again.close();
    await database.cleanup();
  });
});

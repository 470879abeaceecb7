import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { createFreshDatabase } from './postgres-database.ts';

export type Driver = 'pglite' | 'postgres';

export interface TestDatabase {
  readonly driver: Driver;
  /** DATABASE_URL for the app (postgres), or undefined (pglite). */
  readonly url: string | undefined;
  /** DATA_DIR for the app; holds the PGlite directory in pglite mode. */
  readonly dataDir: string;
  cleanup(): Promise<void>;
}

/** The Postgres server tests may use: DATABASE_URL when set (CI sets it), else none. */
export const serverUrl = process.env.DATABASE_URL || undefined;

/** Drivers to run "both drivers" suites on: PGlite always, Postgres when a server is configured. */
export const drivers: Driver[] = serverUrl ? ['pglite', 'postgres'] : ['pglite'];

/** The database `npm test` runs app tests on: Postgres when DATABASE_URL is set, else PGlite. */
export const defaultDriver: Driver = serverUrl ? 'postgres' : 'pglite';

export async function createTestDatabase(driver: Driver = defaultDriver): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-test-'));
  if (driver === 'pglite') {
    cpSync(inject('pgliteTemplate'), dataDir, { recursive: true });
    return {
      driver,
      url: undefined,
      dataDir,
      async cleanup() {
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (!serverUrl) throw new Error('the postgres driver needs DATABASE_URL');
  const database = await createFreshDatabase(serverUrl, 'vigil_test');
  return {
    driver,
    url: database.url,
    dataDir,
    async cleanup() {
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

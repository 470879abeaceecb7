import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import type { Logger } from '../observability/logger.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
/**
 * The tables the handle knows (every module's `*.sql.ts` exports). The platform never names a
 * table itself: the app hands them over. Repositories use the query builder with their own tables.
 */
export type Schema = Record<string, unknown>;
/** One typed handle over both drivers; repositories accept either a database or a transaction. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Executor = Database | Transaction;

export type DatabaseMode = 'postgres' | 'pglite';

interface HandleBase {
  readonly db: Database;
  /** Cheap round trip used by /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
export interface PostgresHandle extends HandleBase {
  readonly mode: 'postgres';
  readonly url: string;
  readonly sql: postgres.Sql;
}
export interface PgliteHandle extends HandleBase {
  readonly mode: 'pglite';
  readonly dataDir: string;
  readonly pglite: PGlite;
}
export type DatabaseHandle = PostgresHandle | PgliteHandle;

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. */
  readonly url?: string | undefined;
  /** PGlite data directory (used only without a URL). */
  readonly pgliteDir: string;
  readonly poolSize?: number;
  readonly logger: Logger;
  /** Every module's tables, for drizzle's typed handle. */
  readonly tables?: Schema;
}

export function pgliteDirFor(dataDir: string): string {
  return join(dataDir, 'pglite');
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.pgliteDir, options);
}

function openPostgres(url: string, options: DatabaseOptions): PostgresHandle {
  const sql = postgres(url, {
    max: options.poolSize ?? 10,
    onnotice: () => {},
    connection: { application_name: 'vigil' },
  });
  const db = drizzlePostgres(sql, { schema: options.tables ?? {} }) as unknown as Database;
  return {
    mode: 'postgres',
    url,
    sql,
    db,
    async ping() {
      await sql`select 1`;
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

async function openPglite(dir: string, options: DatabaseOptions): Promise<PgliteHandle> {
  mkdirSync(dir, { recursive: true });
  const lock: DataDirLock = acquireDataDirLock(dir);
  let pglite: PGlite;
  try {
    pglite = await PGlite.create(dir);
  } catch (error) {
    lock.release();
    throw error;
  }
  options.logger.debug({ dir }, 'embedded database opened');
  const db = drizzlePglite(pglite, { schema: options.tables ?? {} }) as unknown as Database;
  return {
    mode: 'pglite',
    dataDir: dir,
    pglite,
    db,
    async ping() {
      await pglite.query('select 1');
    },
    async close() {
      try {
        if (!pglite.closed) await pglite.close();
      } finally {
        lock.release();
      }
    },
  };
}

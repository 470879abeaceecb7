import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { type ExtractTablesWithRelations, sql as sqlText } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type postgres from 'postgres';
import type { Logger } from '../observability/logger.ts';
import { acquireDataDirLock, type DataDirLock } from './data-dir-lock.ts';
import type { OperatorChannel } from './operator-channel.ts';
import {
  baselineWasmOnly,
  initPgliteDir,
  isPgliteDir,
  PGLITE_SETTINGS,
  serializeWasmOptimization,
} from './pglite-init.ts';
import { expectedTables, schemaCheck } from './readiness.ts';
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
  readonly timeouts: DatabaseTimeouts;
  /** /readyz: the database answers and every table the app serves from exists (cheap: catalog only). */
  ping(): Promise<void>;
  /**
   * Calls `onMessage` with the payload of every NOTIFY on `channel` (from any instance on the same
   * database, see `notify`). `onListen` runs each time listening starts, the first time and after
   * every reconnect (notifications sent in between are lost: catch up there). Resolves once
   * listening; the returned function stops it.
   */
  listen(
    channel: string,
    onMessage: (payload: string) => void,
    onListen?: () => void,
  ): Promise<() => Promise<void>>;
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
  /**
   * Commands for the local operator on the lock's socket: the embedded database is
   * single-process, so tools reach a running server's data through it (operator-channel.ts).
   */
  readonly operatorChannel: OperatorChannel;
}
export type DatabaseHandle = PostgresHandle | PgliteHandle;

/**
 * Bounds on every statement (0 disables one). A locked table or a slow query fails within them with
 * a retryable error instead of holding a pooled connection, and the request, for as long as it lasts.
 */
export interface DatabaseTimeouts {
  readonly statementMs: number;
  readonly lockMs: number;
  /** Opening a connection (Postgres only). */
  readonly connectMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = {
  statementMs: 10_000,
  lockMs: 5_000,
  connectMs: 10_000,
};

export interface DatabaseOptions {
  /** postgres:// URL; when absent the embedded PGlite is used. */
  readonly url?: string | undefined;
  /** PGlite data directory (used only without a URL). */
  readonly pgliteDir: string;
  readonly poolSize?: number;
  readonly logger: Logger;
  /** Every module's tables, for drizzle's typed handle. */
  readonly tables?: Schema;
  readonly timeouts?: DatabaseTimeouts;
  /**
   * Called before a new embedded data directory is created (initdb takes seconds, once): the
   * entry points say so at once instead of leaving the console silent.
   */
  readonly onCreate?: (dir: string) => void;
  /**
   * A short-lived process (a command line): PGlite's WebAssembly runs as baseline code only
   * (see pglite-init.ts). A server lets V8 optimise it, one function at a time.
   */
  readonly shortLived?: boolean;
}

export function pgliteDirFor(dataDir: string): string {
  return join(dataDir, 'pglite');
}

/**
 * Opens the configured database. Each driver is imported when it is opened, so a process loads
 * only the one it uses (PGlite's WebAssembly runtime or postgres.js).
 */
export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  return options.url ? openPostgres(options.url, options) : openPglite(options.pgliteDir, options);
}

async function openPostgres(url: string, options: DatabaseOptions): Promise<PostgresHandle> {
  const [{ default: postgres }, { drizzle: drizzlePostgres }] = await Promise.all([
    import('postgres'),
    import('drizzle-orm/postgres-js'),
  ]);
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  const sql = postgres(url, {
    max: options.poolSize ?? 10,
    onnotice: () => {},
    connect_timeout: timeouts.connectMs / 1000,
    // Startup parameters: every pooled connection, and each reconnect, carries them.
    connection: {
      application_name: 'vigil',
      statement_timeout: timeouts.statementMs,
      lock_timeout: timeouts.lockMs,
    },
  });
  const db = drizzlePostgres(sql, { schema: options.tables ?? {} }) as unknown as Database;
  const tables = expectedTables(options.tables);
  return {
    mode: 'postgres',
    url,
    sql,
    db,
    timeouts,
    async ping() {
      await schemaCheck(db, tables);
    },
    async listen(channel, onMessage, onListen) {
      // postgres.js keeps one dedicated connection for LISTEN and re-listens after a reconnect.
      const { unlisten } = await sql.listen(channel, onMessage, onListen);
      return unlisten;
    },
    async close() {
      await sql.end({ timeout: 5 });
    },
  };
}

async function openPglite(dir: string, options: DatabaseOptions): Promise<PgliteHandle> {
  mkdirSync(dir, { recursive: true });
  const lock: DataDirLock = await acquireDataDirLock(dir);
  const timeouts = options.timeouts ?? DEFAULT_DATABASE_TIMEOUTS;
  let pglite: PGlite;
  let drizzlePglite: typeof import('drizzle-orm/pglite').drizzle;
  try {
    if (!isPgliteDir(dir)) {
      options.onCreate?.(dir);
      await initPgliteDir(dir);
    }
    if (options.shortLived) baselineWasmOnly();
    else serializeWasmOptimization();
    const [{ PGlite }, driver] = await Promise.all([
      import('@electric-sql/pglite'),
      import('drizzle-orm/pglite'),
    ]);
    drizzlePglite = driver.drizzle;
    pglite = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] });
    // Accepted for parity with Postgres; one in-process connection has no lock waits to bound.
    await pglite.exec(
      `set statement_timeout = ${timeouts.statementMs}; set lock_timeout = ${timeouts.lockMs}`,
    );
  } catch (error) {
    await lock.release();
    throw error;
  }
  options.logger.debug({ dir }, 'embedded database opened');
  const db = drizzlePglite(pglite, { schema: options.tables ?? {} }) as unknown as Database;
  const tables = expectedTables(options.tables);
  return {
    mode: 'pglite',
    dataDir: dir,
    pglite,
    operatorChannel: lock.channel,
    db,
    timeouts,
    async ping() {
      await schemaCheck(db, tables);
    },
    async listen(channel, onMessage, onListen) {
      // In-process: nothing can be missed, so listening starts once.
      const unlisten = await pglite.listen(channel, onMessage);
      onListen?.();
      return async () => {
        if (!pglite.closed) await unlisten();
      };
    },
    async close() {
      try {
        if (!pglite.closed) await pglite.close();
      } finally {
        await lock.release();
      }
    },
  };
}

/**
 * Sends `payload` to every listener of `channel` (see `DatabaseHandle.listen`). Inside a transaction
 * it is delivered when, and only if, the transaction commits.
 */
export async function notify(db: Executor, channel: string, payload: string): Promise<void> {
  await db.execute(sqlText`select pg_notify(${channel}, ${payload})`);
}

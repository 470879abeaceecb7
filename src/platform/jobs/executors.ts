import type { PGlite } from '@electric-sql/pglite';
import { type SQL, sql } from 'drizzle-orm';
import type PgBoss from 'pg-boss';
import type { Executor } from '../db/database.ts';
import { queryRows } from '../db/raw.ts';
import type { PreparedStatements } from './prepared-statements.ts';

type BossDb = PgBoss.Db;

/**
 * pg-boss on PGlite. pg-boss sends two kinds of SQL: parameterless multi-statement scripts
 * (migrations, queue creation: `BEGIN; ...; COMMIT;`) and single parameterised statements.
 * Scripts run through `exec` inside PGlite's own transaction lock, so a failing script is rolled
 * back before anything else can reach the (single) connection and find it poisoned. Statements
 * with parameters run prepared when `prepared` is given (prepared-statements.ts).
 */
export function pgliteBossDb(pglite: PGlite, prepared?: PreparedStatements): BossDb {
  const run = async (text: string) => (await pglite.query(text)).rows as unknown[];
  return {
    async executeSql(text: string, values?: unknown[]) {
      if (!values || values.length === 0) {
        const results = await pglite.transaction((tx) => tx.exec(text));
        return { rows: results.at(-1)?.rows ?? [] };
      }
      const rows = await prepared?.run(run, text, values);
      if (rows) return { rows };
      const result = await pglite.query(text, values.map(toWireValue));
      return { rows: result.rows as unknown[] };
    },
  };
}

/**
 * pg-boss through an open drizzle transaction (either driver), for a transactional enqueue: the
 * job row commits or rolls back with the caller's writes. Calling `boss.send()` without this on
 * PGlite would wait for the transaction that is waiting for it. On PGlite, `prepared` runs
 * statements with parameters prepared, as `pgliteBossDb` does (the same connection).
 */
export function transactionBossDb(executor: Executor, prepared?: PreparedStatements): BossDb {
  const run = (text: string) => queryRows(executor, sql.raw(text));
  return {
    async executeSql(text: string, values: unknown[] = []) {
      const rows = values.length > 0 ? await prepared?.run(run, text, values) : undefined;
      return { rows: rows ?? (await queryRows(executor, toDrizzleSql(text, values))) };
    },
  };
}

/** `select $1, $2` + values -> drizzle SQL with bound parameters (never interpolated text). */
export function toDrizzleSql(text: string, values: readonly unknown[]): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const match of text.matchAll(/\$(\d+)/g)) {
    const index = Number(match[1]) - 1;
    if (index < 0 || index >= values.length)
      throw new Error(`SQL refers to $${index + 1} but ${values.length} values were given`);
    chunks.push(sql.raw(text.slice(last, match.index)));
    // sql.param keeps an array as one parameter (a template `${array}` would expand it into a list).
    chunks.push(sql`${sql.param(toWireValue(values[index]))}`);
    last = match.index + match[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks);
}

/**
 * node-postgres (pg-boss's native driver) sends every parameter as untyped text; the server infers
 * the type from the statement. Dates and objects are turned into that text here so postgres.js
 * and PGlite do not impose their own inferred type (e.g. timestamptz where pg-boss wants text).
 */
function toWireValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  return value;
}

import { is, type SQL, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { databaseUnavailableReason, sqlState } from './db-errors.ts';

/** What the check needs of a handle (typed locally: database.ts imports this file). */
interface Queryable {
  execute(query: SQL): PromiseLike<unknown>;
}

/** Where drizzle's migrator records applied migrations (its defaults, which migrate.ts keeps). */
const MIGRATIONS_TABLE = '"drizzle"."__drizzle_migrations"';

/** The qualified names of the tables the app serves from, as `to_regclass` reads them. */
export function expectedTables(tables: Readonly<Record<string, unknown>> | undefined): string[] {
  const names = Object.values(tables ?? {})
    .filter((value): value is PgTable => is(value, PgTable))
    .map((table) => {
      const { name, schema } = getTableConfig(table);
      return `"${schema ?? 'public'}"."${name}"`;
    });
  return [MIGRATIONS_TABLE, ...new Set(names)];
}

/**
 * One round trip that also proves the schema is there: a database that answers `select 1` but has
 * lost its tables cannot serve. Reads only the catalog, so it waits on no table lock. Failures are
 * described without the statement (the answer of /readyz is public).
 */
export async function schemaCheck(db: Queryable, tables: readonly string[]): Promise<void> {
  let missing: Array<{ name: string }>;
  try {
    const result = await db.execute(
      sql`select n as name from unnest(string_to_array(${tables.join(',')}, ',')) as n where to_regclass(n) is null`,
    );
    // postgres.js answers with the rows, PGlite with `{ rows }` (see raw.ts).
    missing = (Array.isArray(result) ? result : ((result as { rows?: [] }).rows ?? [])) as typeof missing;
  } catch (error) {
    throw new Error(describeFailure(error));
  }
  if (missing.length > 0) {
    throw new Error(
      `schema incomplete: ${missing.length} of ${tables.length} tables missing (${missing
        .slice(0, 3)
        .map((m) => m.name)
        .join(', ')}${missing.length > 3 ? ', ...' : ''})`,
    );
  }
}

/** A database failure in a few words: the outage reason or the SQLSTATE, never SQL or parameters. */
export function describeFailure(error: unknown): string {
  const reason = databaseUnavailableReason(error);
  if (reason) return `database unavailable: ${reason}`;
  const state = sqlState(error);
  return state ? `database query failed (SQLSTATE ${state})` : 'database query failed';
}

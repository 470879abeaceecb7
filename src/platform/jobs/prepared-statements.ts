/**
 * pg-boss's statements on the embedded database, prepared once and then executed by name.
 *
 * pg-boss sends a small, fixed set of statements (fetch, complete, insert ...), each long and over
 * a partitioned table. PGlite sends every query as an unnamed statement, so Postgres parses,
 * analyses and plans it anew each time: a fetch from an empty queue cost 5-8 ms of the single
 * connection where `EXECUTE` of the same statement, prepared, cost about 1 ms (insert 2.2 -> 0.8 ms,
 * complete 1-3.5 -> 0.4-0.9 ms). Postgres keeps the plan and re-plans by itself when a table
 * changes.
 *
 * PGlite cannot bind parameters to `EXECUTE` through its query API, so each value is written into
 * the `EXECUTE` as a string literal, the text node-postgres (pg-boss's own driver) would have bound,
 * left untyped so that Postgres gives it the type of the prepared parameter. With
 * standard_conforming_strings on (checked before the first statement; otherwise nothing is
 * prepared), a doubled quote is the only escape a literal needs.
 */

/** Runs one SQL statement without parameters on the connection, answering its rows. */
export type RunSql = (text: string) => Promise<unknown[]>;

/** Distinct statements prepared at most; any further ones run unprepared. */
const MAX_PREPARED = 200;

export class PreparedStatements {
  readonly #names = new Map<string, Promise<string | null>>();
  #next = 0;
  #usable: Promise<boolean> | undefined;

  /** `text`'s rows, run as a prepared statement with `values`; undefined when it cannot be prepared. */
  async run(run: RunSql, text: string, values: readonly unknown[]): Promise<unknown[] | undefined> {
    this.#usable ??= run('show standard_conforming_strings').then(
      (rows) => (rows[0] as { standard_conforming_strings?: unknown })?.standard_conforming_strings === 'on',
      () => false,
    );
    if (!(await this.#usable)) return undefined;
    const name = await this.#prepare(run, text);
    if (!name) return undefined;
    const args = values.length > 0 ? `(${values.map(sqlLiteral).join(', ')})` : '';
    try {
      return await run(`execute ${name}${args}`);
    } catch (error) {
      // A table's columns changed under the plan ("cached plan must not change result type"):
      // prepared again on the next call.
      if (sqlState(error) === '0A000') {
        this.#names.delete(text);
        await run(`deallocate ${name}`).catch(() => {});
      }
      throw error;
    }
  }

  #prepare(run: RunSql, text: string): Promise<string | null> {
    let name = this.#names.get(text);
    if (!name) {
      if (this.#names.size >= MAX_PREPARED) return Promise.resolve(null);
      const chosen = `vigil_jobs_${++this.#next}`;
      // A statement that cannot be prepared now (a parameter of no inferable type, a transaction
      // already failed) runs unprepared; preparing is tried again next time.
      name = run(`prepare ${chosen} as ${text}`).then(
        () => chosen,
        () => {
          this.#names.delete(text);
          return null;
        },
      );
      this.#names.set(text, name);
    }
    return name;
  }
}

/**
 * `value` as an untyped SQL string literal holding the text node-postgres would send for it
 * (null as NULL). Strings as they are, numbers and booleans as written, dates in ISO form, objects
 * as JSON, arrays in Postgres's array syntax.
 */
export function sqlLiteral(value: unknown): string {
  const text = wireText(value);
  return text === null ? 'null' : `'${text.replaceAll("'", "''")}'`;
}

function wireText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map(arrayElement).join(',')}}`;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function arrayElement(value: unknown): string {
  if (Array.isArray(value)) return wireText(value)!;
  const text = wireText(value);
  return text === null ? 'NULL' : `"${text.replace(/["\\]/g, '\\$&')}"`;
}

function sqlState(error: unknown): unknown {
  const e = error as { code?: unknown; cause?: { code?: unknown } } | undefined;
  return e?.code ?? e?.cause?.code;
}

import { builder } from './builder.ts';
import { type ErrorCodeTable, ErrorTable } from './platform/errors.ts';

/**
 * `enum ErrorCode`: every code a client can meet in `extensions.code` of a GraphQL error, in the
 * `code` of a REST or tool-route error body and in an MCP tool error. It is built from the error
 * tables (the platform's and every module's) so that there is one list: a code added to a table is
 * in the enum at the next schema build, with the table's description.
 *
 * The tables are only complete once every module is loaded, and modules' own GraphQL types refer to
 * the enum, so the enum is declared when the schema is built (schema.ts) and fields reach it through
 * `errorCodeEnum()` inside their `fields` thunk, which Pothos runs at that same build.
 */

function declare(table: ErrorTable) {
  return builder.enumType('ErrorCode', {
    description:
      'A stable error code, as in `extensions.code` of GraphQL errors, the `code` of REST and tool-route ' +
      'error bodies and MCP tool errors. Each value says what the code means and the HTTP status REST ' +
      'routes answer it with. New codes may be added: treat a code you do not know as INTERNAL.',
    values: Object.fromEntries(
      table
        .entries()
        .map(([code, spec]) => [
          code,
          { value: code, description: `${spec.description} REST routes answer it with HTTP ${spec.status}.` },
        ]),
    ),
  });
}

let declared: { readonly ref: ReturnType<typeof declare>; readonly codes: ReadonlySet<string> } | undefined;

/**
 * Declares the enum from the error tables (duplicates are refused by ErrorTable). Called once, when
 * the schema is built; a second call is a no-op, as the tables cannot change once modules are loaded.
 */
export function registerErrorCodes(tables: readonly ErrorCodeTable[]): void {
  if (declared) return;
  const table = new ErrorTable(...tables);
  declared = { ref: declare(table), codes: new Set(table.entries().map(([code]) => code)) };
}

/** The ErrorCode enum, for a field's `type` inside a `fields` thunk (run at schema build). */
export function errorCodeEnum(): ReturnType<typeof declare> {
  if (!declared) throw new Error('ErrorCode is declared when the schema is built (registerErrorCodes)');
  return declared.ref;
}

/**
 * A code as a field of type ErrorCode gives it. Codes come from the tables, but a stored one (a
 * background task's error written by an older version) may be gone: it reads as INTERNAL, as the
 * error table treats unknown codes, rather than failing the whole field.
 */
export function exposedErrorCode(code: string): string {
  return !declared || declared.codes.has(code) ? code : 'INTERNAL';
}

import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import { registerErrorCodes } from './error-codes.graphql.ts';
// Loads every module, and with them their `*.graphql.ts` files (which register types on the builder).
import { modules } from './modules.ts';
import { PLATFORM_ERRORS } from './platform/errors.ts';
import { documentScopes } from './platform/graphql/scope-guard.ts';

let built: GraphQLSchema | undefined;

/**
 * The whole API, built once from what the modules registered on the builder; every root field's
 * description ends with the scope it needs.
 */
export function buildSchema(): GraphQLSchema {
  if (built) return built;
  // ErrorCode lists every table's codes, so it can only be declared once every module is loaded.
  registerErrorCodes([PLATFORM_ERRORS, ...modules.map((m) => m.errors ?? {})]);
  built = documentScopes(builder.toSchema());
  return built;
}

/** What `npm run schema` writes to schema.graphql (sorted, so diffs are stable). */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildSchema()))}\n`;
}

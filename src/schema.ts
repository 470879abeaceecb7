import { type GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import { documentScopes } from './platform/graphql/scope-guard.ts';
// Loads every module, and with them their `*.graphql.ts` files (which register types on the builder).
import './modules.ts';

let built: GraphQLSchema | undefined;

/**
 * The whole API, built once from what the modules registered on the builder; every root field's
 * description ends with the scope it needs.
 */
export function buildSchema(): GraphQLSchema {
  built ??= documentScopes(builder.toSchema());
  return built;
}

/** What `npm run schema` writes to schema.graphql (sorted, so diffs are stable). */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(buildSchema()))}\n`;
}

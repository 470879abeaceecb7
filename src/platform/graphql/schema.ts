import { lexicographicSortSchema, printSchema } from 'graphql';
import { builder } from './builder.ts';
import './scalars.ts';
import './root-types.ts';
import '../server-info/server-info.graphql.ts';
import '../../market-data/market-data.graphql.ts';
import '../../market-data/tools/tools.graphql.ts';
import '../../fk-dsl/fk-dsl.graphql.ts';

/** The whole API: every domain's `*.graphql.ts` is imported above, then the schema is built once. */
export const schema = builder.toSchema();

/** What `npm run schema` writes to schema.graphql (sorted, so diffs are stable). */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

import SchemaBuilder from '@pothos/core';
import type { GraphQLContext } from './context.ts';
import { DateTimeScalar, JsonScalar } from './platform/graphql/scalars.ts';

/**
 * The one Pothos builder. It defines no domain types: each domain declares its types and root
 * fields in its own `*.graphql.ts` files, which its module lists (src/modules.ts); schema.ts builds
 * the schema once every module is loaded.
 */
interface SchemaShape {
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}

/** The builder's types, for helpers that build fields on several object types. */
export type BuilderTypes = PothosSchemaTypes.ExtendDefaultTypes<SchemaShape>;

export const builder = new SchemaBuilder<SchemaShape>({
  defaultFieldNullability: false,
});

builder.addScalarType('DateTime', DateTimeScalar);
builder.addScalarType('JSON', JsonScalar);

builder.queryType({ description: 'Read operations.' });
builder.mutationType({ description: 'Operations that change state.' });
builder.subscriptionType({
  description: 'Live results over graphql-ws (WebSocket, path /graphql) or Server-Sent Events.',
});

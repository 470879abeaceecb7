import SchemaBuilder from '@pothos/core';
import type { GraphQLContext } from './context.ts';

/**
 * The one Pothos builder. It defines no types itself: scalars live in scalars.ts, and each domain
 * declares its types and root fields in its own `*.graphql.ts` file (imported by schema.ts).
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    DateTime: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
});

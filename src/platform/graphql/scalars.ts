import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';

/** Scalars every schema built on the platform can use (the builder registers them by name). */
export const DateTimeScalar = new GraphQLScalarType<Date, string>({
  name: 'DateTime',
  description: 'An instant in time, as an ISO 8601 string in UTC (for example 2026-01-31T14:30:00.000Z).',
  serialize: (value) => {
    const date = value instanceof Date ? value : new Date(value as string | number);
    if (Number.isNaN(date.getTime())) throw new GraphQLError(`DateTime cannot represent ${String(value)}`);
    return date.toISOString();
  },
  parseValue: (value) => parseDate(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING)
      throw new GraphQLError('DateTime must be an ISO 8601 string', { nodes: [ast] });
    return parseDate(ast.value);
  },
});

export const JsonScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast) => literalToJson(ast),
});

function parseDate(value: unknown): Date {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    throw new GraphQLError(`DateTime must be an ISO 8601 string, got ${JSON.stringify(value)}`);
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime()))
    throw new GraphQLError(`DateTime ${JSON.stringify(value)} is not a valid date`);
  return date;
}

function literalToJson(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return ast.values.map(literalToJson);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((f) => [f.name.value, literalToJson(f.value)]));
    default:
      throw new GraphQLError('JSON literals cannot contain variables here', { nodes: [ast] });
  }
}

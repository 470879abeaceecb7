import { z } from 'zod';

/**
 * The JSON Schema dialects Vigil publishes. `draft-2020-12` is the dialect of OpenAPI 3.1 and of
 * the REST tool listing. `draft-7` is for MCP `tools/list`: the SDK's client validates a tool's
 * `structuredContent` against its `outputSchema` with Ajv's default class, which implements
 * draft-07 only, so 2020-12 keywords (`prefixItems` for tuples) would be misread there.
 */
export type JsonSchemaDialect = 'draft-7' | 'draft-2020-12';

/**
 * The JSON Schema of a zod schema, for what it accepts (`input`: defaults make fields optional) or
 * what it produces (`output`). `$schema` is written only for a dialect other than 2020-12, the
 * default of both OpenAPI 3.1 and MCP, so a reader that assumes the default is never misled.
 * Types JSON cannot describe (dates, transforms) become `{}` rather than failing.
 */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: 'input' | 'output',
  dialect: JsonSchemaDialect,
): Record<string, unknown> {
  const written = z.toJSONSchema(schema, { target: dialect, io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  if (dialect !== 'draft-2020-12') return written;
  const { $schema: _default, ...rest } = written;
  return rest;
}

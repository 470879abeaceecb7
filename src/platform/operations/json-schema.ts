import { z } from 'zod';
import { compactJsonSchema, dialectProblems } from './json-schema-compact.ts';
import type { JsonObject } from './json-schema-walk.ts';

/**
 * The JSON Schema (2020-12, the dialect of OpenAPI 3.1 and of MCP) of a zod schema, for what it
 * accepts (`input`: defaults make fields optional) or what it produces (`output`). `$schema` is
 * left out: both read a schema without it as 2020-12. Types JSON cannot describe (dates,
 * transforms) become `{}` rather than failing.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _default, ...written } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return written;
}

const listed = { input: new WeakMap<z.ZodType, JsonObject>(), output: new WeakMap<z.ZodType, JsonObject>() };

/**
 * The schema a tool listing publishes (MCP `tools/list`, `GET /mcp/tools`) for a tool's arguments
 * (`input`) or its value (`output`): `jsonSchemaOf` made compact (json-schema-compact.ts), the
 * same valid values in fewer bytes, and cheaper to compile for the MCP SDK's client, which
 * compiles every output schema when it lists the tools.
 *
 * Only a value's schema shares definitions (`$defs` and `$ref`): clients validate values with
 * them. An argument schema is written without references: models read it, and several clients
 * build forms from it without following `$ref`.
 *
 * The schema must read the same in draft-07, as the SDK's client validates, and in 2020-12, as the
 * MCP specification reads a schema without `$schema`: one that would not (a tuple, say) is refused
 * here, when the app is built. Computed once per zod schema.
 */
export function toolSchemaOf(schema: z.ZodType, io: 'input' | 'output', tool: string): JsonObject {
  const known = listed[io].get(schema);
  if (known) return known;
  const compact = compactJsonSchema(jsonSchemaOf(schema, io) as JsonObject, { definitions: io === 'output' });
  const problems = dialectProblems(compact);
  if (problems.length > 0) {
    throw new Error(
      `tool ${tool}: its ${io} schema reads differently in JSON Schema draft-07 and 2020-12: ${problems.join('; ')}`,
    );
  }
  listed[io].set(schema, compact);
  return compact;
}

import type { z } from 'zod';
import type { ErrorTable } from '../errors.ts';
import { jsonSchemaOf } from '../operations/json-schema.ts';

export type Json = Record<string, unknown>;

export const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * What the operations of an OpenAPI document are added to: the component schemas (converted from
 * zod, their `$defs` hoisted beside them), the paths with operation ids made unique, and error
 * responses that list, per status, the codes answered with it.
 */
export class OpenApiBuilder {
  readonly schemas: Record<string, unknown> = {};
  readonly paths: Record<string, Json> = {};
  readonly #operationIds = new Set<string>();

  constructor(private readonly errors: ErrorTable) {}

  /** Adds a schema to the components; returns a reference to it. */
  addSchema(name: string, schema: z.ZodType, io: 'input' | 'output'): Json {
    this.schemas[name] = hoistDefs(jsonSchemaOf(schema, io), name, this.schemas);
    return ref(name);
  }

  /** Adds an error body whose `code` refers to the ErrorCode schema (which lists every code). */
  addErrorBody(name: string, schema: z.ZodType): Json {
    const body = this.addSchema(name, schema, 'output');
    const error = ((this.schemas[name] as Json).properties as Json | undefined)?.error as Json | undefined;
    const properties = error?.properties as Json | undefined;
    if (properties?.code) {
      properties.code = { ...ref('ErrorCode'), description: (properties.code as Json).description };
    }
    return body;
  }

  /** Adds an operation; its id (given, or made of method and path) gets a number if already taken. */
  readonly operation = (path: string, method: string, op: Json): void => {
    const base = String(op.operationId ?? camel(`${method} ${path}`));
    let id = base;
    for (let n = 2; this.#operationIds.has(id); n++) id = `${base}${n}`;
    this.#operationIds.add(id);
    this.paths[path] = { ...this.paths[path], [method]: { ...op, operationId: id } };
  };

  /** Responses for error codes, grouped by status; each lists its codes. */
  errorResponses(codeList: Iterable<string>, body: unknown): Json {
    const byStatus = new Map<number, string[]>();
    for (const code of new Set(codeList)) {
      const status = this.errors.status(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const out: Json = {};
    for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
      out[String(status)] = {
        description: list.map((c) => `\`${c}\`: ${this.errors.spec(c).description}`).join('\n\n'),
        ...(status === 429 || status === 503
          ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } }
          : {}),
        content: jsonContent(body),
      };
    }
    return out;
  }
}

/** Every error code, with the status REST routes answer it with: a table, and one constant each. */
export function errorCodeSchema(errors: ErrorTable): Json {
  const codes = errors.entries();
  return {
    type: 'string',
    description: [
      'Every error code, with the HTTP status REST routes answer it with.',
      '',
      '| code | status | meaning |',
      '|---|---|---|',
      ...codes.map(
        ([code, spec]) => `| \`${code}\` | ${spec.status} | ${spec.description.replace(/\|/g, '\\|')} |`,
      ),
    ].join('\n'),
    oneOf: codes.map(([code, spec]) => ({
      const: code,
      title: `${code} (${spec.status})`,
      description: spec.description,
      'x-status': spec.status,
    })),
  };
}

/** Moves `$defs` of a converted schema into the components, rewriting their references. */
function hoistDefs(schema: Json, name: string, components: Record<string, unknown>): Json {
  const { $defs, ...rest } = schema as Json & { $defs?: Record<string, unknown> };
  const target = (def: string) => `#/components/schemas/${name}_${def}`;
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (node === null || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        out.$ref =
          value === '#'
            ? `#/components/schemas/${name}`
            : value.replace(/^#\/\$defs\/(.+)$/, (_, d) => target(d));
      } else {
        out[key] = rewrite(value);
      }
    }
    return out;
  };
  for (const [def, value] of Object.entries($defs ?? {})) components[`${name}_${def}`] = rewrite(value);
  return rewrite(rest) as Json;
}

function words(text: string): string[] {
  return text.split(/[^A-Za-z0-9]+/).filter(Boolean);
}

export function pascal(text: string): string {
  return words(text)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

export function camel(text: string): string {
  const p = pascal(text) || 'Root';
  return p[0]!.toLowerCase() + p.slice(1);
}

import type { z } from 'zod';
import { SCOPE_MEANING, SCOPES } from '../access/principal.ts';
import type { ErrorTable } from '../errors.ts';
import type { Method, RouteAccess } from '../http/http-routes.ts';
import { jsonSchemaOf } from '../operations/json-schema.ts';
import type { Tool } from '../operations/tool.ts';
import { addPlatformPaths } from './openapi-platform.ts';
import {
  errorBodySchema,
  NOT_TOOL_CODES,
  TOOL_TRANSPORT_CODES,
  toolCallErrorSchema,
  toolCallRequestSchema,
  toolCallResultSchema,
  toolListSchema,
} from './tool-routes.ts';

/** What the API consists of; the app passes what it serves. */
export interface ApiDescription {
  readonly version: string;
  readonly tools: readonly Tool[];
  readonly errors: ErrorTable;
  /** Plain HTTP routes of the modules (templates with `:name` segments). */
  readonly routes: readonly {
    readonly path: string;
    readonly methods: Method | readonly Method[];
    readonly summary: string;
    /** Who may call it (default `read`). */
    readonly access?: RouteAccess | undefined;
  }[];
  /** WebSocket routes (OpenAPI has no WebSocket operations: they go to `x-websockets`). */
  readonly sockets: readonly { readonly path: string; readonly summary: string }[];
}

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

/** `/ws/prices/:symbols` -> `/ws/prices/{symbols}`; a trailing `*` becomes `{rest}`. */
export function openApiPath(template: string): string {
  return template
    .replace(/\/\*$/, '/{rest}')
    .split('/')
    .map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s))
    .join('/');
}

/**
 * The OpenAPI 3.1 document of the HTTP surface, generated from the same zod schemas that validate
 * the routes (tool inputs, the call envelope) and describe their answers (tool outputs, the error
 * body), and from the error table: every status a route can give is listed with its codes.
 */
export function buildOpenApiDocument(api: ApiDescription): Json {
  const schemas: Record<string, unknown> = {};
  const addSchema = (name: string, schema: z.ZodType, io: 'input' | 'output') => {
    schemas[name] = hoistDefs(jsonSchemaOf(schema, io), name, schemas);
    return ref(name);
  };

  const codes = api.errors.entries();
  schemas.ErrorCode = {
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
  const errorBody = addSchema('ErrorBody', errorBodySchema, 'output') as Json;
  withCodeRef(schemas.ErrorBody as Json);
  const callError = addSchema('ToolCallErrorBody', toolCallErrorSchema, 'output');
  withCodeRef(schemas.ToolCallErrorBody as Json);

  /** Responses for error codes, grouped by status; each lists its codes. */
  const errorResponses = (codeList: Iterable<string>, body: unknown = errorBody): Json => {
    const byStatus = new Map<number, string[]>();
    for (const code of new Set(codeList)) {
      const status = api.errors.status(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const out: Json = {};
    for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
      out[String(status)] = {
        description: list.map((c) => `\`${c}\`: ${api.errors.spec(c).description}`).join('\n\n'),
        ...(status === 429 || status === 503
          ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } }
          : {}),
        content: jsonContent(body),
      };
    }
    return out;
  };
  const toolCodes = codes.map(([code]) => code).filter((code) => !NOT_TOOL_CODES.has(code));

  const paths: Record<string, Json> = {};
  const operationIds = new Set<string>();
  const operation = (path: string, method: string, op: Json) => {
    const base = String(op.operationId ?? camel(`${method} ${path}`));
    let id = base;
    for (let n = 2; operationIds.has(id); n++) id = `${base}${n}`;
    operationIds.add(id);
    paths[path] = { ...paths[path], [method]: { ...op, operationId: id } };
  };

  operation('/mcp/tools', 'get', {
    tags: ['MCP tools'],
    operationId: 'listTools',
    summary: 'List the tools with their input and output schemas',
    responses: {
      200: {
        description: 'The tools.',
        content: jsonContent(addSchema('ToolList', toolListSchema, 'output')),
      },
    },
  });
  operation('/mcp/tools/call', 'post', {
    tags: ['MCP tools'],
    operationId: 'callTool',
    summary: 'Call a tool by name (MCP-style envelope)',
    description:
      'Body `{name, arguments}`. The answer is `{content, structuredContent, isError:false}`; errors have an honest ' +
      'status and carry `isError: true` and `content` besides the error body.',
    requestBody: {
      required: true,
      content: jsonContent(addSchema('ToolCallRequest', toolCallRequestSchema, 'input')),
    },
    responses: {
      200: {
        description: 'The tool answered.',
        content: jsonContent(addSchema('ToolCallResult', toolCallResultSchema, 'output')),
      },
      ...errorResponses([...TOOL_TRANSPORT_CODES.call, ...toolCodes], callError),
    },
  });
  for (const tool of api.tools) {
    const base = pascal(tool.name);
    operation(`/mcp/tools/${tool.name}`, 'post', {
      tags: ['MCP tools'],
      operationId: camel(`call ${tool.name}`),
      summary: tool.definition.title,
      description: `${tool.definition.description}\n\nThe body holds the arguments; the answer is the value itself. Scope: \`${tool.scope}\`.`,
      'x-required-scope': tool.scope,
      requestBody: {
        required: true,
        content: jsonContent(addSchema(`${base}Input`, tool.inputSchema, 'input')),
      },
      responses: {
        200: {
          description: 'The value.',
          content: jsonContent(addSchema(`${base}Output`, tool.definition.outputSchema, 'output')),
        },
        ...errorResponses([...TOOL_TRANSPORT_CODES.byName, ...toolCodes]),
      },
    });
  }

  for (const route of api.routes) {
    const path = openApiPath(route.path);
    const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    for (const method of typeof route.methods === 'string' ? [route.methods] : route.methods) {
      const access = route.access ?? 'read';
      operation(path, method.toLowerCase(), {
        tags: ['Routes'],
        summary: route.summary,
        ...(access === 'public' ? { security: [] } : { 'x-required-scope': access }),
        ...(parameters.length ? { parameters } : {}),
        responses: {
          200: { description: 'OK', content: jsonContent({}) },
          default: { description: 'An error.', content: jsonContent(errorBody) },
        },
      });
    }
  }

  addPlatformPaths(operation, api.tools.length, errorBody);
  const sockets = [...api.sockets].map((s) => ({ path: openApiPath(s.path), summary: s.summary }));

  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Vigil',
      version: api.version,
      summary: 'Market data, monitoring and analysis for people and AI agents.',
      description: describeApi(api, sockets),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'MCP tools', description: 'The data tools over plain HTTP (MCP itself is at `/mcp`).' },
      { name: 'GraphQL', description: 'The source of truth: every tool runs a GraphQL operation.' },
      { name: 'MCP', description: 'Model Context Protocol over Streamable HTTP.' },
      { name: 'Routes', description: 'Plain HTTP routes of the modules.' },
      { name: 'Operations', description: 'Health, readiness, metrics and documentation.' },
    ],
    // Keys are optional unless the server runs with AUTH_REQUIRED (hence the empty alternative).
    security: [{ bearerKey: [] }, { headerKey: [] }, {}],
    paths,
    components: {
      securitySchemes: {
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key as `Authorization: Bearer <key>`.',
        },
        headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key.' },
      },
      schemas,
      headers: {
        RetryAfter: {
          description: 'Seconds until a call is allowed again.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
    },
    'x-websockets': sockets,
  };
}

function describeApi(api: ApiDescription, sockets: readonly { path: string; summary: string }[]): string {
  return [
    'GraphQL at `/graphql` is the source of truth (GraphiQL in a browser); the tool routes below run the same',
    'operations. MCP clients connect to `/mcp` (Streamable HTTP).',
    '',
    '**Errors** are `{"error": {"code", "message", "details"?}, "detail"}` with the status of their code (see the',
    '`ErrorCode` schema); never a 200. Over the rate limit the answer is `429` with a numeric `Retry-After`.',
    '',
    '**Access.** A key goes in `Authorization: Bearer <key>` or `X-API-Key: <key>` (WebSockets: also a `key`',
    'query parameter; graphql-ws: `connectionParams.apiKey`). With `AUTH_REQUIRED` on, every call needs one except',
    '`/healthz`, `/readyz`, `/docs` and `/openapi.json` (and `/metrics` unless `METRICS_REQUIRE_AUTH`). Scopes:',
    ...SCOPES.map((scope) => `\`${scope}\` (${SCOPE_MEANING[scope]});`),
    'each operation names its scope (`x-required-scope`). No key or a bad one: `401 UNAUTHENTICATED` with',
    '`WWW-Authenticate: Bearer`; a key without the scope: `403 FORBIDDEN` naming it.',
    '',
    '**WebSocket routes** (not expressible as OpenAPI operations; also listed under `x-websockets`):',
    '',
    ...sockets.map((s) => `- \`${s.path}\`: ${s.summary}`),
    '',
    `**Tools:** ${api.tools.map((t) => `\`${t.name}\``).join(', ') || 'none'}.`,
  ].join('\n');
}

/** The error body's `code` refers to the ErrorCode schema (which lists every code). */
function withCodeRef(schema: Json): void {
  const error = (schema.properties as Json | undefined)?.error as Json | undefined;
  const properties = error?.properties as Json | undefined;
  if (properties?.code)
    properties.code = { ...ref('ErrorCode'), description: (properties.code as Json).description };
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

function pascal(text: string): string {
  return words(text)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

function camel(text: string): string {
  const p = pascal(text) || 'Root';
  return p[0]!.toLowerCase() + p.slice(1);
}

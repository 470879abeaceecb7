import { SCOPE_MEANING, SCOPES } from '../access/principal.ts';
import type { ErrorTable } from '../errors.ts';
import type { Method, RouteAccess } from '../http/http-routes.ts';
import { scopeLabel, scopeWhenJson } from '../operations/operation-scope.ts';
import type { Tool } from '../operations/tool.ts';
import { camel, errorCodeSchema, type Json, jsonContent, OpenApiBuilder, pascal } from './openapi-builder.ts';
import { addPlatformPaths } from './openapi-platform.ts';
import {
  errorBodySchema,
  NOT_TOOL_CODES,
  TOOL_LIST_ACCESS,
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
  const doc = new OpenApiBuilder(api.errors);
  doc.schemas.ErrorCode = errorCodeSchema(api.errors);
  const errorBody = doc.addErrorBody('ErrorBody', errorBodySchema);
  const callError = doc.addErrorBody('ToolCallErrorBody', toolCallErrorSchema);
  addToolPaths(doc, api, { errorBody, callError });
  addRoutePaths(doc, api.routes, errorBody);
  addPlatformPaths(doc.operation, api.tools.length, errorBody);
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
    paths: doc.paths,
    components: {
      securitySchemes: {
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API key as `Authorization: Bearer <key>`.',
        },
        headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key.' },
      },
      schemas: doc.schemas,
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

/** `/mcp/tools` (the list), `/mcp/tools/call` (the MCP-style envelope) and one route per tool. */
function addToolPaths(
  doc: OpenApiBuilder,
  api: ApiDescription,
  bodies: { readonly errorBody: Json; readonly callError: Json },
): void {
  const toolCodes = api.errors
    .entries()
    .map(([code]) => code)
    .filter((code) => !NOT_TOOL_CODES.has(code));
  doc.operation('/mcp/tools', 'get', {
    tags: ['MCP tools'],
    operationId: 'listTools',
    summary: 'List the tools with their input and output schemas',
    description: `Scope: \`${TOOL_LIST_ACCESS}\`. Each tool's \`_meta\` gives the scope its calls need.`,
    'x-required-scope': TOOL_LIST_ACCESS,
    responses: {
      200: {
        description: 'The tools.',
        content: jsonContent(doc.addSchema('ToolList', toolListSchema, 'output')),
      },
    },
  });
  doc.operation('/mcp/tools/call', 'post', {
    tags: ['MCP tools'],
    operationId: 'callTool',
    summary: 'Call a tool by name (MCP-style envelope)',
    description:
      'Body `{name, arguments}`. The answer is `{content, structuredContent, isError:false}`; errors have an honest ' +
      "status and carry `isError: true` and `content` besides the error body. Scope: the tool's (see its route).",
    requestBody: {
      required: true,
      content: jsonContent(doc.addSchema('ToolCallRequest', toolCallRequestSchema, 'input')),
    },
    responses: {
      200: {
        description: 'The tool answered.',
        content: jsonContent(doc.addSchema('ToolCallResult', toolCallResultSchema, 'output')),
      },
      ...doc.errorResponses([...TOOL_TRANSPORT_CODES.call, ...toolCodes], bodies.callError),
    },
  });
  for (const tool of api.tools) {
    const errors = doc.errorResponses([...TOOL_TRANSPORT_CODES.byName, ...toolCodes], bodies.errorBody);
    doc.operation(`/mcp/tools/${tool.name}`, 'post', toolOperation(doc, tool, errors));
  }
}

/** `POST /mcp/tools/{name}`: the arguments are the body, the value is the answer. */
function toolOperation(doc: OpenApiBuilder, tool: Tool, errors: Json): Json {
  const base = pascal(tool.name);
  return {
    tags: ['MCP tools'],
    operationId: camel(`call ${tool.name}`),
    summary: tool.definition.title,
    description: `${tool.definition.description}\n\nThe body holds the arguments; the answer is the value itself. Scope: ${scopeLabel(tool.scopes)}.`,
    'x-required-scope': tool.scopes.base,
    ...(tool.scopes.when.length ? { 'x-scope-when': scopeWhenJson(tool.scopes) } : {}),
    requestBody: {
      required: true,
      content: jsonContent(doc.addSchema(`${base}Input`, tool.inputSchema, 'input')),
    },
    responses: {
      200: {
        description: 'The value.',
        content: jsonContent(doc.addSchema(`${base}Output`, tool.definition.outputSchema, 'output')),
      },
      ...errors,
    },
  };
}

/** The modules' plain HTTP routes: one operation per method, path parameters as strings. */
function addRoutePaths(doc: OpenApiBuilder, routes: ApiDescription['routes'], errorBody: Json): void {
  for (const route of routes) {
    const path = openApiPath(route.path);
    const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    for (const method of typeof route.methods === 'string' ? [route.methods] : route.methods) {
      const access = route.access ?? 'read';
      doc.operation(path, method.toLowerCase(), {
        tags: ['Routes'],
        summary: route.summary,
        ...(access === 'public'
          ? { security: [] }
          : access === 'caller'
            ? { description: 'Any accepted caller; the operation it runs checks its own scope.' }
            : { description: `Scope: \`${access}\`.`, 'x-required-scope': access }),
        ...(parameters.length ? { parameters } : {}),
        responses: {
          200: { description: 'OK', content: jsonContent({}) },
          default: { description: 'An error.', content: jsonContent(errorBody) },
        },
      });
    }
  }
}

/**
 * The document's introduction, in Markdown: `/docs` shows it (Swagger UI renders CommonMark), so
 * the tools' scopes and the descriptions' code spans, lists and links read as they are written.
 */
function describeApi(api: ApiDescription, sockets: readonly { path: string; summary: string }[]): string {
  return [
    'GraphQL at [`/graphql`](/graphql) is the source of truth (GraphiQL in a browser); the tool routes below run the',
    'same operations. MCP clients connect to `/mcp` (Streamable HTTP).',
    '',
    '**Errors** are `{"error": {"code", "message", "details"?}, "detail"}` with the status of their code (see the',
    '`ErrorCode` schema); never a 200. Over the rate limit the answer is `429` with a numeric `Retry-After`.',
    '',
    '**Access.** A key goes in `Authorization: Bearer <key>` or `X-API-Key: <key>` (the *Authorize* button; WebSockets:',
    'also a `key` query parameter; graphql-ws: `connectionParams.apiKey`). With `AUTH_REQUIRED` on, every call needs',
    'one except `/healthz`, `/readyz`, `/docs` and `/openapi.json` (and `/metrics` unless `METRICS_REQUIRE_AUTH`).',
    'Scopes:',
    '',
    ...SCOPES.map((scope) => `- \`${scope}\`: ${SCOPE_MEANING[scope]}`),
    '',
    'Each operation names the scope it needs (`x-required-scope`, and `x-scope-when` for arguments that need',
    'another); GraphQL fields say so in their descriptions. No key or a bad one: `401 UNAUTHENTICATED` with',
    '`WWW-Authenticate: Bearer`; a key without the scope: `403 FORBIDDEN` naming it.',
    '',
    '**MCP tools**, also over plain HTTP at `GET /mcp/tools`, `POST /mcp/tools/call` and `POST /mcp/tools/{name}`,',
    'with the scope each call needs:',
    '',
    ...api.tools.map((t) => `- \`${t.name}\` (${scopeLabel(t.scopes)}): ${t.definition.title}`),
    ...(api.tools.length ? [] : ['- none']),
    '',
    '**WebSocket routes** (not expressible as OpenAPI operations; also listed under `x-websockets`):',
    '',
    ...sockets.map((s) => `- \`${s.path}\`: ${s.summary}`),
  ].join('\n');
}

import { z } from 'zod';
import { jsonSchemaOf } from '../operations/json-schema.ts';
import { type Json, jsonContent } from './openapi-builder.ts';

export type AddOperation = (path: string, method: string, op: Json) => void;

const graphqlRequestSchema = z
  .object({
    query: z.string().describe('The GraphQL document.'),
    operationName: z.string().optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    extensions: z.record(z.string(), z.unknown()).optional(),
  })
  .describe('A GraphQL request.');

const graphqlResponseSchema = z
  .object({
    data: z.record(z.string(), z.unknown()).nullable().optional(),
    errors: z
      .array(
        z.object({
          message: z.string(),
          path: z.array(z.union([z.string(), z.number()])).optional(),
          extensions: z.record(z.string(), z.unknown()).optional().describe('`code` and its details.'),
        }),
      )
      .optional(),
  })
  .describe('A GraphQL response; errors carry `extensions.code`.');

/**
 * The paths every Vigil app has whatever its modules: GraphQL, MCP over Streamable HTTP, health,
 * readiness, metrics and the documentation itself.
 */
export function addPlatformPaths(operation: AddOperation, toolCount: number, errorBody: unknown): void {
  addGraphqlPaths(operation);
  addMcpPaths(operation, toolCount);
  addOperationalPaths(operation, errorBody);
}

function addGraphqlPaths(operation: AddOperation): void {
  const gqlResponse = jsonContent(jsonSchemaOf(graphqlResponseSchema, 'output'));
  const gqlResponses = {
    200: { description: 'The result (errors of the operation are in `errors`).', content: gqlResponse },
    400: { description: 'The document does not parse or is not valid.', content: gqlResponse },
    429: {
      description: 'Over the rate limit (`extensions.code = RATE_LIMITED`).',
      headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
      content: gqlResponse,
    },
  };
  const graphqlDescription =
    'GraphQL over HTTP. In a browser, GET shows GraphiQL. Subscriptions: graphql-ws on this path (WebSocket, ' +
    'subprotocol `graphql-transport-ws`) or Server-Sent Events (`Accept: text/event-stream`).';
  operation('/graphql', 'get', {
    tags: ['GraphQL'],
    operationId: 'graphqlGet',
    summary: 'Run a query (or open GraphiQL in a browser)',
    description: graphqlDescription,
    parameters: [
      { name: 'query', in: 'query', required: false, schema: { type: 'string' } },
      { name: 'operationName', in: 'query', required: false, schema: { type: 'string' } },
      {
        name: 'variables',
        in: 'query',
        required: false,
        description: 'JSON object',
        schema: { type: 'string' },
      },
    ],
    responses: gqlResponses,
  });
  operation('/graphql', 'post', {
    tags: ['GraphQL'],
    operationId: 'graphqlPost',
    summary: 'Run a query or mutation',
    description: graphqlDescription,
    requestBody: {
      required: true,
      content: jsonContent(jsonSchemaOf(graphqlRequestSchema, 'input')),
    },
    responses: gqlResponses,
  });
}

/** `/mcp`: a session's stream (GET), its end (DELETE) and its JSON-RPC messages (POST). */
function addMcpPaths(operation: AddOperation, toolCount: number): void {
  const session = {
    name: 'Mcp-Session-Id',
    in: 'header',
    required: true,
    description: 'The session the answer to `initialize` named.',
    schema: { type: 'string' },
  };
  const rpcRefusal = {
    description: 'Refused (JSON-RPC error): 400 without a session, 404 for an unknown one.',
  };
  operation('/mcp', 'get', {
    tags: ['MCP'],
    operationId: 'mcpStream',
    summary: "A session's stream of server messages",
    description: 'Server-Sent Events with notifications of the session (e.g. updated resources).',
    parameters: [session],
    responses: {
      200: { description: 'An SSE stream.', content: { 'text/event-stream': {} } },
      default: rpcRefusal,
    },
  });
  operation('/mcp', 'delete', {
    tags: ['MCP'],
    operationId: 'mcpEndSession',
    summary: 'End a session',
    parameters: [session],
    responses: { 200: { description: 'The session is closed.' }, default: rpcRefusal },
  });
  operation('/mcp', 'post', {
    tags: ['MCP'],
    operationId: 'mcpPost',
    summary: 'MCP over Streamable HTTP',
    description:
      'JSON-RPC 2.0 messages of the Model Context Protocol (`initialize`, `tools/list`, `tools/call`, ...). The ' +
      `same ${toolCount} tools as the routes under /mcp/tools. Answers are JSON or a Server-Sent Events ` +
      'stream, as the client accepts; tool failures are results with `isError: true`.',
    requestBody: {
      required: true,
      content: jsonContent({
        type: 'object',
        properties: {
          jsonrpc: { const: '2.0' },
          id: { type: ['string', 'integer'] },
          method: { type: 'string' },
          params: {},
        },
        required: ['jsonrpc'],
      }),
    },
    responses: {
      200: {
        description: 'A JSON-RPC answer (JSON or an SSE stream).',
        content: { 'application/json': {}, 'text/event-stream': {} },
      },
      202: { description: 'A notification or answer was accepted.' },
      default: {
        description: 'The request was refused (JSON-RPC error).',
        content: { 'application/json': {} },
      },
    },
  });
}

/** Health, readiness, metrics, this document, the documentation page and the index. */
function addOperationalPaths(operation: AddOperation, errorBody: unknown): void {
  // Health, readiness, the index and the documentation need no key (`security: []`); /metrics
  // follows METRICS_REQUIRE_AUTH, so it keeps the document's default.
  const simple = (path: string, id: string, summary: string, content: Json, extra: Json = {}) =>
    operation(path, 'get', {
      tags: ['Operations'],
      operationId: id,
      summary,
      ...(path === '/metrics' ? {} : { security: [] }),
      responses: { 200: { description: 'OK', content }, ...extra },
    });
  const health = jsonSchemaOf(
    z.object({ status: z.literal('ok'), version: z.string(), uptime_seconds: z.number() }),
    'output',
  );
  const readiness = jsonSchemaOf(
    z.object({
      status: z.enum(['ready', 'not_ready']),
      state: z.string(),
      checks: z.record(
        z.string(),
        z.object({ ok: z.boolean(), latency_ms: z.number(), error: z.string().optional() }),
      ),
    }),
    'output',
  );
  simple('/healthz', 'health', 'The process answers', jsonContent(health));
  simple('/readyz', 'readiness', 'The database and the job engine answer', jsonContent(readiness), {
    503: {
      description: 'Not ready: a check failed or the app is not running.',
      content: jsonContent(readiness),
    },
  });
  simple('/metrics', 'metrics', 'Prometheus metrics', { 'text/plain': { schema: { type: 'string' } } });
  simple('/openapi.json', 'openapi', 'This document', { 'application/json': { schema: { type: 'object' } } });
  simple('/docs', 'docs', 'Interactive API documentation', { 'text/html': { schema: { type: 'string' } } });
  simple('/', 'index', 'An index of the endpoints', jsonContent({ type: 'object' }), {
    default: { description: 'An error.', content: jsonContent(errorBody) },
  });
}

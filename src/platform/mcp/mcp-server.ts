import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  type Tool as ToolListing,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AppError, type ErrorTable, isAppError } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { toolSchemaOf } from '../operations/json-schema.ts';
import type { OperationRunner } from '../operations/runner.ts';
import type { Caller, Tool, ToolFailure } from '../operations/tool.ts';
import {
  type McpResourceTemplate,
  type ResourceCall,
  ResourceMatcher,
  ResourceSubscriptions,
  SubscriptionLimitError,
} from './mcp-resources.ts';

/** JSON-RPC code the MCP specification gives "resource not found". */
export const RESOURCE_NOT_FOUND = -32002;

/**
 * JSON-RPC server-error code for "not now": a rate limit or an overloaded server (`data.code` says
 * which, `data.details.retryAfterSeconds` when to try again).
 */
export const TRY_LATER = -32000;

/** Longest part of a client-sent URI that goes into logs and error data. */
const URI_SHOWN = 200;

/** Resource subscriptions one session may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 50;

export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Who calls: fixed for a transport that knows its caller (stdio), or read from each request (HTTP). */
export type CallerSource = Caller | ((extra: McpRequestExtra) => Caller);

export interface McpServerOptions {
  readonly info: { readonly name: string; readonly version: string };
  readonly tools: readonly Tool[];
  readonly resources: readonly McpResourceTemplate[];
  /** Runs the GraphQL operations resources read with, as the caller of each request. */
  readonly runner: Pick<OperationRunner, 'run'>;
  readonly errors: ErrorTable;
  readonly logger: Logger;
  readonly maxSubscriptionsPerSession?: number;
  /** Resource subscriptions open over every session of this server (kept by the factory). */
  readonly subscriptions?: { count: number };
}

/**
 * A JSON-RPC error whose message goes on the wire as written (McpError prefixes "MCP error <code>:"
 * to its message, which the client prefixes again).
 */
export class McpProtocolError extends McpError {
  constructor(code: number, message: string, data?: unknown) {
    super(code, message, data);
    this.message = message;
  }
}

/** What every session of one server serves, prepared once (the tool listings on first use). */
interface Served {
  readonly options: McpServerOptions;
  readonly byName: ReadonlyMap<string, Tool>;
  readonly listings: () => ToolListing[];
  readonly matcher: ResourceMatcher;
  readonly templates: ListResourceTemplatesResult['resourceTemplates'];
  readonly maxSubscriptions: number;
}

function prepare(options: McpServerOptions): Served {
  let listings: ToolListing[] | undefined;
  return {
    options,
    byName: new Map(options.tools.map((tool) => [tool.name, tool])),
    // Computed when first asked: a server that nobody lists the tools of never builds them.
    listings: () => {
      listings ??= options.tools.map(describeTool);
      return listings;
    },
    matcher: new ResourceMatcher(options.resources),
    templates: options.resources.map((t) => ({
      uriTemplate: t.uriTemplate,
      name: t.name,
      title: t.title,
      description: t.description,
      mimeType: t.mimeType,
    })),
    maxSubscriptions: options.maxSubscriptionsPerSession ?? MAX_SUBSCRIPTIONS_PER_SESSION,
  };
}

/**
 * Builds, once, what every MCP session serves (tool listings with their JSON schemas, the resource
 * matcher) and returns the factory of per-session servers.
 *
 * The low-level `Server` is used rather than `McpServer`: the SDK's `McpServer` turns unknown tools
 * and arguments that fail the input schema into `isError` results, where Vigil answers them with
 * JSON-RPC errors (-32602), as the error table says (`mcp: 'protocol_error'`). Tool failures whose
 * code is a `tool_error` (the default) are results with `isError: true`, so a model can read the
 * message and correct itself.
 */
export function createMcpServerFactory(options: McpServerOptions): (caller: CallerSource) => Server {
  const served = Promise.resolve(prepare(options));
  return (callerSource) => sessionServer(options.info, served, Promise.resolve(callerSource), options.logger);
}

/** What a pending server waits for: the app's tools and resources, and who calls. */
export interface PendingMcpServer {
  readonly options: McpServerOptions;
  readonly caller: Caller;
}

/**
 * One session whose tools, resources and caller arrive later. The stdio entry answers `initialize`
 * at once with it (a desktop client gives a server a few seconds to connect) while the app starts;
 * every other request waits for the start (its progress goes to stderr), and fails as the start
 * fails.
 */
export function createPendingMcpServer(
  info: McpServerOptions['info'],
  pending: Promise<PendingMcpServer>,
  logger: Logger,
): Server {
  const served = pending.then(({ options }) => prepare(options));
  const caller = pending.then(({ caller }) => caller);
  // Waiting requests see the failure; nobody else needs to hear of it here.
  served.catch(() => {});
  return sessionServer(info, served, caller, logger);
}

function sessionServer(
  info: McpServerOptions['info'],
  pending: Promise<Served>,
  callerSource: Promise<CallerSource>,
  logger: Logger,
): Server {
  const server = new Server(
    { name: info.name, version: info.version },
    { capabilities: { tools: {}, resources: { subscribe: true } } },
  );
  const callerOf = async (extra: McpRequestExtra): Promise<Caller> => {
    const source = await callerSource;
    return typeof source === 'function' ? source(extra) : source;
  };
  let subscriptions: ResourceSubscriptions | undefined;
  const subscriptionsOf = (s: Served) => {
    subscriptions ??= new ResourceSubscriptions(s.maxSubscriptions, s.options.subscriptions);
    return subscriptions;
  };
  server.onclose = () => subscriptions?.close();
  server.onerror = (error) => logger.debug({ err: error }, 'mcp transport error');

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await pending).listings() }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { byName, options } = await pending;
    const { errors } = options;
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (!tool) {
      throw new McpProtocolError(
        ErrorCode.InvalidParams,
        `unknown tool ${JSON.stringify(name.slice(0, 64))}; tools: ${[...byName.keys()].join(', ')}`,
        { code: 'UNKNOWN_TOOL' },
      );
    }
    let outcome: Awaited<ReturnType<Tool['call']>>;
    try {
      outcome = await tool.call(args ?? {}, await callerOf(extra));
    } catch (error) {
      options.logger.error({ err: error, tool: name }, 'mcp tool call failed unexpectedly');
      return toolError({ code: 'INTERNAL', message: 'internal error' });
    }
    if (!outcome.ok) {
      const failure = outcome.error;
      if (errors.spec(failure.code).mcp === 'protocol_error') {
        throw new McpProtocolError(
          ErrorCode.InvalidParams,
          `invalid arguments for ${name}: ${failure.message}`,
          {
            code: failure.code,
            ...(failure.details ? { details: failure.details } : {}),
          },
        );
      }
      return toolError(failure);
    }
    // What goes on the wire is JSON: parsing the text back makes structuredContent exactly that.
    const text = JSON.stringify(outcome.value ?? null);
    const structured: unknown = JSON.parse(text);
    return {
      content: [{ type: 'text', text }],
      ...(isPlainObject(structured) ? { structuredContent: structured } : {}),
    };
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: (await pending).templates,
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    const { matcher, options } = await pending;
    const { uri } = request.params;
    const resource = matchOrThrow(matcher, uri);
    try {
      const value = await resource.template.read(
        resource.params,
        runAs(options.runner, await callerOf(extra)),
      );
      return { contents: [{ uri, mimeType: resource.template.mimeType, text: JSON.stringify(value) }] };
    } catch (error) {
      throw resourceError(error, uri, options.errors, options.logger);
    }
  });

  server.setRequestHandler(SubscribeRequestSchema, async (request, extra) => {
    const served = await pending;
    const { matcher, options } = served;
    const { uri } = request.params;
    const resource = matchOrThrow(matcher, uri);
    try {
      await subscriptionsOf(served).add(
        uri,
        resource,
        (changed) => {
          server.sendResourceUpdated({ uri: changed }).catch((error: unknown) => {
            options.logger.debug(
              { err: error, uri: changed.slice(0, URI_SHOWN) },
              'mcp resource notification not delivered',
            );
          });
        },
        runAs(options.runner, await callerOf(extra)),
      );
    } catch (error) {
      if (error instanceof SubscriptionLimitError) {
        throw new McpProtocolError(ErrorCode.InvalidRequest, error.message, {
          code: 'SUBSCRIPTION_LIMIT',
        });
      }
      throw resourceError(error, uri, options.errors, options.logger);
    }
    return {};
  });

  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscriptions?.remove(request.params.uri);
    return {};
  });

  return server;
}

/**
 * A tool as `tools/list` lists it. The schemas are the compact ones of `toolSchemaOf`: the SDK's
 * client compiles every output schema when it lists the tools, so their size is the client's wait.
 */
function describeTool(tool: Tool): ToolListing {
  const { title, description, annotations, outputSchema } = tool.definition;
  const output = toolSchemaOf(outputSchema, 'output', tool.name);
  return {
    name: tool.name,
    title,
    description,
    inputSchema: toolSchemaOf(tool.inputSchema, 'input', tool.name) as ToolListing['inputSchema'],
    // MCP output schemas describe an object (structuredContent); other shapes travel as text only.
    ...(output.type === 'object' ? { outputSchema: output as ToolListing['outputSchema'] } : {}),
    ...(annotations ? { annotations: { title, ...annotations } } : {}),
  };
}

function toolError(failure: ToolFailure): CallToolResult {
  const details = failure.details ? `\n${JSON.stringify({ details: failure.details })}` : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `${failure.code}: ${failure.message}${details}` }],
  };
}

/** A ResourceCall that runs as `caller`; errors become AppErrors with the operation's code. */
function runAs(runner: Pick<OperationRunner, 'run'>, caller: Caller): ResourceCall {
  return async <Data>(document: string, variables?: Readonly<Record<string, unknown>>) => {
    const result = await runner.run({ document, variables, request: caller.request, viewer: caller.viewer });
    const first = result.errors?.[0];
    if (first || !result.data) {
      const { code, http: _http, ...details } = (first?.extensions ?? {}) as Record<string, unknown>;
      throw new AppError(
        typeof code === 'string' ? code : 'INTERNAL',
        first?.message ?? 'the operation returned no data',
        Object.keys(details).length ? details : undefined,
      );
    }
    return result.data as Data;
  };
}

function matchOrThrow(matcher: ResourceMatcher, uri: string) {
  const resource = matcher.match(uri);
  if (!resource) {
    const known = matcher.templates.map((t) => t.uriTemplate).join(', ') || 'none';
    throw new McpProtocolError(
      RESOURCE_NOT_FOUND,
      `no resource template matches ${JSON.stringify(uri.slice(0, URI_SHOWN))} (templates: ${known}; ` +
        "percent-encode '/' inside a value as %2F)",
      { uri: uri.slice(0, URI_SHOWN) },
    );
  }
  return resource;
}

/** Domain errors keep their message and code; anything else is logged and answered without internals. */
function resourceError(error: unknown, uri: string, errors: ErrorTable, logger: Logger): McpError {
  if (error instanceof McpError) return error;
  if (isAppError(error)) {
    const { status } = errors.spec(error.code);
    const code =
      status === 404
        ? RESOURCE_NOT_FOUND
        : status === 429 || status === 503
          ? TRY_LATER
          : status >= 400 && status < 500
            ? ErrorCode.InvalidParams
            : ErrorCode.InternalError;
    return new McpProtocolError(code, error.message, {
      code: error.code,
      uri: uri.slice(0, URI_SHOWN),
      ...(error.details ? { details: error.details } : {}),
    });
  }
  logger.error({ err: error, uri: uri.slice(0, URI_SHOWN) }, 'mcp resource failed unexpectedly');
  return new McpProtocolError(ErrorCode.InternalError, 'internal error', { uri: uri.slice(0, URI_SHOWN) });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

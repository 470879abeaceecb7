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
  ReadResourceRequestSchema,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  type Tool as ToolListing,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ErrorTable } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { toolSchemaOf } from '../operations/json-schema.ts';
import type { OperationRunner } from '../operations/runner.ts';
import type { Caller, Tool } from '../operations/tool.ts';
import {
  isPlainObject,
  McpProtocolError,
  matchOrThrow,
  resourceError,
  runAs,
  toolError,
  URI_SHOWN,
} from './mcp-errors.ts';
import {
  type McpResourceTemplate,
  ResourceMatcher,
  ResourceSubscriptions,
  SubscriptionLimitError,
} from './mcp-resources.ts';

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

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  type ListResourceTemplatesResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type ServerNotification,
  type ServerRequest,
  SubscribeRequestSchema,
  type Tool as ToolListing,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { ErrorTable } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { OperationRunner } from '../operations/runner.ts';
import type { Caller, Tool, ToolFailure } from '../operations/tool.ts';
import {
  isPlainObject,
  McpProtocolError,
  matchOrThrow,
  resourceError,
  runAs,
  toolError,
  URI_SHOWN,
} from './mcp-errors.ts';
import type { PromptCatalog } from './mcp-prompts.ts';
import { resourcePage } from './mcp-resource-list.ts';
import { type ResourceMatcher, ResourceSubscriptions, SubscriptionLimitError } from './mcp-resources.ts';

export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Who calls: fixed for a transport that knows its caller (stdio), or read from each request (HTTP). */
export type CallerSource = Caller | ((extra: McpRequestExtra) => Caller);

/** What every session of one server serves, prepared once (mcp-server.ts). */
export interface Served {
  readonly byName: ReadonlyMap<string, Tool>;
  /** The tool listings, built when first asked. */
  readonly listings: () => ToolListing[];
  readonly matcher: ResourceMatcher;
  readonly prompts: PromptCatalog;
  readonly templates: ListResourceTemplatesResult['resourceTemplates'];
  readonly maxSubscriptions: number;
  /** Resource subscriptions open over every session of the server. */
  readonly subscriptionTally: { count: number } | undefined;
  /** Runs the GraphQL operations resources read with, as the caller of each request. */
  readonly runner: Pick<OperationRunner, 'run'>;
  readonly errors: ErrorTable;
  readonly logger: Logger;
}

/**
 * The MCP server of one session: tools, prompts, resources and their templates, reads and
 * subscriptions, answered from what `served` holds once it resolves, each as the caller
 * `callerSource` names. `logger` hears of transport errors.
 */
export function sessionServer(
  info: { readonly name: string; readonly version: string },
  served: Promise<Served>,
  callerSource: Promise<CallerSource>,
  logger: Logger,
): Server {
  const server = new Server(
    { name: info.name, version: info.version },
    { capabilities: { tools: {}, resources: { subscribe: true }, prompts: {} } },
  );
  const session = new SessionRequests(server, served, callerSource);
  server.onclose = () => session.close();
  server.onerror = (error) => logger.debug({ err: error }, 'mcp transport error');
  server.setRequestHandler(ListToolsRequestSchema, () => session.listTools());
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    session.callTool(request.params, extra),
  );
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: (await served).prompts.list(),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) =>
    (await served).prompts.get(request.params.name, request.params.arguments),
  );
  server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
    resourcePage((await served).matcher.templates, request.params?.cursor),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => session.listTemplates());
  server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
    session.read(request.params.uri, extra),
  );
  server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
    session.subscribe(request.params.uri, extra),
  );
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => session.unsubscribe(request.params.uri));
  return server;
}

/** The answers of one session; its resource subscriptions are its own and end with it. */
class SessionRequests {
  #subscriptions: ResourceSubscriptions | undefined;

  constructor(
    private readonly server: Server,
    private readonly served: Promise<Served>,
    private readonly callerSource: Promise<CallerSource>,
  ) {}

  async listTools(): Promise<ListToolsResult> {
    return { tools: (await this.served).listings() };
  }

  async listTemplates(): Promise<ListResourceTemplatesResult> {
    return { resourceTemplates: (await this.served).templates };
  }

  /**
   * An unknown tool, and arguments its code says are malformed, are JSON-RPC errors; other failures
   * are results with `isError: true`, so a model can read the message and correct itself.
   */
  async callTool(
    params: { readonly name: string; readonly arguments?: Record<string, unknown> | undefined },
    extra: McpRequestExtra,
  ): Promise<CallToolResult> {
    const { byName, errors, logger } = await this.served;
    const { name, arguments: args } = params;
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
      outcome = await tool.call(args ?? {}, await this.#callerOf(extra));
    } catch (error) {
      logger.error({ err: error, tool: name }, 'mcp tool call failed unexpectedly');
      return toolError({ code: 'INTERNAL', message: 'internal error' });
    }
    return outcome.ok ? toolResult(outcome.value) : toolFailure(name, outcome.error, errors);
  }

  async read(uri: string, extra: McpRequestExtra): Promise<ReadResourceResult> {
    const { matcher, runner, errors, logger } = await this.served;
    const resource = matchOrThrow(matcher, uri);
    try {
      const value = await resource.template.read(resource.params, runAs(runner, await this.#callerOf(extra)));
      return { contents: [{ uri, mimeType: resource.template.mimeType, text: JSON.stringify(value) }] };
    } catch (error) {
      throw resourceError(error, uri, errors, logger);
    }
  }

  async subscribe(uri: string, extra: McpRequestExtra): Promise<Record<string, never>> {
    const served = await this.served;
    const { matcher, runner, errors, logger } = served;
    const resource = matchOrThrow(matcher, uri);
    try {
      await this.#subscriptionsOf(served).add(
        uri,
        resource,
        (changed) => this.#notifyUpdated(changed, logger),
        runAs(runner, await this.#callerOf(extra)),
      );
    } catch (error) {
      if (error instanceof SubscriptionLimitError) {
        throw new McpProtocolError(ErrorCode.InvalidRequest, error.message, {
          code: 'SUBSCRIPTION_LIMIT',
        });
      }
      throw resourceError(error, uri, errors, logger);
    }
    return {};
  }

  unsubscribe(uri: string): Record<string, never> {
    this.#subscriptions?.remove(uri);
    return {};
  }

  close(): void {
    this.#subscriptions?.close();
  }

  async #callerOf(extra: McpRequestExtra): Promise<Caller> {
    const source = await this.callerSource;
    return typeof source === 'function' ? source(extra) : source;
  }

  #subscriptionsOf(served: Served): ResourceSubscriptions {
    this.#subscriptions ??= new ResourceSubscriptions(served.maxSubscriptions, served.subscriptionTally);
    return this.#subscriptions;
  }

  #notifyUpdated(uri: string, logger: Logger): void {
    this.server.sendResourceUpdated({ uri }).catch((error: unknown) => {
      logger.debug({ err: error, uri: uri.slice(0, URI_SHOWN) }, 'mcp resource notification not delivered');
    });
  }
}

/** What goes on the wire is JSON: parsing the text back makes structuredContent exactly that. */
function toolResult(value: unknown): CallToolResult {
  const text = JSON.stringify(value ?? null);
  const structured: unknown = JSON.parse(text);
  return {
    content: [{ type: 'text', text }],
    ...(isPlainObject(structured) ? { structuredContent: structured } : {}),
  };
}

/** A failure whose code the error table answers as a protocol error is thrown; others are results. */
function toolFailure(name: string, failure: ToolFailure, errors: ErrorTable): CallToolResult {
  if (errors.spec(failure.code).mcp === 'protocol_error') {
    throw new McpProtocolError(ErrorCode.InvalidParams, `invalid arguments for ${name}: ${failure.message}`, {
      code: failure.code,
      ...(failure.details ? { details: failure.details } : {}),
    });
  }
  return toolError(failure);
}

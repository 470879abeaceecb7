import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Tool as ToolListing } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorTable } from '../errors.ts';
import type { Logger } from '../observability/logger.ts';
import { toolSchemaOf } from '../operations/json-schema.ts';
import { scopeMeta } from '../operations/operation-scope.ts';
import type { OperationRunner } from '../operations/runner.ts';
import type { Caller, Tool } from '../operations/tool.ts';
import type { McpPrompt } from './mcp-prompt.ts';
import { PromptCatalog } from './mcp-prompts.ts';
import { type McpResourceTemplate, ResourceMatcher } from './mcp-resources.ts';
import { type CallerSource, type Served, sessionServer } from './mcp-session-server.ts';

export type { CallerSource, McpRequestExtra } from './mcp-session-server.ts';

/** Resource subscriptions one session may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 50;

export interface McpServerOptions {
  readonly info: { readonly name: string; readonly version: string };
  readonly tools: readonly Tool[];
  readonly resources: readonly McpResourceTemplate[];
  /** Prompts for common jobs, each naming served tools (see McpPrompt). */
  readonly prompts?: readonly McpPrompt[];
  /** Runs the GraphQL operations resources read with, as the caller of each request. */
  readonly runner: Pick<OperationRunner, 'run'>;
  readonly errors: ErrorTable;
  readonly logger: Logger;
  readonly maxSubscriptionsPerSession?: number;
  /** Resource subscriptions open over every session of this server (kept by the factory). */
  readonly subscriptions?: { count: number };
}

/** What every session of one server serves, prepared once (the tool listings on first use). */
function prepare(options: McpServerOptions): Served {
  let listings: ToolListing[] | undefined;
  return {
    byName: new Map(options.tools.map((tool) => [tool.name, tool])),
    // Computed when first asked: a server that nobody lists the tools of never builds them.
    listings: () => {
      listings ??= options.tools.map(describeTool);
      return listings;
    },
    matcher: new ResourceMatcher(options.resources),
    prompts: new PromptCatalog(options.prompts ?? [], new Set(options.tools.map((tool) => tool.name))),
    templates: options.resources.map((t) => ({
      uriTemplate: t.uriTemplate,
      name: t.name,
      title: t.title,
      description: t.description,
      mimeType: t.mimeType,
    })),
    maxSubscriptions: options.maxSubscriptionsPerSession ?? MAX_SUBSCRIPTIONS_PER_SESSION,
    subscriptionTally: options.subscriptions,
    runner: options.runner,
    errors: options.errors,
    logger: options.logger,
  };
}

/**
 * Builds, once, what every MCP session serves (tool listings with their JSON schemas, the resource
 * matcher, the prompts) and returns the factory of per-session servers.
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

/** What a pending server waits for: the app's tools, resources and prompts, and who calls. */
export interface PendingMcpServer {
  readonly options: McpServerOptions;
  readonly caller: Caller;
}

/**
 * One session whose tools, resources, prompts and caller arrive later. The stdio entry answers
 * `initialize` at once with it (a desktop client gives a server a few seconds to connect) while the
 * app starts; every other request waits for the start (its progress goes to stderr), and fails as
 * the start fails.
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
    // The scope its calls need, as /docs and /openapi.json give it (a client can tell what its key may call).
    _meta: scopeMeta(tool.scopes),
  };
}

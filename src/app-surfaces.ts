import {
  ConsoleAssets,
  consolePage,
  registerConsoleAssetRoute,
  wantsPage,
} from './console/console.routes.ts';
import type { AppDeps } from './deps.ts';
import { expectedTables, schemaCheck } from './platform/db/readiness.ts';
import type { ErrorTable } from './platform/errors.ts';
import { GRAPHQL_PATH } from './platform/graphql/yoga.ts';
import type { HttpRoutes } from './platform/http/http-routes.ts';
import { registerOperationalRoutes } from './platform/http/operational.routes.ts';
import type { AppState } from './platform/lifecycle.ts';
import { createLazyMcpHttpEndpoint, MCP_PATH } from './platform/mcp/mcp-endpoint.ts';
import { isLoopbackAddress } from './platform/mcp/mcp-guard.ts';
import { checkPrompts } from './platform/mcp/mcp-prompt.ts';
import type { McpServerOptions } from './platform/mcp/mcp-server.ts';
import { type ModuleDefinition, promptsOf, resourcesOf, tablesOf } from './platform/module.ts';
import { scopeWhenJson } from './platform/operations/operation-scope.ts';
import type { OperationRunner } from './platform/operations/runner.ts';
import type { Tool } from './platform/operations/tool.ts';
import { registerDocsRoutes } from './platform/rest/docs.routes.ts';
import { registerToolRoutes } from './platform/rest/tool-routes.ts';
import type { UpgradeRouter } from './platform/ws/upgrade-router.ts';

export interface ToolSurfaceInputs {
  readonly deps: AppDeps;
  readonly modules: readonly ModuleDefinition<AppDeps>[];
  readonly tools: readonly Tool[];
  readonly runner: OperationRunner;
  readonly errors: ErrorTable;
  readonly routes: HttpRoutes;
  readonly upgrades: UpgradeRouter;
  readonly state: () => AppState;
}

/**
 * Mounts what is generated from the tool list, the error table and the modules, beside GraphQL:
 * MCP over Streamable HTTP, the REST tool routes, the API docs, and the operational routes
 * (health, readiness, metrics, the index).
 */
export function mountToolSurfaces(inputs: ToolSurfaceInputs) {
  const mounted = mountMcp(inputs);
  // REST tool routes and API docs, generated from the tool list, the error table and the modules.
  registerToolRoutes(inputs.routes, { tools: inputs.tools, errors: inputs.errors });
  mountDocs(inputs);
  mountOperational(inputs);
  return mounted;
}

/** MCP over Streamable HTTP: the same tools, resources and prompts as the stdio entry (mcp-stdio.ts). */
function mountMcp({ deps, modules, tools, runner, errors, routes }: ToolSurfaceInputs) {
  const { logger, config } = deps;
  const mcpSubscriptions = { count: 0 };
  const prompts = promptsOf(modules);
  // Checked now, not when the first MCP request loads the SDK: a prompt naming a tool that is not
  // served stops the build.
  checkPrompts(prompts, new Set(tools.map((tool) => tool.name)));
  const mcpServer: McpServerOptions = {
    info: { name: 'vigil', version: deps.serverInfo.version },
    tools,
    resources: resourcesOf(modules, deps),
    prompts,
    runner,
    errors,
    logger: logger.child({ component: 'mcp' }),
    subscriptions: mcpSubscriptions,
  };
  const mcp = createLazyMcpHttpEndpoint({
    server: mcpServer,
    logger: mcpServer.logger,
    maxSessions: config.mcp.maxSessions,
    idleMs: config.mcp.sessionIdleMinutes * 60_000,
    rateLimit: config.mcp.rateLimit,
    batchMaxBytes: config.mcp.batchMaxBytes,
    stallMs: config.mcp.streamStallSeconds * 1000,
    loopbackOnly: isLoopbackAddress(config.host),
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
  });
  routes.add(['GET', 'POST', 'DELETE', 'OPTIONS'], MCP_PATH, mcp.handle, {
    access: 'caller',
    refusal: mcp.refusal,
  });
  return { mcp, mcpServer, mcpSubscriptions };
}

/** `/openapi.json` and `/docs`, from the tools, the error table and the modules' routes and sockets. */
function mountDocs({ deps, modules, tools, errors, routes }: ToolSurfaceInputs): void {
  registerDocsRoutes(routes, {
    version: deps.serverInfo.version,
    tools,
    errors,
    // Each route's access as the router enforces it (a route that runs an operation needs its scope).
    routes: modules.flatMap((m) =>
      (m.routes ?? []).map(({ path, methods, summary }) => ({
        path,
        methods,
        summary,
        access: routes.accessOf(typeof methods === 'string' ? methods : methods[0]!, path),
      })),
    ),
    sockets: [
      ...modules.flatMap((m) => (m.sockets ?? []).map(({ path, summary }) => ({ path, summary }))),
      {
        path: GRAPHQL_PATH,
        summary: 'GraphQL subscriptions over graphql-ws (subprotocol graphql-transport-ws).',
      },
    ],
  });
}

/** Health, readiness, metrics, and `/`: the console for a browser, the index for everyone else. */
function mountOperational({ deps, modules, tools, routes, upgrades, state }: ToolSurfaceInputs): void {
  const { metrics, config } = deps;
  // Ready means every table the modules serve from exists, not only that the database answers.
  const servedTables = expectedTables(tablesOf(modules));
  // The console: its page at / for browsers, its files under /console/assets.
  const consoleAssets = new ConsoleAssets();
  registerConsoleAssetRoute(routes, consoleAssets);
  registerOperationalRoutes(routes, {
    version: deps.serverInfo.version,
    uptimeSeconds: () => deps.serverInfo.info().uptimeSeconds,
    state,
    checks: { database: () => schemaCheck(deps.database.db, servedTables), jobs: () => deps.jobs.ping() },
    registry: metrics.registry,
    metricsAccess: config.auth.metricsRequireAuth ? 'read' : 'public',
    page: { wanted: wantsPage, render: () => consolePage(consoleAssets, deps.serverInfo.version) },
    index: () => ({
      console: '/ (in a browser)',
      documentation: '/docs',
      graphql: `${GRAPHQL_PATH} (GET/POST, GraphiQL in a browser, graphql-ws and SSE subscriptions)`,
      http: routes.list(),
      // A tool route (`/mcp/tools/{name}`, MCP's tools/call) needs its tool's scope.
      tools: tools.map((tool) => ({
        name: tool.name,
        scope: tool.scopes.base,
        ...(tool.scopes.when.length ? { scope_when: scopeWhenJson(tool.scopes) } : {}),
      })),
      websockets: upgrades.list(),
    }),
  });
}

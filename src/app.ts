import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import type { AppDeps } from './deps.ts';
import { ErrorTable, PLATFORM_ERRORS } from './platform/errors.ts';
import { serveGraphqlWs } from './platform/graphql/graphql-ws.ts';
import { createGraphQLServer, GRAPHQL_PATH } from './platform/graphql/yoga.ts';
import { identifyClient, nodeHeaders } from './platform/http/client-identity.ts';
import { HttpRoutes, type RouteContext, type ServerContext } from './platform/http/http-routes.ts';
import { registerOperationalRoutes } from './platform/http/operational.routes.ts';
import { type AppState, runLifecycle } from './platform/lifecycle.ts';
import { createMcpHttpEndpoint, isLoopbackAddress, MCP_PATH } from './platform/mcp/mcp-http.ts';
import { type ModuleDefinition, resourcesOf } from './platform/module.ts';
import { OperationRunner } from './platform/operations/runner.ts';
import { compileTools, type Tool } from './platform/operations/tool.ts';
import { registerDocsRoutes } from './platform/rest/docs.routes.ts';
import { registerToolRoutes } from './platform/rest/tool-routes.ts';
import { UpgradeRouter } from './platform/ws/upgrade-router.ts';
import { buildSchema } from './schema.ts';

export interface App {
  readonly deps: AppDeps;
  readonly state: AppState;
  /** Every module's tools, compiled against the schema and bound to the operation runner. */
  readonly tools: readonly Tool[];
  readonly runner: OperationRunner;
  readonly errors: ErrorTable;
  /** Serves one request in-process (no port needed): the same path as a real HTTP request. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  /** Starts jobs, schedules and every module, then listens. Resolves with the bound address. */
  start(options: { port: number; host: string }): Promise<{ url: string; port: number }>;
  /** Starts jobs, schedules and every module without opening a port (the stdio MCP server). */
  startWithoutListening(): Promise<void>;
  /** Graceful: stop accepting, close WebSockets (1001), drain requests and jobs, close the database. */
  stop(): Promise<void>;
}

/** Builds the app from its dependencies and modules. Reads no environment and opens no port. */
export function buildApp(deps: AppDeps, modules: readonly ModuleDefinition<AppDeps>[]): App {
  const { logger, metrics, config } = deps;
  let state: AppState = 'built';
  let server: Server | undefined;

  const errors = new ErrorTable(PLATFORM_ERRORS, ...modules.map((m) => m.errors ?? {}));
  const schema = buildSchema();
  const yoga = createGraphQLServer({
    schema,
    logger,
    rateLimit: config.rateLimit,
    context: ({ request, req, viewer }) => ({
      deps,
      viewer: viewer ?? identifyClient(req ? nodeHeaders(req) : request.headers, req, config.trustProxy),
    }),
  });
  const runner = new OperationRunner(yoga);
  const tools = compileTools(
    schema,
    modules.flatMap((m) => m.tools ?? []),
    runner,
  );

  const routes = new HttpRoutes(metrics, logger, errors);
  const upgrades = new UpgradeRouter(metrics, logger);
  routes.add(['GET', 'POST', 'OPTIONS'], GRAPHQL_PATH, (request, { server: ctx }) =>
    yoga.fetch(request, ctx),
  );
  serveGraphqlWs(runner, upgrades.add(GRAPHQL_PATH, undefined, { protocols: ['graphql-transport-ws'] }));

  const host = {
    connections: () => ({ total: upgrades.connectionCount, byRoute: upgrades.connectionsByRoute() }),
  };
  for (const module of modules) {
    for (const route of module.routes ?? []) routes.add(route.methods, route.path, route.handler(deps, host));
    for (const socket of module.sockets ?? []) upgrades.add(socket.path, socket.onConnection(deps));
  }
  // --- MCP over Streamable HTTP: the same tools and resources as the stdio entry (mcp-stdio.ts) ---
  const mcpLogger = logger.child({ component: 'mcp' });
  const mcp = createMcpHttpEndpoint({
    server: {
      info: { name: 'vigil', version: deps.serverInfo.version },
      tools,
      resources: resourcesOf(modules, deps),
      errors,
      logger: mcpLogger,
    },
    logger: mcpLogger,
    maxSessions: config.mcp.maxSessions,
    idleMs: config.mcp.sessionIdleMinutes * 60_000,
    loopbackOnly: isLoopbackAddress(config.host),
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    identify: (request, { server: ctx }) =>
      identifyClient(ctx.req ? nodeHeaders(ctx.req) : request.headers, ctx.req, config.trustProxy),
  });
  routes.add(['GET', 'POST', 'DELETE'], MCP_PATH, mcp.handle);
  // --- end MCP (stop: notification streams end with the sockets, sessions close in dispose) ---

  // --- REST tool routes and API docs: generated from the tool list, the error table and the modules ---
  const identify = (request: Request, { server: ctx }: RouteContext) =>
    identifyClient(ctx.req ? nodeHeaders(ctx.req) : request.headers, ctx.req, config.trustProxy);
  registerToolRoutes(routes, { tools, errors, identify });
  registerDocsRoutes(routes, {
    version: deps.serverInfo.version,
    tools,
    errors,
    routes: modules.flatMap((m) =>
      (m.routes ?? []).map(({ path, methods, summary }) => ({ path, methods, summary })),
    ),
    sockets: [
      ...modules.flatMap((m) => (m.sockets ?? []).map(({ path, summary }) => ({ path, summary }))),
      {
        path: GRAPHQL_PATH,
        summary: 'GraphQL subscriptions over graphql-ws (subprotocol graphql-transport-ws).',
      },
    ],
  });
  // --- end REST tool routes and API docs ---

  registerOperationalRoutes(routes, {
    version: deps.serverInfo.version,
    uptimeSeconds: () => deps.serverInfo.info().uptimeSeconds,
    state: () => state,
    checks: { database: () => deps.database.ping(), jobs: () => deps.jobs.ping() },
    registry: metrics.registry,
    endpoints: {
      graphql: `${GRAPHQL_PATH} (HTTP GET/POST, GraphiQL in a browser, graphql-ws and SSE subscriptions)`,
      health: '/healthz',
      readiness: '/readyz',
      metrics: '/metrics',
      docs: '/docs',
      openapi: '/openapi.json',
      mcp_tools: '/mcp/tools',
    },
  });

  const adapter = createServerAdapter<ServerContext>((request, ctx) => routes.dispatch(request, ctx));
  let started: ModuleDefinition<AppDeps>[] = [];

  async function startModules(): Promise<void> {
    if (state !== 'built') throw new Error(`cannot start an app that is ${state}`);
    state = 'starting';
    await deps.jobs.start();
    for (const module of modules) {
      for (const { job, handler, work, cron } of module.jobs ?? []) {
        await deps.jobs.work(job, handler(deps), work);
        if (cron) await deps.jobs.schedule(job, cron.expression, cron.data as never);
      }
    }
    for (const module of modules) {
      started.push(module);
      await module.start?.(deps);
    }
  }

  return {
    deps,
    tools,
    runner,
    errors,
    get state() {
      return state;
    },

    async fetch(input, init) {
      const request =
        typeof input === 'string' ? new Request(new URL(input, 'http://localhost'), init) : input;
      return adapter.fetch(request, {});
    },

    async startWithoutListening() {
      await startModules();
      state = 'running';
    },

    async start(options) {
      await startModules();
      server = createServer(adapter);
      server.on('upgrade', upgrades.handleUpgrade);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(options.port, options.host, () => resolve());
      });
      state = 'running';
      const bound = (server.address() as AddressInfo).port;
      const host = options.host;
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
      logStart(deps, url);
      return { url, port: bound };
    },

    async stop() {
      if (state === 'stopping' || state === 'stopped') return;
      state = 'stopping';
      await runLifecycle.stop({
        logger,
        timeoutMs: config.shutdownTimeoutMs,
        server,
        closeSockets: (ms) => {
          mcp.closeStreams();
          return upgrades.closeAll(ms);
        },
        stopModules: async () => {
          for (const module of started.reverse()) await module.stop?.(deps);
          started = [];
        },
        stopJobs: (ms) => deps.jobs.stop(ms),
        dispose: async () => {
          await mcp.close();
          await adapter.dispose();
          await yoga.dispose();
          await deps.database.close();
        },
      });
      state = 'stopped';
    },
  };
}

function logStart(deps: AppDeps, url: string): void {
  const { logger } = deps;
  logger.info(
    { url, graphql: `${url}${GRAPHQL_PATH}`, database: deps.database.mode, version: deps.serverInfo.version },
    'vigil is listening',
  );
  const providers = deps.marketData.providersInfo();
  const live = providers.filter((p) => p.live).map((p) => p.id);
  const simulated = providers.filter((p) => !p.live).map((p) => p.id);
  logger.info(
    { live, simulated },
    live.length ? `live market data from ${live.join(', ')}` : 'no live provider configured',
  );
  if (simulated.length) {
    logger.warn(
      { providers: simulated },
      'serving SIMULATED market data: prices, events and history are generated, not real (set MARKET_DATA_PROVIDERS for live data)',
    );
  }
}

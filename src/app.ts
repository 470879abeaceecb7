import { createServerAdapter } from '@whatwg-node/server';
import type { GraphQLSchema } from 'graphql';
import { ModuleLifecycle } from './app-modules.ts';
import { AppServer, type ListenOptions } from './app-server.ts';
import { mountToolSurfaces } from './app-surfaces.ts';
import type { AppDeps } from './deps.ts';
import { GRAPHIQL_TABS } from './graphiql-tabs.ts';
import { AccessGate } from './platform/access/access-gate.ts';
import { Authenticator } from './platform/access/authenticator.ts';
import { ErrorTable, PLATFORM_ERRORS } from './platform/errors.ts';
import { mountGraphql } from './platform/graphql/graphql-surfaces.ts';
import { nodeHeaders } from './platform/http/client-identity.ts';
import { HttpRoutes, type RouteAccess, type ServerContext } from './platform/http/http-routes.ts';
import type { AppState } from './platform/lifecycle.ts';
import type { McpServerOptions } from './platform/mcp/mcp-server.ts';
import type { HostInfo, ModuleDefinition } from './platform/module.ts';
import type { MetricSamplers } from './platform/observability/metrics.ts';
import { scopeOfDocument } from './platform/operations/operation-scope.ts';
import type { OperationRunner } from './platform/operations/runner.ts';
import { compileTools, type Tool } from './platform/operations/tool.ts';
import { UpgradeRouter } from './platform/ws/upgrade-router.ts';
import { buildSchema, printedSchema } from './schema.ts';

export interface App {
  readonly deps: AppDeps;
  readonly state: AppState;
  /** Every module's tools, compiled against the schema and bound to the operation runner. */
  readonly tools: readonly Tool[];
  readonly runner: OperationRunner;
  readonly errors: ErrorTable;
  /** The MCP server's tools, resources and identity, served at /mcp and by the stdio entry. */
  readonly mcp: McpServerOptions;
  /** Serves one request in-process (no port needed): the same path as a real HTTP request. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  /**
   * Starts the job engine and every module, then serves: on a port it opens, or on one the entry
   * point opened early (`listener`). Resolves, with the address, once the app is ready; the
   * warm-up (job workers, schedules, each module's `warmUp`) then runs in the background.
   */
  start(options: ListenOptions): Promise<{ url: string; port: number }>;
  /** Starts as `start` does without serving HTTP (the stdio MCP server). */
  startWithoutListening(): Promise<void>;
  /** Settles when the warm-up after the start has run (tests and benchmarks wait for it). */
  readonly warmedUp: Promise<void>;
  /** Graceful: stop accepting, close WebSockets (1001), drain requests and jobs, close the database. */
  stop(): Promise<void>;
}

/** Builds the app from its dependencies and modules. Reads no environment and opens no port. */
export function buildApp(deps: AppDeps, modules: readonly ModuleDefinition<AppDeps>[]): App {
  const { logger, metrics, config } = deps;
  const errors = new ErrorTable(PLATFORM_ERRORS, ...modules.map((m) => m.errors ?? {}));
  const schema = buildSchema();
  const gate = accessGate(deps);
  const routes = new HttpRoutes(metrics, logger, errors, { accessLog: config.accessLog, gate });
  const upgrades = upgradeRouter(deps, gate);
  const graphql = mountAppGraphql(deps, { schema, routes, upgrades, gate, errors });
  const { runner } = graphql;
  const tools = compileTools(
    schema,
    modules.flatMap((m) => m.tools ?? []),
    runner,
  );
  mountModuleRoutes(deps, modules, { schema, routes, upgrades, runner, errors });
  let server: AppServer | undefined;
  const surfaces = mountToolSurfaces({
    deps,
    modules,
    tools,
    runner,
    errors,
    routes,
    upgrades,
    state: () => server?.state ?? 'built',
  });
  const stopHearingRevocations = closeConnectionsOfRevokedKeys(deps, [
    upgrades,
    graphql.graphqlWs,
    graphql.eventStreams,
    surfaces.mcp,
  ]);
  sampleMetrics(deps, graphql, surfaces.mcpSubscriptions);

  const adapter = createServerAdapter<ServerContext>((request, ctx) => routes.dispatch(request, ctx));
  const lifecycle = new ModuleLifecycle(deps, modules, logger);
  server = new AppServer({
    deps,
    lifecycle,
    adapter,
    upgrades,
    // MCP sessions close here, with their price-hub subscriptions, before modules stop the hub.
    closeStreams: async (ms) => {
      // Subscriptions over SSE and multipart end now: each holds its connection open until then.
      graphql.eventStreams.endAll();
      await Promise.all([surfaces.mcp.close(ms), upgrades.closeAll(ms)]);
    },
    dispose: async () => {
      stopHearingRevocations();
      await lifecycle.release();
      await adapter.dispose();
      await graphql.yoga.dispose();
    },
  });
  const app = server;
  return {
    deps,
    tools,
    runner,
    errors,
    mcp: surfaces.mcpServer,
    warmedUp: app.warmedUp,
    get state() {
      return app.state;
    },
    fetch: (input, init) => app.fetch(input, init),
    start: (options) => app.start(options),
    startWithoutListening: () => app.startWithoutListening(),
    stop: () => app.stop(),
  };
}

/** Who calls, the same way on every surface: HTTP routes, WebSocket upgrades, graphql-ws. */
function accessGate(deps: AppDeps): AccessGate {
  const { config } = deps;
  return new AccessGate(
    new Authenticator({
      required: config.auth.required,
      verify: (secret) => deps.apiKeys.verify(secret),
      known: (secret) => deps.apiKeys.mayBeGenuine(secret),
      maxFailuresPerMinute: config.auth.maxFailuresPerMinute,
    }),
    config.trustProxyHops,
  );
}

function upgradeRouter(deps: AppDeps, gate: AccessGate): UpgradeRouter {
  const { config } = deps;
  return new UpgradeRouter(deps.metrics, deps.logger, {
    allowedOrigins: config.allowedOrigins,
    maxConnectionsPerClient: config.ws.maxConnectionsPerClient,
    maxMessageBytes: config.ws.maxMessageBytes,
    maxBufferedBytes: config.ws.maxBufferedBytes,
    subscribeRate: config.ws.subscribeRate,
    // Connections are counted per client as limits count them (a key, or an address with IPv6 by
    // /64): an invented key is refused, and a rotated IPv6 address inside one network buys nothing.
    gate,
  });
}

interface GraphqlParts {
  readonly schema: GraphQLSchema;
  readonly routes: HttpRoutes;
  readonly upgrades: UpgradeRouter;
  readonly gate: AccessGate;
  readonly errors: ErrorTable;
}

/** GraphQL over HTTP, graphql-ws, SSE and multipart, and the operation runner tools and routes use. */
function mountAppGraphql(deps: AppDeps, { schema, routes, upgrades, gate, errors }: GraphqlParts) {
  const { config } = deps;
  /** A caller no transport authenticated (none should reach here): anonymous, so closed when keys are required. */
  const anonymous = (request: Request, req: ServerContext['req']) =>
    gate.anonymous(req ? nodeHeaders(req) : request.headers, req);
  return mountGraphql({
    schema,
    printedSchema,
    context: ({ request, req, viewer }) => ({ deps, viewer: viewer ?? anonymous(request, req) }),
    // Market data asked for by an operation is capped and charged to its caller (fair upstream share).
    aroundOperation: (context, run) => deps.marketData.withinOperation(context.viewer.clientId, run),
    routes,
    upgrades,
    gate,
    errors,
    logger: deps.logger,
    metrics: deps.metrics,
    clock: deps.clock,
    graphiqlTabs: GRAPHIQL_TABS,
    settings: {
      rateLimit: config.rateLimit,
      allowedOrigins: config.allowedOrigins,
      documentLimits: config.graphql.limits,
      maxBodyBytes: config.graphql.maxBodyBytes,
      introspection: config.graphql.introspection,
      graphiql: config.graphql.graphiql,
      persisted: config.graphql.persisted,
      maxStreamsPerClient: config.ws.maxConnectionsPerClient,
      maxSubscriptionsPerConnection: config.ws.graphqlMaxSubscriptions,
      subscribeRate: config.ws.subscribeRate,
      graphqlWsServer: config.ws.graphqlServer,
    },
  });
}

/** Every module's plain HTTP routes and WebSocket routes. */
function mountModuleRoutes(
  deps: AppDeps,
  modules: readonly ModuleDefinition<AppDeps>[],
  parts: {
    schema: GraphQLSchema;
    routes: HttpRoutes;
    upgrades: UpgradeRouter;
    runner: OperationRunner;
    errors: ErrorTable;
  },
): void {
  const { routes, upgrades } = parts;
  const host: HostInfo = {
    connections: () => ({ total: upgrades.connectionCount, byRoute: upgrades.connectionsByRoute() }),
    operations: parts.runner,
    errors: parts.errors,
  };
  for (const module of modules) {
    for (const route of module.routes ?? []) {
      routes.add(route.methods, route.path, route.handler(deps, host), {
        access: moduleRouteAccess(parts.schema, module.name, route),
      });
    }
    for (const socket of module.sockets ?? []) {
      upgrades.add(socket.path, socket.onConnection(deps), { scope: socket.scope ?? 'read' });
    }
  }
}

/** A route that runs an operation needs the operation's scope; one that runs none, what it declares. */
function moduleRouteAccess(
  schema: GraphQLSchema,
  module: string,
  route: { readonly path: string; readonly operation?: string; readonly access?: RouteAccess },
): RouteAccess {
  if (route.operation === undefined) return route.access ?? 'read';
  if (route.access !== undefined) {
    throw new Error(`module ${module}: route ${route.path} runs an operation, so its access comes from it`);
  }
  return scopeOfDocument(schema, route.operation);
}

/**
 * A revoked key's open connections end at once, on every instance (the key store hears every
 * revocation): WebSockets close with 4401, event streams and MCP sessions are closed. Returns the
 * function that stops listening.
 */
function closeConnectionsOfRevokedKeys(
  deps: AppDeps,
  holders: ReadonlyArray<{ closeClient(clientId: string): number }>,
): () => void {
  return deps.apiKeys.onRevoked((keyId) => {
    const clientId = `key:${keyId}`;
    const closed = holders.reduce((sum, holder) => sum + holder.closeClient(clientId), 0);
    if (closed > 0) deps.logger.info({ keyId, closed }, 'connections of a revoked API key closed');
  });
}

/** Gauges read when /metrics is scraped, from whatever holds each number. */
function sampleMetrics(
  deps: AppDeps,
  graphql: ReturnType<typeof mountGraphql>,
  mcpSubscriptions: { readonly count: number },
): void {
  Object.assign(deps.metrics.samplers, {
    subscriptions: () => ({
      'graphql-ws': graphql.graphqlWs.operationCount,
      ...graphql.eventStreams.countByKind(),
      websocket: deps.priceStreams.stats().subscriptions,
      mcp: mcpSubscriptions.count,
    }),
    queueDepths: () => deps.jobs.queueDepths(),
  } satisfies MetricSamplers);
}

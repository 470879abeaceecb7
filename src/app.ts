import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { ModuleLifecycle } from './app-modules.ts';
import { logStart } from './app-start-log.ts';
import { mountToolSurfaces } from './app-surfaces.ts';
import type { AppDeps } from './deps.ts';
import { GRAPHIQL_TABS } from './graphiql-tabs.ts';
import { AccessGate } from './platform/access/access-gate.ts';
import { Authenticator } from './platform/access/authenticator.ts';
import { ErrorTable, PLATFORM_ERRORS } from './platform/errors.ts';
import { mountGraphql } from './platform/graphql/graphql-surfaces.ts';
import { nodeHeaders } from './platform/http/client-identity.ts';
import { HttpRoutes, type ServerContext } from './platform/http/http-routes.ts';
import { createHttpServer, type PortListener } from './platform/http/port-listener.ts';
import { type AppState, stopGracefully } from './platform/lifecycle.ts';
import type { McpServerOptions } from './platform/mcp/mcp-server.ts';
import type { HostInfo, ModuleDefinition } from './platform/module.ts';
import type { MetricSamplers } from './platform/observability/metrics.ts';
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
  start(
    options: { port: number; host: string } | { listener: PortListener; host: string },
  ): Promise<{ url: string; port: number }>;
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
  let state: AppState = 'built';
  let server: Server | undefined;

  const errors = new ErrorTable(PLATFORM_ERRORS, ...modules.map((m) => m.errors ?? {}));
  const schema = buildSchema();
  // Who calls, the same way on every surface: HTTP routes, WebSocket upgrades, graphql-ws.
  const gate = new AccessGate(
    new Authenticator({
      required: config.auth.required,
      verify: (secret) => deps.apiKeys.verify(secret),
      known: (secret) => deps.apiKeys.mayBeGenuine(secret),
      maxFailuresPerMinute: config.auth.maxFailuresPerMinute,
    }),
    config.trustProxyHops,
  );
  /** A caller no transport authenticated (none should reach here): anonymous, so closed when keys are required. */
  const anonymous = (request: Request, req: ServerContext['req']) =>
    gate.anonymous(req ? nodeHeaders(req) : request.headers, req);

  const routes = new HttpRoutes(metrics, logger, errors, { accessLog: config.accessLog, gate });
  const upgrades = new UpgradeRouter(metrics, logger, {
    allowedOrigins: config.allowedOrigins,
    maxConnectionsPerClient: config.ws.maxConnectionsPerClient,
    maxMessageBytes: config.ws.maxMessageBytes,
    maxBufferedBytes: config.ws.maxBufferedBytes,
    subscribeRate: config.ws.subscribeRate,
    // Connections are counted per client as limits count them (a key, or an address with IPv6 by
    // /64): an invented key is refused, and a rotated IPv6 address inside one network buys nothing.
    gate,
  });
  const { yoga, runner, graphqlWs, eventStreams } = mountGraphql({
    schema,
    printedSchema,
    context: ({ request, req, viewer }) => ({ deps, viewer: viewer ?? anonymous(request, req) }),
    // Market data asked for by an operation is capped and charged to its caller (fair upstream share).
    aroundOperation: (context, run) => deps.marketData.withinOperation(context.viewer.clientId, run),
    routes,
    upgrades,
    gate,
    errors,
    logger,
    metrics,
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
    },
  });
  const tools = compileTools(
    schema,
    modules.flatMap((m) => m.tools ?? []),
    runner,
  );

  const host: HostInfo = {
    connections: () => ({ total: upgrades.connectionCount, byRoute: upgrades.connectionsByRoute() }),
    operations: runner,
    errors,
  };
  for (const module of modules) {
    for (const route of module.routes ?? []) {
      routes.add(route.methods, route.path, route.handler(deps, host), { access: route.access ?? 'read' });
    }
    for (const socket of module.sockets ?? []) {
      upgrades.add(socket.path, socket.onConnection(deps), { scope: socket.scope ?? 'read' });
    }
  }
  const { mcp, mcpServer, mcpSubscriptions } = mountToolSurfaces({
    deps,
    modules,
    tools,
    runner,
    errors,
    routes,
    upgrades,
    state: () => state,
  });

  // A revoked key's open connections end at once, on every instance (the key store hears every
  // revocation): WebSockets close with 4401, event streams and MCP sessions are closed.
  const stopHearingRevocations = deps.apiKeys.onRevoked((keyId) => {
    const clientId = `key:${keyId}`;
    const closed =
      upgrades.closeClient(clientId) +
      graphqlWs.closeClient(clientId) +
      eventStreams.closeClient(clientId) +
      mcp.closeClient(clientId);
    if (closed > 0) logger.info({ keyId, closed }, 'connections of a revoked API key closed');
  });

  // Gauges read when /metrics is scraped, from whatever holds each number.
  Object.assign(metrics.samplers, {
    subscriptions: () => ({
      'graphql-ws': graphqlWs.operationCount,
      ...eventStreams.countByKind(),
      websocket: deps.priceStreams.stats().subscriptions,
      mcp: mcpSubscriptions.count,
    }),
    priceHub: () => deps.priceHub.stats(),
    circuits: () => deps.marketData.circuits(),
    queueDepths: () => deps.jobs.queueDepths(),
  } satisfies MetricSamplers);

  const adapter = createServerAdapter<ServerContext>((request, ctx) => routes.dispatch(request, ctx));
  const lifecycle = new ModuleLifecycle(deps, modules, logger);
  let starting: Promise<unknown> | undefined;
  let warming: Promise<void> | undefined;
  let warmedUp!: () => void;
  const warmUpDone = new Promise<void>((resolve) => {
    warmedUp = resolve;
  });

  /** A stop that arrives while starting makes the start give up at its next step. */
  const checkNotStopped = () => {
    if (state !== 'starting') throw new Error('the app was stopped while it was starting');
  };

  function startModules(): Promise<void> {
    if (state !== 'built') throw new Error(`cannot start an app that is ${state}`);
    state = 'starting';
    starting = lifecycle.start(checkNotStopped);
    return starting as Promise<void>;
  }

  function beginWarmUp(): void {
    warming = lifecycle.warmUp(() => state === 'running').finally(warmedUp);
  }

  return {
    deps,
    tools,
    runner,
    errors,
    mcp: mcpServer,
    warmedUp: warmUpDone,
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
      beginWarmUp();
    },

    async start(options) {
      await startModules();
      checkNotStopped();
      if ('listener' in options) {
        server = options.listener.server;
        options.listener.serve(adapter, upgrades.handleUpgrade);
      } else {
        server = createHttpServer(config.http);
        server.on('request', adapter);
        server.on('upgrade', upgrades.handleUpgrade);
        await new Promise<void>((resolve, reject) => {
          server!.once('error', reject);
          server!.listen(options.port, options.host, () => resolve());
        });
        checkNotStopped();
      }
      state = 'running';
      const bound = (server.address() as AddressInfo).port;
      const host = options.host;
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
      logStart(deps, url, host);
      beginWarmUp();
      return { url, port: bound };
    },

    async stop() {
      if (state === 'stopping' || state === 'stopped') return;
      const wasStarting = state === 'starting';
      state = 'stopping';
      // A start under way gives up at its next step; wait for it (bounded) so nothing starts later.
      if (wasStarting && starting) {
        await Promise.race([starting.catch(() => {}), delay(config.shutdownTimeoutMs)]);
      }
      // Likewise a warm-up step under way (it stops before its next step).
      if (warming) await Promise.race([warming, delay(config.shutdownTimeoutMs)]);
      warmedUp();
      await stopGracefully({
        logger,
        timeoutMs: config.shutdownTimeoutMs,
        server,
        // MCP sessions close here, with their price-hub subscriptions, before modules stop the hub.
        closeStreams: async (ms) => {
          // Subscriptions over SSE and multipart end now: each holds its connection open until then.
          eventStreams.endAll();
          await Promise.all([mcp.close(ms), upgrades.closeAll(ms)]);
        },
        stopModules: () => lifecycle.stop(),
        stopJobs: (ms) => deps.jobs.stop(ms),
        dispose: async () => {
          stopHearingRevocations();
          await lifecycle.release();
          await adapter.dispose();
          await yoga.dispose();
          await deps.database.close();
        },
      });
      state = 'stopped';
    },
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

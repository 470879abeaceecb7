import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import type { AppDeps } from './deps.ts';
import { registerMarketDataRoutes } from './market-data/market-data.routes.ts';
import { serveGraphqlWs } from './platform/graphql/graphql-ws.ts';
import { createGraphQLServer, GRAPHQL_PATH } from './platform/graphql/yoga.ts';
import { HttpRoutes, type ServerContext } from './platform/http/http-routes.ts';
import { registerOperationalRoutes } from './platform/http/operational.routes.ts';
import { UpgradeRouter } from './platform/ws/upgrade-router.ts';

export type AppState = 'built' | 'starting' | 'running' | 'stopping' | 'stopped';

export interface App {
  readonly deps: AppDeps;
  readonly state: AppState;
  /** Serves one request in-process (no port needed): the same path as a real HTTP request. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  /** Starts jobs and background work, then listens. Resolves with the bound address. */
  start(options: { port: number; host: string }): Promise<{ url: string; port: number }>;
  /** Graceful: stop accepting, close WebSockets (1001), drain requests and jobs, close the database. */
  stop(): Promise<void>;
}

/** Builds the app from its dependencies. Reads no environment and opens no port. */
export function buildApp(deps: AppDeps): App {
  const { logger, metrics, config } = deps;
  let state: AppState = 'built';
  let server: Server | undefined;

  const yoga = createGraphQLServer(deps);
  const routes = new HttpRoutes(metrics, logger);
  routes.add(['GET', 'POST', 'OPTIONS'], GRAPHQL_PATH, (request, { server: ctx }) =>
    yoga.fetch(request, ctx),
  );
  registerOperationalRoutes(routes, deps, () => state);

  const upgrades = new UpgradeRouter(metrics, logger);
  serveGraphqlWs(yoga, upgrades.add(GRAPHQL_PATH, undefined, { protocols: ['graphql-transport-ws'] }));
  const priceStreams = registerMarketDataRoutes(routes, upgrades, deps);

  const adapter = createServerAdapter<ServerContext>((request, ctx) => routes.dispatch(request, ctx));

  return {
    deps,
    get state() {
      return state;
    },

    async fetch(input, init) {
      const request =
        typeof input === 'string' ? new Request(new URL(input, 'http://localhost'), init) : input;
      return adapter.fetch(request, {});
    },

    async start({ port, host }) {
      if (state !== 'built') throw new Error(`cannot start an app that is ${state}`);
      state = 'starting';
      await deps.jobs.start();
      await deps.fkDsl.registerJobs();
      await deps.serverInfo.register();
      server = createServer(adapter);
      server.on('upgrade', upgrades.handleUpgrade);
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject);
        server!.listen(port, host, () => resolve());
      });
      state = 'running';
      const bound = (server.address() as AddressInfo).port;
      const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
      logger.info(
        {
          url,
          graphql: `${url}${GRAPHQL_PATH}`,
          database: deps.database.mode,
          version: deps.serverInfo.version,
        },
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
      return { url, port: bound };
    },

    async stop() {
      if (state === 'stopping' || state === 'stopped') return;
      const wasListening = server !== undefined;
      state = 'stopping';
      const deadline = Date.now() + config.shutdownTimeoutMs;
      const remaining = () => Math.max(100, deadline - Date.now());
      logger.info('shutting down');

      // 1. Stop accepting; keep-alive sockets with nothing in flight are closed now.
      const drained = server
        ? new Promise<void>((resolve) => server!.close(() => resolve()))
        : Promise.resolve();
      server?.closeIdleConnections();
      // 2. WebSocket clients get 1001 and a bounded close handshake.
      await upgrades.closeAll(Math.min(2_000, remaining()));
      priceStreams.close();
      deps.priceHub.close();
      // 3. In-flight HTTP requests finish, or are cut at the deadline.
      await Promise.race([drained, sleep(remaining())]);
      server?.closeAllConnections();
      // 4. Running jobs finish (bounded), then the job engine releases its connections.
      await deps.jobs.stop(remaining());
      if (wasListening) {
        await deps.serverInfo.deregister().catch((error: unknown) => {
          logger.warn({ err: error }, 'could not deregister instance');
        });
      }
      await adapter.dispose();
      await yoga.dispose();
      await Promise.all(deps.marketData.providers.map((p) => p.close?.()));
      await deps.database.close();
      state = 'stopped';
      logger.info('stopped');
    },
  };
}

function sleep(ms: number) {
  return new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
}

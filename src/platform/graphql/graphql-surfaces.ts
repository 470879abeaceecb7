import type { GraphQLSchema } from 'graphql';
import type { YogaInitialContext } from 'graphql-yoga';
import type { AccessGate } from '../access/access-gate.ts';
import type { Clock } from '../clock.ts';
import type { ErrorTable } from '../errors.ts';
import type { Viewer } from '../http/client-identity.ts';
import type { HttpRoutes } from '../http/http-routes.ts';
import { errorResponse } from '../http/responses.ts';
import { isEventStream, StreamSlots } from '../http/stream-slots.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { OperationRunner } from '../operations/runner.ts';
import type { UpgradeRouter } from '../ws/upgrade-router.ts';
import type { AroundOperation } from './around-operation.ts';
import type { BaseContext } from './base-context.ts';
import type { DocumentLimits } from './document-limits.ts';
import type { GraphiqlTab } from './graphiql.ts';
import { graphqlRefusalFor, isGraphiqlPage } from './graphql-refusal.ts';
import { type GraphqlWsServer, type GraphqlWsServerKind, serveGraphqlWs } from './graphql-ws.ts';
import type { RateLimitOptions } from './rate-limit.ts';
import { registerSdlRoute } from './sdl.routes.ts';
import { ApqStore } from './transports/apq-store.ts';
import { createGraphqlSse, GRAPHQL_STREAM_PATH } from './transports/graphql-sse.ts';
import { PersistedOperations } from './transports/persisted-operations.ts';
import { createGraphQLServer, GRAPHQL_PATH, type GraphQLServer, type GraphQLServerContext } from './yoga.ts';

export interface GraphqlSurfacesOptions<Context extends BaseContext> {
  readonly schema: GraphQLSchema;
  /** The printed schema served at /schema.graphql (while introspection is on). */
  readonly printedSchema: () => string;
  readonly context: (initial: YogaInitialContext & GraphQLServerContext) => Context | Promise<Context>;
  readonly aroundOperation?: AroundOperation;
  readonly routes: HttpRoutes;
  readonly upgrades: UpgradeRouter;
  readonly gate: AccessGate;
  readonly errors: ErrorTable;
  readonly logger: Logger;
  readonly metrics: Metrics;
  readonly clock: Clock;
  readonly graphiqlTabs: readonly GraphiqlTab[];
  readonly settings: {
    readonly rateLimit: RateLimitOptions;
    readonly allowedOrigins: readonly string[];
    readonly documentLimits: DocumentLimits;
    readonly maxBodyBytes: number;
    readonly introspection: boolean;
    readonly graphiql: boolean;
    readonly persisted: {
      readonly listed: ConstructorParameters<typeof PersistedOperations>[0]['listed'];
      readonly only: boolean;
      readonly apq: ConstructorParameters<typeof ApqStore>[0] | undefined;
    };
    /** Open streams (SSE, multipart, WebSockets) per client. */
    readonly maxStreamsPerClient: number;
    readonly maxSubscriptionsPerConnection: number;
    readonly subscribeRate: { readonly perSecond: number; readonly burst: number };
    /** What serves graphql-ws on the sockets (GRAPHQL_WS_SERVER). */
    readonly graphqlWsServer?: GraphqlWsServerKind;
  };
}

export interface GraphqlSurfaces {
  readonly yoga: GraphQLServer;
  readonly runner: OperationRunner;
  readonly graphqlWs: GraphqlWsServer;
  /** Responses that stream (SSE, multipart, graphql-sse), counted per client. */
  readonly eventStreams: StreamSlots;
}

/**
 * GraphQL on every client transport, mounted on the app's routers: `/graphql` over HTTP (queries,
 * SSE and multipart subscriptions, GraphiQL's page), graphql-sse's protocol at `/graphql/stream`,
 * graphql-ws on the `/graphql` WebSocket, and `/schema.graphql`. One Yoga instance and one operation
 * runner serve them all, so limits, scopes, persisted operations and error masking hold on each.
 */
export function mountGraphql<Context extends BaseContext>(
  options: GraphqlSurfacesOptions<Context>,
): GraphqlSurfaces {
  const { settings } = options;
  // Client documents by key (the allow-list) and by hash (APQ), the same on every client surface.
  const persisted = new PersistedOperations({
    listed: settings.persisted.listed,
    only: settings.persisted.only,
    apq: settings.persisted.apq && new ApqStore(settings.persisted.apq, options.clock),
  });
  const yoga = graphqlServer(options, persisted);
  const runner = new OperationRunner(yoga, persisted);
  // Subscriptions over SSE or multipart hold a response open: bounded per client like WebSockets.
  const eventStreams = new StreamSlots(settings.maxStreamsPerClient);
  const http: HttpMount = {
    yoga,
    counted: streamCounter(eventStreams, options.errors),
    refusal: graphqlRefusalFor(settings.allowedOrigins),
  };
  mountGraphqlHttp(options, http);
  mountGraphqlSse(options, http, runner);
  const graphqlWs = mountGraphqlWs(options, runner);
  if (settings.introspection) registerSdlRoute(options.routes, options.printedSchema);
  return { yoga, runner, graphqlWs, eventStreams };
}

/** What the HTTP routes of GraphQL share. */
interface HttpMount {
  readonly yoga: GraphQLServer;
  /** A response that streams holds a slot of its client until it ends. */
  readonly counted: (request: Request, viewer: Viewer, response: Response) => Promise<Response>;
  /** How a request the routes refuse (no key, rate limit) is answered: in GraphQL's shape. */
  readonly refusal: ReturnType<typeof graphqlRefusalFor>;
}

function graphqlServer<Context extends BaseContext>(
  options: GraphqlSurfacesOptions<Context>,
  persisted: PersistedOperations,
): GraphQLServer {
  const { settings, errors, metrics } = options;
  return createGraphQLServer({
    schema: options.schema,
    persisted,
    logger: options.logger,
    rateLimit: settings.rateLimit,
    allowedOrigins: settings.allowedOrigins,
    statusOf: (code) => errors.status(code),
    documentLimits: settings.documentLimits,
    maxBodyBytes: settings.maxBodyBytes,
    introspection: settings.introspection,
    graphiql: settings.graphiql && { tabs: options.graphiqlTabs },
    context: options.context,
    ...(options.aroundOperation ? { aroundOperation: options.aroundOperation } : {}),
    metrics: { metrics: metrics.graphql, rateLimited: (surface) => metrics.rateLimited(surface) },
  });
}

/**
 * Adopts each response that streams into a slot of its client; once the client holds as many as
 * it may, the stream is cancelled and the client told SUBSCRIPTION_LIMIT instead.
 */
function streamCounter(eventStreams: StreamSlots, errors: ErrorTable): HttpMount['counted'] {
  return async (request, viewer, response) => {
    if (!isEventStream(response)) return response;
    const slot = eventStreams.adopt(viewer.clientId, request.signal, response, viewer.principal.expiresAt);
    if (slot) return slot;
    await response.body?.cancel().catch(() => {});
    const limit = eventStreams.maxPerClient;
    return errorResponse(
      {
        code: 'SUBSCRIPTION_LIMIT',
        message: `at most ${limit} open event streams per client (WS_MAX_CONNECTIONS_PER_CLIENT)`,
        details: { limit, retryAfterSeconds: 5 },
      },
      errors,
    );
  };
}

/** `/graphql` over HTTP: queries, SSE and multipart subscriptions, GraphiQL's page. */
function mountGraphqlHttp<Context extends BaseContext>(
  { routes, settings }: GraphqlSurfacesOptions<Context>,
  { yoga, counted, refusal }: HttpMount,
): void {
  routes.add(
    ['GET', 'POST', 'OPTIONS'],
    GRAPHQL_PATH,
    async (request, { server, viewer }) =>
      counted(request, viewer, await yoga.fetch(request, { ...server, viewer })),
    {
      // GraphiQL's page is static; what it then sends carries the key its user typed in.
      access: (request) => (settings.graphiql && isGraphiqlPage(request) ? 'public' : 'caller'),
      refusal,
    },
  );
}

/** graphql-sse's protocol (its client's single-connection mode); preflights are Yoga's (CORS). */
function mountGraphqlSse<Context extends BaseContext>(
  { routes, settings }: GraphqlSurfacesOptions<Context>,
  { yoga, counted, refusal }: HttpMount,
  runner: OperationRunner,
): void {
  const graphqlSse = createGraphqlSse(runner, {
    maxBodyBytes: settings.maxBodyBytes,
    maxReservationsPerClient: settings.maxStreamsPerClient,
    maxOperationsPerStream: settings.maxSubscriptionsPerConnection,
    allowedOrigins: settings.allowedOrigins,
  });
  routes.add(
    ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    GRAPHQL_STREAM_PATH,
    async (request, { server, viewer }) =>
      request.method === 'OPTIONS'
        ? yoga.fetch(request, { ...server, viewer })
        : counted(request, viewer, await graphqlSse.handle(request, { viewer, server })),
    { access: 'caller', refusal },
  );
}

/** graphql-ws on the `/graphql` WebSocket; what its limits refuse is counted like HTTP's. */
function mountGraphqlWs<Context extends BaseContext>(
  { upgrades, settings, metrics, gate }: GraphqlSurfacesOptions<Context>,
  runner: OperationRunner,
): GraphqlWsServer {
  return serveGraphqlWs(
    runner,
    upgrades.add(GRAPHQL_PATH, undefined, {
      protocols: ['graphql-transport-ws'],
      // A graphql-ws message is what an HTTP body would be plus its envelope (id, type).
      maxMessageBytes: settings.maxBodyBytes + 1024,
      // The key may come in connection_init's payload; each operation checks its own scope.
      credentials: 'deferred',
    }),
    {
      maxSubscriptions: settings.maxSubscriptionsPerConnection,
      subscribeRate: settings.subscribeRate,
      server: settings.graphqlWsServer ?? 'vigil',
    },
    gate,
    (code) => {
      metrics.graphql.error(code);
      if (code === 'RATE_LIMITED') metrics.rateLimited('graphql-ws');
    },
  );
}

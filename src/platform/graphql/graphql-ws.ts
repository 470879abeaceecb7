import { type ExecutionArgs, GraphQLError } from 'graphql';
import type { Context, ServerOptions, SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { WebSocket, WebSocketServer } from 'ws';
import type { AccessGate } from '../access/access-gate.ts';
import { onExpiry } from '../access/expiry.ts';
import type { Viewer } from '../http/client-identity.ts';
import type { OperationRunner } from '../operations/runner.ts';
import { CLOSE_POLICY, closeReason, RateGate } from '../ws/socket-limits.ts';
import { CLOSE_UNAUTHENTICATED, viewerOfSocket } from '../ws/upgrade-router.ts';
import { withoutHttp } from './graphql-errors.ts';
import { type SocketExtra, serveVigilGraphqlWs } from './transports/graphql-ws-socket.ts';

/**
 * What serves graphql-ws's protocol on the sockets (GRAPHQL_WS_SERVER): `vigil`, Vigil's own glue
 * over the library's `makeServer` (transports/graphql-ws-socket.ts: shared results written to JSON
 * once, pushed straight to the socket as whole frames, a subscription's snapshots in one write);
 * `library`, graphql-ws's own `useServer`, with the same hooks below.
 */
export type GraphqlWsServerKind = 'vigil' | 'library';

export const GRAPHQL_WS_SERVERS: readonly GraphqlWsServerKind[] = ['vigil', 'library'];

/** Between keep-alive pings; a pong missing for as long again ends the connection (both paths). */
export const KEEP_ALIVE_MS = 12_000;

export interface GraphqlWsLimits {
  /** Operations one connection may have running at once (GRAPHQL_WS_MAX_SUBSCRIPTIONS). */
  readonly maxSubscriptions: number;
  /** Operations one connection may start per second, sustained and at once (WS_SUBSCRIBE_*). */
  readonly subscribeRate: { readonly perSecond: number; readonly burst: number };
  /** Which code serves the protocol on the sockets (GRAPHQL_WS_SERVER); `vigil` unless told. */
  readonly server?: GraphqlWsServerKind;
}

export interface GraphqlWsServer {
  /** Ends every connection of one client with 4401 (its key was revoked); returns how many. */
  closeClient(clientId: string, reason?: string): number;
  /** Operations running now over all connections (subscriptions, mostly). */
  readonly operationCount: number;
  dispose(): Promise<void>;
}

/**
 * graphql-ws over the operation runner, so the plugins that guard HTTP (rate limits, error
 * masking, scopes) guard WebSocket operations too. The caller is the upgrade's, or the key in
 * `connectionParams` (`apiKey`, or `authorization: "Bearer <key>"`); a connection without a valid
 * one where keys are required is closed with 4401. Each connection may run a bounded number of
 * operations and start them at a bounded rate; a refused one gets an error result and the
 * connection stays.
 */
export function serveGraphqlWs(
  runner: OperationRunner,
  wss: WebSocketServer,
  limits: GraphqlWsLimits,
  gate: AccessGate,
  /** Told of each operation this server refuses itself (its limits), by code; for metrics. */
  onRefused: (code: string) => void = () => {},
): GraphqlWsServer {
  const connections = new GraphqlWsConnections();
  // One set of hooks, whichever server speaks the protocol: both answer the same.
  const options = new GraphqlWsHooks(runner, limits, gate, connections, onRefused).serverOptions();
  const server =
    limits.server === 'library'
      ? // The library's glue prints an internal error's message in the close reason unless told
        // it runs in production; Vigil's says "Internal server error" whatever the environment.
        useServer({ ...options, isProd: true }, wss, KEEP_ALIVE_MS)
      : serveVigilGraphqlWs(options, wss, KEEP_ALIVE_MS);
  return {
    get operationCount() {
      return connections.operationCount;
    },
    closeClient: (clientId, reason) => connections.closeClient(clientId, reason),
    dispose: async () => {
      await server.dispose();
    },
  };
}

type ConnectionParams = Record<string, unknown> | undefined;
type WsContext = Context<ConnectionParams, SocketExtra>;
type PreparedOperation = Extract<Awaited<ReturnType<OperationRunner['prepare']>>, { ok: true }>;

/**
 * The accepted connections: whose each one is (for its operations, and to close a client's when its
 * key is revoked or expires) and what each runs (its graphql-ws context's `subscriptions`).
 */
class GraphqlWsConnections {
  readonly #viewers = new WeakMap<object, Viewer>();
  /** Live connections' graphql-ws contexts: their `subscriptions` are the operations running. */
  readonly #contexts = new Set<{ readonly subscriptions: object }>();
  readonly #byClient = new Map<string, Set<WebSocket>>();

  /** A connection accepted for `viewer`: tracked until its socket closes, closed when its key expires. */
  add(socket: WebSocket, viewer: Viewer, ctx: { readonly subscriptions: object }): void {
    this.#viewers.set(socket, viewer);
    const sockets = this.#byClient.get(viewer.clientId) ?? new Set<WebSocket>();
    this.#byClient.set(viewer.clientId, sockets);
    sockets.add(socket);
    const cancelExpiry = onExpiry(viewer.principal.expiresAt, () =>
      socket.close(CLOSE_UNAUTHENTICATED, 'the API key has expired'),
    );
    socket.once('close', () => {
      cancelExpiry();
      sockets.delete(socket);
      if (sockets.size === 0) this.#byClient.delete(viewer.clientId);
    });
    this.#contexts.add(ctx);
    socket.once('close', () => this.#contexts.delete(ctx));
  }

  viewerOf(socket: object): Viewer | undefined {
    return this.#viewers.get(socket);
  }

  get operationCount(): number {
    let count = 0;
    for (const ctx of this.#contexts) count += Object.keys(ctx.subscriptions).length;
    return count;
  }

  closeClient(clientId: string, reason = 'the API key has been revoked'): number {
    const sockets = [...(this.#byClient.get(clientId) ?? [])];
    for (const socket of sockets) socket.close(CLOSE_UNAUTHENTICATED, reason);
    return sockets.length;
  }
}

/**
 * graphql-ws's ServerOptions hooks: who may connect, which operations a connection may start, how
 * each runs (through the runner, with its guards), and results without the HTTP status marker.
 */
class GraphqlWsHooks {
  /** Each started operation, by the root value that is the only key back to it in execute/subscribe. */
  readonly #prepared = new WeakMap<object, PreparedOperation>();
  /** Each connection's rate of starting operations. */
  readonly #gates = new WeakMap<object, RateGate>();

  constructor(
    private readonly runner: OperationRunner,
    private readonly limits: GraphqlWsLimits,
    private readonly gate: AccessGate,
    private readonly connections: GraphqlWsConnections,
    private readonly onRefused: (code: string) => void,
  ) {}

  serverOptions(): ServerOptions<ConnectionParams, SocketExtra> {
    return {
      onConnect: (ctx) => this.#connect(ctx),
      execute: (args) => this.#prepared.get(args.rootValue as object)!.execute(args),
      subscribe: (args) => this.#prepared.get(args.rootValue as object)!.subscribe(args),
      onSubscribe: async (ctx, _id, payload) => this.#refusal(ctx) ?? (await this.#prepare(ctx, payload)),
      // Results carry the errors as HTTP would (with Yoga's `extensions.http` status marker);
      // a WebSocket message has no status, so the marker is dropped.
      onNext: (_ctx, _id, _payload, _args, result) =>
        result.errors ? { ...result, errors: result.errors.map(withoutHttp) } : result,
      onError: (_ctx, _id, _payload, errors) => errors.map(withoutHttp),
    };
  }

  /** The connection's caller, from the upgrade or its `connectionParams`; closed if there is none. */
  async #connect(ctx: WsContext): Promise<boolean> {
    const socket = ctx.extra.socket;
    const upgraded = viewerOfSocket(socket);
    if (!upgraded) return false;
    const outcome = await this.gate.connectionParams(ctx.connectionParams, upgraded);
    if (!outcome.ok) {
      const code = outcome.error.code === 'RATE_LIMITED' ? CLOSE_POLICY : CLOSE_UNAUTHENTICATED;
      // Closed here with its own code; graphql-ws's 4403 that follows is then a no-op.
      socket.close(code, closeReason(outcome.error.message));
      return false;
    }
    this.connections.add(socket, outcome.viewer, ctx);
    return true;
  }

  /**
   * Why the connection may not start another operation now (too many running, or started too
   * fast), as its error result; undefined if it may. Checked before any await: graphql-ws registers
   * the operation before this hook and forgets it when it ends, so the count includes this one and
   * every operation still starting.
   */
  #refusal(ctx: WsContext): GraphQLError[] | undefined {
    const { maxSubscriptions, subscribeRate } = this.limits;
    if (Object.keys(ctx.subscriptions).length > maxSubscriptions) {
      this.onRefused('SUBSCRIPTION_LIMIT');
      return [
        new GraphQLError(
          `at most ${maxSubscriptions} operations per connection (GRAPHQL_WS_MAX_SUBSCRIPTIONS); complete one first`,
          {
            extensions: {
              code: 'SUBSCRIPTION_LIMIT',
              limit: maxSubscriptions,
              setting: 'GRAPHQL_WS_MAX_SUBSCRIPTIONS',
            },
          },
        ),
      ];
    }
    const taken = this.#gateOf(ctx.extra.socket).tryTake();
    if (taken.ok) return undefined;
    this.onRefused('RATE_LIMITED');
    return [
      new GraphQLError(
        `more than ${subscribeRate.perSecond} operations per second on this connection (WS_SUBSCRIBE_RATE_PER_SECOND)`,
        { extensions: { code: 'RATE_LIMITED', retryAfterSeconds: Math.ceil(taken.retryAfterMs / 1000) } },
      ),
    ];
  }

  #gateOf(socket: object): RateGate {
    let gate = this.#gates.get(socket);
    if (!gate) {
      gate = new RateGate(this.limits.subscribeRate.perSecond, this.limits.subscribeRate.burst);
      this.#gates.set(socket, gate);
    }
    return gate;
  }

  /** Parses, validates and guards the operation through the runner, as on `/graphql`. */
  async #prepare(
    ctx: WsContext,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const result = await this.runner.prepareClientOperation(
      {
        document: payload.query,
        operationName: payload.operationName ?? undefined,
        variables: payload.variables ?? undefined,
        transport: { req: ctx.extra.request, socket: ctx.extra.socket },
        viewer: this.connections.viewerOf(ctx.extra.socket),
      },
      payload.extensions,
    );
    if (!result.ok) return result.errors.map(withoutHttp);
    // The root value is only a key back to this operation's enveloped execute/subscribe.
    const rootValue = {};
    this.#prepared.set(rootValue, result);
    return { ...result.args, rootValue };
  }
}

import { GraphQLError } from 'graphql';
import type { ServerOptions } from 'graphql-ws';
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
  const viewers = new WeakMap<object, Viewer>();
  /** Live connections' graphql-ws contexts: their `subscriptions` are the operations running. */
  const contexts = new Set<{ readonly subscriptions: object }>();
  const byClient = new Map<string, Set<WebSocket>>();
  const track = (socket: WebSocket, viewer: Viewer) => {
    let set = byClient.get(viewer.clientId);
    if (!set) {
      set = new Set();
      byClient.set(viewer.clientId, set);
    }
    set.add(socket);
    const cancelExpiry = onExpiry(viewer.principal.expiresAt, () =>
      socket.close(CLOSE_UNAUTHENTICATED, 'the API key has expired'),
    );
    socket.once('close', () => {
      cancelExpiry();
      set.delete(socket);
      if (set.size === 0) byClient.delete(viewer.clientId);
    });
  };
  const prepared = new WeakMap<
    object,
    Extract<Awaited<ReturnType<OperationRunner['prepare']>>, { ok: true }>
  >();
  const gates = new WeakMap<object, RateGate>();
  const gateOf = (socket: object) => {
    let gate = gates.get(socket);
    if (!gate) {
      gate = new RateGate(limits.subscribeRate.perSecond, limits.subscribeRate.burst);
      gates.set(socket, gate);
    }
    return gate;
  };
  const options: ServerOptions<Record<string, unknown> | undefined, SocketExtra> = {
    onConnect: async (ctx) => {
      const socket = ctx.extra.socket as WebSocket;
      const upgraded = viewerOfSocket(socket);
      if (!upgraded) return false;
      const outcome = await gate.connectionParams(ctx.connectionParams, upgraded);
      if (!outcome.ok) {
        const code = outcome.error.code === 'RATE_LIMITED' ? CLOSE_POLICY : CLOSE_UNAUTHENTICATED;
        // Closed here with its own code; graphql-ws's 4403 that follows is then a no-op.
        socket.close(code, closeReason(outcome.error.message));
        return false;
      }
      viewers.set(socket, outcome.viewer);
      track(socket, outcome.viewer);
      contexts.add(ctx);
      socket.once('close', () => contexts.delete(ctx));
      return true;
    },
    execute: (args) => prepared.get(args.rootValue as object)!.execute(args),
    subscribe: (args) => prepared.get(args.rootValue as object)!.subscribe(args),
    onSubscribe: async (ctx, _id, payload) => {
      // graphql-ws registers the operation before this hook and forgets it when it ends, so the
      // count includes this one and every operation still starting: checked before any await.
      const running = Object.keys(ctx.subscriptions).length;
      if (running > limits.maxSubscriptions) {
        onRefused('SUBSCRIPTION_LIMIT');
        return [
          new GraphQLError(
            `at most ${limits.maxSubscriptions} operations per connection (GRAPHQL_WS_MAX_SUBSCRIPTIONS); complete one first`,
            {
              extensions: {
                code: 'SUBSCRIPTION_LIMIT',
                limit: limits.maxSubscriptions,
                setting: 'GRAPHQL_WS_MAX_SUBSCRIPTIONS',
              },
            },
          ),
        ];
      }
      const taken = gateOf(ctx.extra.socket).tryTake();
      if (!taken.ok) {
        onRefused('RATE_LIMITED');
        return [
          new GraphQLError(
            `more than ${limits.subscribeRate.perSecond} operations per second on this connection (WS_SUBSCRIBE_RATE_PER_SECOND)`,
            {
              extensions: { code: 'RATE_LIMITED', retryAfterSeconds: Math.ceil(taken.retryAfterMs / 1000) },
            },
          ),
        ];
      }
      const result = await runner.prepareClientOperation(
        {
          document: payload.query,
          operationName: payload.operationName ?? undefined,
          variables: payload.variables ?? undefined,
          transport: { req: ctx.extra.request, socket: ctx.extra.socket },
          viewer: viewers.get(ctx.extra.socket),
        },
        payload.extensions,
      );
      if (!result.ok) return result.errors.map(withoutHttp);
      // The root value is only a key back to this operation's enveloped execute/subscribe.
      const rootValue = {};
      prepared.set(rootValue, result);
      return { ...result.args, rootValue };
    },
    // Results carry the errors as HTTP would (with Yoga's `extensions.http` status marker);
    // a WebSocket message has no status, so the marker is dropped.
    onNext: (_ctx, _id, _payload, _args, result) =>
      result.errors ? { ...result, errors: result.errors.map(withoutHttp) } : result,
    onError: (_ctx, _id, _payload, errors) => errors.map(withoutHttp),
  };
  const server =
    limits.server === 'library'
      ? // The library's glue prints an internal error's message in the close reason unless told
        // it runs in production; Vigil's says "Internal server error" whatever the environment.
        useServer({ ...options, isProd: true }, wss, KEEP_ALIVE_MS)
      : serveVigilGraphqlWs(options, wss, KEEP_ALIVE_MS);
  return {
    get operationCount() {
      let count = 0;
      for (const ctx of contexts) count += Object.keys(ctx.subscriptions).length;
      return count;
    },
    closeClient(clientId, reason = 'the API key has been revoked') {
      const sockets = [...(byClient.get(clientId) ?? [])];
      for (const socket of sockets) socket.close(CLOSE_UNAUTHENTICATED, reason);
      return sockets.length;
    },
    dispose: async () => {
      await server.dispose();
    },
  };
}

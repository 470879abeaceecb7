import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import type { AccessGate } from '../access/access-gate.ts';
import { hasScope, type Scope } from '../access/principal.ts';
import { nodeHeaders, type Viewer } from '../http/client-identity.ts';
import { normalizeOrigin, type OriginList, originList } from '../http/origins.ts';
import { PathTable } from '../http/router.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';
import { CLOSE_UNAUTHENTICATED, ClientConnections } from './client-connections.ts';
import { boundSends, CLOSE_POLICY, closeReason, type SocketLimits } from './socket-limits.ts';
import { allowWholeFrames } from './whole-frames.ts';

export interface WsRouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly template: string;
  readonly request: IncomingMessage;
  /** Who connected, as the router counts connections (`Viewer.clientId`). */
  readonly client: string;
  /** The caller the upgrade authenticated (anonymous on a route that takes its key later). */
  readonly viewer: Viewer;
  /** The bounds this connection must keep (the router enforces the send buffer on every send). */
  readonly limits: SocketLimits;
}

export interface UpgradeRouterOptions extends SocketLimits {
  /** Browser origins allowed besides the server's own (ALLOWED_ORIGINS). */
  readonly allowedOrigins: readonly string[];
  /** Open connections per client across every route (WS_MAX_CONNECTIONS_PER_CLIENT). */
  readonly maxConnectionsPerClient: number;
  /** Largest message a client may send, unless a route sets its own (WS_MAX_MESSAGE_BYTES). */
  readonly maxMessageBytes: number;
  /** Authenticates upgrades (header or `key` query parameter). */
  readonly gate: AccessGate;
}

/** Close codes for refused callers, in the 4000 range applications own (HTTP's status + 4000). */
export { CLOSE_UNAUTHENTICATED } from './client-connections.ts';
export const CLOSE_FORBIDDEN = 4403;

export interface WsRouteOptions {
  readonly protocols?: readonly string[];
  readonly maxMessageBytes?: number;
  /**
   * `upgrade` (default): the key comes with the upgrade, and a caller without a valid one is closed
   * with 4401. `deferred`: the protocol carries it later (graphql-ws `connectionParams`), so only a
   * wrong key is refused here.
   */
  readonly credentials?: 'upgrade' | 'deferred';
  /** Scope the route needs (default `read`); a deferred route checks its scopes itself. */
  readonly scope?: Scope;
}

const socketViewers = new WeakMap<object, Viewer>();

/** The caller a socket's upgrade authenticated (for protocols attached to the server, like graphql-ws). */
export function viewerOfSocket(socket: object): Viewer | undefined {
  return socketViewers.get(socket);
}

export type WsConnectionHandler = (socket: WebSocket, context: WsRouteContext) => void;

interface WsRoute {
  readonly server: WebSocketServer;
  readonly template: string;
  readonly options: WsRouteOptions;
}

/** Close code sent to every client when the server shuts down ("going away"). */
export const CLOSE_GOING_AWAY = 1001;

/**
 * One `upgrade` listener for the whole HTTP server. Each path template gets its own `noServer`
 * WebSocketServer (two servers bound to one HTTP server with `path` break each other). Before any
 * handshake, an upgrade is refused with a plain HTTP answer for an unknown path (404), a browser
 * page of another origin (403: a page could otherwise use its visitor's network position) and a
 * client over its connection allowance (429). Every accepted socket has its send buffer bounded.
 */
export class UpgradeRouter {
  readonly #table = new PathTable<WsRoute>();
  readonly #servers: WebSocketServer[] = [];
  readonly #routes: WsRoute[] = [];
  readonly #origins: OriginList;
  readonly #limits: SocketLimits;
  readonly #clients: ClientConnections;
  #closing = false;

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
    private readonly options: UpgradeRouterOptions,
  ) {
    this.#origins = originList(options.allowedOrigins);
    this.#limits = { maxBufferedBytes: options.maxBufferedBytes, subscribeRate: options.subscribeRate };
    this.#clients = new ClientConnections(options.maxConnectionsPerClient);
  }

  /**
   * Registers a route and returns its WebSocketServer. Connections are emitted on it as
   * `connection(socket, request, context)`, so libraries written for a plain `ws` server (graphql-ws's
   * `useServer`) attach as they would anywhere; `onConnection` is a shorthand for such a listener.
   */
  add(template: string, onConnection?: WsConnectionHandler, options: WsRouteOptions = {}) {
    const protocols = options.protocols;
    const server = new WebSocketServer({
      noServer: true,
      // A larger message is refused by `ws` with 1009 before it is buffered whole.
      maxPayload: options.maxMessageBytes ?? this.options.maxMessageBytes,
      ...(protocols
        ? { handleProtocols: (offered: Set<string>) => protocols.find((p) => offered.has(p)) ?? false }
        : {}),
    });
    if (onConnection) {
      server.on('connection', (ws: WebSocket, _request: IncomingMessage, context: WsRouteContext) => {
        try {
          onConnection(ws, context);
        } catch (error) {
          this.logger.error({ err: error, route: template }, 'websocket connection handler failed');
          ws.close(1011, 'internal error');
        }
      });
    }
    this.#servers.push(server);
    this.#table.add(template, { server, template, options });
    this.#routes.push({ server, template, options });
    return server;
  }

  handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    // Node leaves an upgraded socket without an 'error' listener: a client resetting it while it is
    // refused would otherwise be an uncaught exception.
    socket.on('error', () => socket.destroy());
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const match = this.#table.match(pathname);
    if (!match || this.#closing) {
      refuse(socket, this.#closing ? '503 Service Unavailable' : '404 Not Found');
      return;
    }
    const origin = request.headers.origin;
    if (origin !== undefined && !this.#originAllowed(origin, request.headers.host)) {
      this.logger.info({ route: match.template }, 'websocket upgrade refused: origin not allowed');
      refuse(socket, '403 Forbidden', 'Origin not allowed (cross-origin pages: ALLOWED_ORIGINS)');
      return;
    }
    this.#authenticate(request, match.value).then(
      (admitted) => {
        if (socket.destroyed || this.#closing) return void socket.destroy();
        if (admitted.ok) return this.#accept(request, socket, head, match, admitted.viewer);
        if (admitted.status === 429) {
          refuse(socket, '429 Too Many Requests', admitted.reason);
          return;
        }
        // Completed, then closed with the reason: a browser sees close codes, never a refused
        // upgrade's status.
        this.logger.info({ route: match.template, code: admitted.close }, 'websocket caller refused');
        match.value.server.handleUpgrade(request, socket, head, (ws) => {
          ws.on('error', () => {});
          ws.close(admitted.close, closeReason(admitted.reason));
        });
      },
      (error: unknown) => {
        this.logger.error({ err: error, route: match.template }, 'websocket authentication failed');
        refuse(socket, '500 Internal Server Error');
      },
    );
  };

  async #authenticate(
    request: IncomingMessage,
    route: WsRoute,
  ): Promise<{ ok: true; viewer: Viewer } | { ok: false; status?: 429; close: number; reason: string }> {
    const { gate } = this.options;
    const deferred = route.options.credentials === 'deferred';
    const outcome = await gate.upgrade(request);
    if (!outcome.ok) {
      const error = outcome.error;
      if (error.code === 'RATE_LIMITED')
        return { ok: false, status: 429, close: CLOSE_POLICY, reason: error.message };
      // A deferred route may still get its key in the protocol; only a wrong key is refused now.
      if (deferred && error.details?.reason === 'missing') {
        return { ok: true, viewer: gate.anonymous(nodeHeaders(request), request) };
      }
      return { ok: false, close: CLOSE_UNAUTHENTICATED, reason: error.message };
    }
    const scope = route.options.scope ?? 'read';
    if (!deferred && !hasScope(outcome.viewer.principal, scope)) {
      return { ok: false, close: CLOSE_FORBIDDEN, reason: `this stream needs the \`${scope}\` scope` };
    }
    return outcome;
  }

  #accept(
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    match: { value: WsRoute; template: string; params: Readonly<Record<string, string>> },
    viewer: Viewer,
  ): void {
    const client = viewer.clientId;
    if (!this.#clients.reserve(client, socket)) {
      this.logger.info({ route: match.template }, 'websocket upgrade refused: too many connections');
      refuse(
        socket,
        '429 Too Many Requests',
        `at most ${this.options.maxConnectionsPerClient} WebSocket connections per client (WS_MAX_CONNECTIONS_PER_CLIENT)`,
      );
      return;
    }
    const { server } = match.value;
    server.handleUpgrade(request, socket, head, (ws) => {
      const gauge = this.metrics.wsConnections.labels({ route: match.template });
      gauge.inc();
      this.#clients.track(client, ws, viewer.principal.expiresAt);
      socketViewers.set(ws, viewer);
      ws.once('close', () => gauge.dec());
      ws.on('error', (error) => this.logger.debug({ err: error, route: match.template }, 'websocket error'));
      boundSends(ws, this.#limits.maxBufferedBytes);
      allowWholeFrames(ws, socket, this.#limits.maxBufferedBytes);
      const context: WsRouteContext = {
        params: match.params,
        template: match.template,
        request,
        client,
        viewer,
        limits: this.#limits,
      };
      const ours = new Set(ws.listeners('error'));
      server.emit('connection', ws, request, context);
      // A server-side socket emits 'error' only for what the peer did (an oversized or malformed
      // frame, a reset connection), and `ws` closes it with the matching code. graphql-ws reports
      // these as internal errors on stderr, which would let any client write to the log at will.
      for (const listener of ws.listeners('error')) {
        if (!ours.has(listener)) ws.removeListener('error', listener as (error: Error) => void);
      }
    });
  }

  /** Ends every connection of one client with 4401 (its key was revoked); returns how many. */
  closeClient(client: string, reason = 'the API key has been revoked'): number {
    return this.#clients.closeClient(client, reason);
  }

  /** No Origin is a non-browser client; a browser's must be this server's own or listed. */
  #originAllowed(origin: string, host: string | undefined): boolean {
    if (this.#origins.has(origin)) return true;
    if (!host) return false;
    try {
      const url = new URL(normalizeOrigin(origin));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
      // The Host header read with the Origin's scheme, so default ports compare equal.
      return new URL(`${url.protocol}//${host}`).host === url.host;
    } catch {
      return false;
    }
  }

  /** Every WebSocket route template, in registration order. */
  list(): string[] {
    return this.#routes.map((r) => r.template);
  }

  get connectionCount(): number {
    return this.#servers.reduce((n, s) => n + s.clients.size, 0);
  }

  /** Open connections per route template (only routes with at least one). */
  connectionsByRoute(): Record<string, number> {
    return Object.fromEntries(
      this.#routes.filter((r) => r.server.clients.size > 0).map((r) => [r.template, r.server.clients.size]),
    );
  }

  /**
   * Refuses new upgrades, sends 1001 to every client and waits (bounded) for their close
   * handshakes; clients still open after the deadline are terminated.
   */
  async closeAll(timeoutMs: number, reason = 'server shutting down'): Promise<void> {
    this.#closing = true;
    const sockets = this.#servers.flatMap((s) => [...s.clients]);
    const closed = sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === ws.CLOSED) return resolve();
          ws.once('close', () => resolve());
          ws.close(CLOSE_GOING_AWAY, reason);
        }),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(closed),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    for (const ws of sockets) if (ws.readyState !== ws.CLOSED) ws.terminate();
    await Promise.all(this.#servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

function refuse(socket: Duplex, status: string, body = ''): void {
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

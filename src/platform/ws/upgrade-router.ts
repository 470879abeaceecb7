import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { PathTable } from '../http/router.ts';
import type { Logger } from '../observability/logger.ts';
import type { Metrics } from '../observability/metrics.ts';

export interface WsRouteContext {
  readonly params: Readonly<Record<string, string>>;
  readonly template: string;
  readonly request: IncomingMessage;
}

export type WsConnectionHandler = (socket: WebSocket, context: WsRouteContext) => void;

interface WsRoute {
  readonly server: WebSocketServer;
  readonly template: string;
}

/** Close code sent to every client when the server shuts down ("going away"). */
export const CLOSE_GOING_AWAY = 1001;

/**
 * One `upgrade` listener for the whole HTTP server. Each path template gets its own `noServer`
 * WebSocketServer (two servers bound to one HTTP server with `path` break each other); unknown
 * paths are answered with a plain 404 before any WebSocket handshake.
 */
export class UpgradeRouter {
  readonly #table = new PathTable<WsRoute>();
  readonly #servers: WebSocketServer[] = [];
  readonly #routes: WsRoute[] = [];
  #closing = false;

  constructor(
    private readonly metrics: Metrics,
    private readonly logger: Logger,
  ) {}

  /**
   * Registers a route and returns its WebSocketServer. Connections are emitted on it as
   * `connection(socket, request, context)`, so libraries written for a plain `ws` server (graphql-ws's
   * `useServer`) attach as they would anywhere; `onConnection` is a shorthand for such a listener.
   */
  add(template: string, onConnection?: WsConnectionHandler, options: { protocols?: readonly string[] } = {}) {
    const protocols = options.protocols;
    const server = new WebSocketServer({
      noServer: true,
      maxPayload: 1024 * 1024,
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
    this.#table.add(template, { server, template });
    this.#routes.push({ server, template });
    return server;
  }

  handleUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    const match = this.#table.match(pathname);
    if (!match || this.#closing) {
      const status = this.#closing ? '503 Service Unavailable' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const { server } = match.value;
    server.handleUpgrade(request, socket, head, (ws) => {
      const gauge = this.metrics.wsConnections.labels({ route: match.template });
      gauge.inc();
      ws.once('close', () => gauge.dec());
      ws.on('error', (error) => this.logger.debug({ err: error, route: match.template }, 'websocket error'));
      const context: WsRouteContext = { params: match.params, template: match.template, request };
      server.emit('connection', ws, request, context);
    });
  };

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

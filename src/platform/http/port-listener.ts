import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody } from './responses.ts';

/**
 * How long idle keep-alive connections and slow request heads are kept. Node's own defaults (5 s
 * keep-alive) are shorter than the idle pools of common clients and proxies, so a client that
 * reuses a connection after a pause races the server's close and gets ECONNRESET under load.
 */
export interface HttpServerTimeouts {
  /** An idle keep-alive connection is closed after this long (advertised as `Keep-Alive: timeout`). */
  readonly keepAliveMs: number;
  /** A request's head (line and headers) must arrive within this long. */
  readonly headersMs: number;
  /** A whole request (head and body) must arrive within this long; 0 turns the bound off. */
  readonly requestMs: number;
}

/** An HTTP server with Vigil's connection timeouts (see HttpServerTimeouts). */
export function createHttpServer(timeouts: HttpServerTimeouts): Server {
  const server = createServer({
    keepAliveTimeout: timeouts.keepAliveMs,
    // Node checks that a request's head does not outlast the whole-request bound.
    headersTimeout:
      timeouts.requestMs > 0 ? Math.min(timeouts.headersMs, timeouts.requestMs) : timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
  });
  return server;
}

/** The port could not be bound: one plain sentence naming the setting to change. */
export class PortUnavailableError extends Error {
  constructor(
    readonly host: string,
    readonly port: number,
    readonly code: string,
  ) {
    super(portProblem(host, port, code));
    this.name = 'PortUnavailableError';
  }
}

function portProblem(host: string, port: number, code: string): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} is already in use on ${host}: stop the process that listens on ${where}, or set PORT to a free port (PORT=0 picks one)`;
    case 'EACCES':
      return `not allowed to listen on ${where} (ports below 1024 need privileges): set PORT to 1024 or above`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: set HOST (127.0.0.1 for this machine only, 0.0.0.0 for every interface)`;
    default:
      return `could not listen on ${where} (${code}): check HOST and PORT`;
  }
}

/** Requests that may wait for the app at once; past it, 503 with Retry-After. */
const MAX_HELD = 1_024;
/** A request waits this long for the app at most. */
const HOLD_MS = 60_000;

type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;
type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

interface HeldRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly timer: NodeJS.Timeout;
}
interface HeldUpgrade {
  readonly req: IncomingMessage;
  readonly socket: Duplex;
  readonly head: Buffer;
  readonly timer: NodeJS.Timeout;
}

export interface PortListenerOptions {
  readonly host: string;
  readonly port: number;
  readonly timeouts: HttpServerTimeouts;
  readonly version: string;
}

/**
 * The server's port, open from the first moments of a start. A port that is taken is reported
 * before any slow work, and a client that connects while the app starts is answered once the app
 * is ready rather than refused. Until the app takes over (`serve`): `/healthz` answers 200 (the
 * process is alive), `/readyz` answers 503 naming the phase under way, and every other request
 * and WebSocket upgrade waits for the app (at most HOLD_MS, at most MAX_HELD at once).
 */
export class PortListener {
  readonly server: Server;
  readonly #options: PortListenerOptions;
  #phase = 'starting';
  #held: HeldRequest[] = [];
  #heldUpgrades: HeldUpgrade[] = [];
  #failed: string | undefined;

  private constructor(server: Server, options: PortListenerOptions) {
    this.server = server;
    this.#options = options;
    server.on('request', this.#onRequest);
    server.on('upgrade', this.#onUpgrade);
  }

  /** Binds the port now; a port that cannot be bound rejects with PortUnavailableError. */
  static open(options: PortListenerOptions): Promise<PortListener> {
    const server = createHttpServer(options.timeouts);
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(new PortUnavailableError(options.host, options.port, error.code ?? 'error'));
      };
      server.once('error', onError);
      server.listen(options.port, options.host, () => {
        server.off('error', onError);
        resolve(new PortListener(server, options));
      });
    });
  }

  /** The bound port (the chosen one when PORT=0). */
  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** What the start is doing, for `/readyz` while it starts. */
  set phase(phase: string) {
    this.#phase = phase;
  }

  /** The app takes over: requests and upgrades that waited are served now, in arrival order. */
  serve(request: RequestHandler, upgrade: UpgradeHandler): void {
    this.server.off('request', this.#onRequest);
    this.server.off('upgrade', this.#onUpgrade);
    this.server.on('request', request);
    this.server.on('upgrade', upgrade);
    const held = this.#held;
    const upgrades = this.#heldUpgrades;
    this.#held = [];
    this.#heldUpgrades = [];
    for (const { req, res, timer } of held) {
      clearTimeout(timer);
      if (!res.writableEnded && !req.socket.destroyed) request(req, res);
    }
    for (const { req, socket, head, timer } of upgrades) {
      clearTimeout(timer);
      if (!socket.destroyed) upgrade(req, socket, head);
    }
  }

  /** The start failed: whatever waits is answered 503, and nothing new is held. */
  fail(reason: string): void {
    this.#failed = reason;
    for (const { res, timer } of this.#held.splice(0)) {
      clearTimeout(timer);
      unavailable(res, reason);
    }
    for (const { socket, timer } of this.#heldUpgrades.splice(0)) {
      clearTimeout(timer);
      socket.destroy();
    }
  }

  /** Stops listening and closes every connection (a stop during the start). */
  close(): Promise<void> {
    this.fail('the server is stopping');
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }

  readonly #onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && path === '/healthz') {
      json(res, 200, {
        status: 'ok',
        state: 'starting',
        version: this.#options.version,
        uptime_seconds: Math.round(process.uptime() * 1000) / 1000,
      });
    } else if (req.method === 'GET' && path === '/readyz') {
      json(res, 503, { status: 'not_ready', state: 'starting', phase: this.#phase, checks: {} });
    } else if (this.#failed) {
      unavailable(res, this.#failed);
    } else if (this.#held.length >= MAX_HELD) {
      unavailable(res, 'the server is starting');
    } else {
      const entry: HeldRequest = {
        req,
        res,
        timer: setTimeout(() => {
          this.#held = this.#held.filter((h) => h !== entry);
          unavailable(res, 'the server is still starting');
        }, HOLD_MS).unref(),
      };
      this.#held.push(entry);
    }
  };

  readonly #onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    if (this.#failed || this.#heldUpgrades.length >= MAX_HELD) {
      socket.destroy();
      return;
    }
    socket.on('error', () => {});
    const entry: HeldUpgrade = {
      req,
      socket,
      head,
      timer: setTimeout(() => {
        this.#heldUpgrades = this.#heldUpgrades.filter((h) => h !== entry);
        socket.destroy();
      }, HOLD_MS).unref(),
    };
    this.#heldUpgrades.push(entry);
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...(status === 503 ? { 'retry-after': '1' } : {}),
  });
  res.end(text);
}

function unavailable(res: ServerResponse, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  json(res, 503, errorBody('SERVER_STARTING', message, { retryAfterSeconds: 1 }));
}

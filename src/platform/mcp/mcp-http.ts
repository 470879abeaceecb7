import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Viewer } from '../http/client-identity.ts';
import type { RouteContext, RouteHandler } from '../http/http-routes.ts';
import type { Logger } from '../observability/logger.ts';
import type { Caller } from '../operations/tool.ts';
import { createMcpServerFactory, type McpRequestExtra, type McpServerOptions } from './mcp-server.ts';

export const MCP_PATH = '/mcp';

/** Largest JSON-RPC body accepted on `/mcp` (tool arguments are small). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

export interface McpHttpOptions {
  readonly server: McpServerOptions;
  readonly logger: Logger;
  /** Open sessions at most (see `handle` for what happens at the bound). */
  readonly maxSessions: number;
  /** A session with no request and no open stream for this long is closed. */
  readonly idleMs: number;
  /**
   * The server listens on a loopback address: only loopback Host names (localhost, 127.0.0.1,
   * [::1], any port) are served unless `allowedHosts` lists more, and an Origin, when sent, must be
   * a loopback origin or listed in `allowedOrigins`.
   */
  readonly loopbackOnly: boolean;
  /** Extra Host values (`name` for any port, or `name:port`). When not loopback-only and set, only these. */
  readonly allowedHosts?: readonly string[];
  /** Origins (`https://app.example`) browsers may call from. */
  readonly allowedOrigins?: readonly string[];
  /** Who sent a request (API key, address); each tool call runs as the request that carried it. */
  readonly identify?: (request: Request, context: RouteContext) => Viewer;
  readonly now?: () => number;
}

export interface McpHttpEndpoint {
  readonly handle: RouteHandler;
  readonly sessionCount: number;
  /** Closes idle sessions now (also runs on a timer). */
  sweep(): void;
  /** Refuses new requests and ends every notification stream, so in-flight requests can drain. */
  closeStreams(): void;
  /** Closes every session (their subscriptions end). */
  close(): Promise<void>;
}

interface Session {
  readonly id: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  lastActive: number;
  /** Requests being handled plus response streams still open (POST results, the GET stream). */
  open: number;
}

const CALLER = 'vigil.caller';

/**
 * MCP Streamable HTTP at `/mcp`: stateful sessions (`Mcp-Session-Id`), one MCP server per session,
 * POST for requests, GET for the server's notification stream, DELETE to end a session.
 *
 * Host and Origin are checked here, before the SDK transport, against DNS rebinding: a page on
 * another site must not reach a server bound to this machine through a name that resolves to it.
 *
 * At `maxSessions`, a new session takes the place of the least recently active one that has no
 * request or stream open (its client gets 404 and re-initializes, as the protocol says); when every
 * session is busy, new sessions are refused with 503 and Retry-After. Sessions idle for `idleMs`
 * are closed.
 */
export function createMcpHttpEndpoint(options: McpHttpOptions): McpHttpEndpoint {
  const { logger, maxSessions, idleMs } = options;
  const now = options.now ?? Date.now;
  const createServer = createMcpServerFactory(options.server);
  const sessions = new Map<string, Session>();
  const allowedHosts = (options.allowedHosts ?? []).map((h) => h.trim().toLowerCase()).filter(Boolean);
  const allowedOrigins = new Set(
    (options.allowedOrigins ?? []).map((o) => o.trim().toLowerCase().replace(/\/+$/, '')).filter(Boolean),
  );
  let closing = false;
  /** Sessions being initialized: they count against the bound before they are registered. */
  let pending = 0;
  const sweeper = setInterval(() => sweep(), Math.max(50, Math.min(idleMs / 2, 60_000)));
  sweeper.unref();

  function sweep(): void {
    const cutoff = now() - idleMs;
    for (const session of sessions.values()) {
      if (session.open === 0 && session.lastActive <= cutoff) {
        logger.info({ session: session.id }, 'mcp session expired (idle)');
        void closeSession(session);
      }
    }
  }

  async function closeSession(session: Session): Promise<void> {
    sessions.delete(session.id);
    await session.transport.close().catch(() => {});
  }

  /** Makes room for one more session; false when every session is busy. */
  function makeRoom(): boolean {
    if (sessions.size + pending < maxSessions) return true;
    let oldest: Session | undefined;
    for (const session of sessions.values()) {
      if (session.open === 0 && (!oldest || session.lastActive < oldest.lastActive)) oldest = session;
    }
    if (!oldest) return false;
    logger.info({ session: oldest.id, maxSessions }, 'mcp session closed to make room for a new one');
    void closeSession(oldest);
    return true;
  }

  function hostAllowed(request: Request): boolean {
    const host = (request.headers.get('host') ?? new URL(request.url).host).trim().toLowerCase();
    const name = hostname(host);
    if (allowedHosts.some((allowed) => allowed === host || allowed === name)) return true;
    if (options.loopbackOnly) return LOOPBACK_NAMES.has(name);
    return allowedHosts.length === 0;
  }

  function originAllowed(request: Request): boolean {
    const origin = request.headers.get('origin');
    if (origin === null) return true;
    const normalized = origin.trim().toLowerCase().replace(/\/+$/, '');
    if (allowedOrigins.has(normalized)) return true;
    if (!options.loopbackOnly) return false;
    try {
      const url = new URL(normalized);
      return (url.protocol === 'http:' || url.protocol === 'https:') && LOOPBACK_NAMES.has(url.hostname);
    } catch {
      return false;
    }
  }

  /** Counts the request, and its response stream until the stream ends. */
  async function serve(
    session: Session,
    run: () => Promise<Response>,
    streamOnly = false,
  ): Promise<Response> {
    session.open++;
    session.lastActive = now();
    let response: Response;
    try {
      response = await run();
    } catch (error) {
      release(session);
      throw error;
    }
    if (!response.body) {
      release(session);
      return response;
    }
    return trackBody(response, () => release(session), streamOnly);
  }

  function release(session: Session): void {
    session.open--;
    session.lastActive = now();
  }

  async function openSession(request: Request, authInfo: AuthInfo): Promise<Response> {
    const body = await readJson(request);
    if (!body.ok) return body.response;
    const messages = Array.isArray(body.value) ? body.value : [body.value];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    }
    if (!makeRoom()) {
      return rpcError(503, -32000, `too many MCP sessions (at most ${maxSessions}); try again later`, {
        'retry-after': '30',
      });
    }
    const server = createServer(callerOfRequest);
    let session: Session | undefined;
    pending++;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      onsessioninitialized: (id) => {
        session = { id, transport, server, lastActive: now(), open: 0 };
        sessions.set(id, session);
      },
    });
    transport.onclose = () => {
      if (session && sessions.get(session.id) === session) sessions.delete(session.id);
    };
    let response: Response;
    try {
      await server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: body.value, authInfo });
    } finally {
      pending--;
    }
    if (!session) {
      // The initialize request was refused (bad headers, a batch): nothing was registered.
      await transport.close().catch(() => {});
      return response;
    }
    return serve(session, async () => response);
  }

  return {
    get sessionCount() {
      return sessions.size;
    },
    sweep,

    async handle(request, context) {
      if (!hostAllowed(request)) return rpcError(403, -32000, 'Forbidden: Host header not allowed');
      if (!originAllowed(request)) return rpcError(403, -32000, 'Forbidden: Origin not allowed');
      if (closing) return rpcError(503, -32000, 'the server is shutting down');
      const caller: Caller = {
        request,
        ...(options.identify ? { viewer: options.identify(request, context) } : {}),
      };
      // The SDK hands `authInfo` to every handler of the messages this request carries: it is how
      // each tool call learns the request (and so the client) it came from.
      const authInfo: AuthInfo = {
        token: '',
        clientId: caller.viewer?.clientId ?? 'unknown',
        scopes: [],
        extra: { [CALLER]: caller },
      };
      const id = request.headers.get('mcp-session-id');
      if (id === null) {
        if (request.method !== 'POST') {
          return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
        }
        return openSession(request, authInfo);
      }
      const session = sessions.get(id);
      if (!session) return rpcError(404, -32001, 'Session not found');
      return serve(
        session,
        () => session.transport.handleRequest(request, { authInfo }),
        request.method === 'GET',
      );
    },

    closeStreams() {
      closing = true;
      for (const session of sessions.values()) session.transport.closeStandaloneSSEStream();
    },

    async close() {
      closing = true;
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map(closeSession));
    },
  };
}

/** The caller the HTTP layer attached to the request that carried this message. */
function callerOfRequest(extra: McpRequestExtra): Caller {
  const caller = extra.authInfo?.extra?.[CALLER] as Caller | undefined;
  return caller ?? {};
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Is this (listen) address a loopback one? Decides `loopbackOnly`. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.trim().toLowerCase();
  return a === 'localhost' || a === '::1' || a === '[::1]' || /^127(\.\d{1,3}){3}$/.test(a);
}

/** `name` of `name:port`, `[v6]` of `[v6]:port`. */
function hostname(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  return host.split(':')[0] ?? host;
}

function rpcError(
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

async function readJson(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  if (Number(request.headers.get('content-length')) > MAX_MCP_BODY_BYTES) {
    return { ok: false, response: rpcError(413, -32000, `request body over ${MAX_MCP_BODY_BYTES} bytes`) };
  }
  let text = '';
  if (request.body) {
    const reader = request.body.getReader();
    const decoder = new TextDecoder();
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received > MAX_MCP_BODY_BYTES) {
        await reader.cancel().catch(() => {});
        return {
          ok: false,
          response: rpcError(413, -32000, `request body over ${MAX_MCP_BODY_BYTES} bytes`),
        };
      }
      text += decoder.decode(value, { stream: true });
    }
    text += decoder.decode();
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, response: rpcError(400, -32700, 'Parse error: Invalid JSON') };
  }
}

/**
 * The same response, calling `onEnd` once when its body is fully read or cancelled. A connection
 * that carried the notification stream (`streamOnly`) is closed when the stream ends rather than
 * kept alive: a graceful stop must not wait out its keep-alive timeout.
 */
function trackBody(response: Response, onEnd: () => void, streamOnly: boolean): Response {
  const reader = response.body!.getReader();
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
        } else {
          controller.enqueue(value);
        }
      } catch (error) {
        end();
        controller.error(error);
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
  });
  const headers = new Headers(response.headers);
  if (streamOnly) headers.set('connection', 'close');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}

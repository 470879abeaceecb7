import { randomUUID } from 'node:crypto';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { onExpiry } from '../access/expiry.ts';
import type { AppError, ErrorTable } from '../errors.ts';
import type { Viewer } from '../http/client-identity.ts';
import type { RouteContext, RouteHandler } from '../http/http-routes.ts';
import type { Logger } from '../observability/logger.ts';
import type { Caller } from '../operations/tool.ts';
import { MAX_MCP_BODY_BYTES, readJson, rpcError, trackBody } from './mcp-body.ts';
import { createMcpGuard, type McpGuardOptions } from './mcp-guard.ts';
import { createMcpServerFactory, type McpRequestExtra, type McpServerOptions } from './mcp-server.ts';
import { MAX_SESSIONS_PER_CLIENT, SessionTable } from './mcp-sessions.ts';

export { MAX_MCP_BODY_BYTES } from './mcp-body.ts';
export { isLoopbackAddress } from './mcp-guard.ts';

/** Interval of SSE keep-alive comments on response streams (the SDK transport writes them). */
export const MCP_KEEP_ALIVE_MS = 15_000;

export interface McpHttpOptions extends McpGuardOptions {
  readonly server: McpServerOptions;
  readonly logger: Logger;
  /** Open sessions at most, over all clients. */
  readonly maxSessions: number;
  /** Sessions one client may hold; default `min(maxSessions, MAX_SESSIONS_PER_CLIENT)`. */
  readonly maxSessionsPerClient?: number;
  /** A session with no request and no open stream for this long is closed. */
  readonly idleMs: number;
  /** A notification stream (GET) is closed after this long and the client reconnects; default `idleMs`. */
  readonly streamMaxAgeMs?: number;
  /** SSE keep-alive interval (default MCP_KEEP_ALIVE_MS): what lets a vanished client be noticed. */
  readonly keepAliveMs?: number;
  /**
   * Who sent a request; default the caller the route layer authenticated. Each tool call runs as
   * the request that carried it.
   */
  readonly identify?: (request: Request, context: RouteContext) => Viewer;
  readonly now?: () => number;
}

export interface McpHttpEndpoint {
  readonly handle: RouteHandler;
  readonly sessionCount: number;
  /** Sessions whose notification stream (GET) is open. */
  readonly streamCount: number;
  /** Closes idle sessions and notification streams past their age now (also runs on a timer). */
  sweep(): void;
  /** Closes every session of one client (its key was revoked); returns how many. */
  closeClient(clientId: string): number;
  /** A caller refused before MCP (401, 403, 429) as a JSON-RPC error, with CORS for listed origins. */
  refusal(error: AppError, errors: ErrorTable, request: Request): Response;
  /**
   * Refuses new requests, ends every notification stream, lets requests in flight finish for up to
   * `drainMs`, then closes every session (their resource subscriptions end). Idempotent.
   */
  close(drainMs?: number): Promise<void>;
}

interface Session {
  readonly id: string;
  readonly clientId: string;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  readonly server: Server;
  lastActive: number;
  /** Requests being handled plus response streams still open (POST results, the GET stream). */
  open: number;
  /** The open notification stream: since when, and how to end it. */
  stream: { readonly since: number; readonly stop: () => void } | undefined;
}

const CALLER = 'vigil.caller';

/**
 * MCP Streamable HTTP at `/mcp`: stateful sessions (`Mcp-Session-Id`), one MCP server per session,
 * POST for requests, GET for the server's notification stream, DELETE to end a session, OPTIONS for
 * CORS preflights. Host and Origin are checked first (mcp-guard.ts).
 *
 * A session belongs to the client that initialized it: a request from any other client naming it is
 * answered 404, as for an unknown session, so a leaked session id is of no use to anyone else.
 * Sessions are bounded in total and per client (mcp-sessions.ts); at a bound only an idle session
 * of the same client is replaced, else the new session gets 503 with Retry-After. Sessions idle for
 * `idleMs` are closed.
 *
 * Notification streams carry SSE keep-alive comments, so a connection whose client vanished fails a
 * write and closes (the HTTP adapter aborts the request's signal); and they are closed after
 * `streamMaxAgeMs` (clients reconnect), so no stream holds a session open for ever.
 */
export function createMcpHttpEndpoint(options: McpHttpOptions): McpHttpEndpoint {
  const { logger, maxSessions, idleMs } = options;
  const now = options.now ?? Date.now;
  const streamMaxAgeMs = options.streamMaxAgeMs ?? idleMs;
  const createServer = createMcpServerFactory(options.server);
  const guard = createMcpGuard(options);
  const sessions = new SessionTable<Session>(
    maxSessions,
    options.maxSessionsPerClient ?? Math.min(maxSessions, MAX_SESSIONS_PER_CLIENT),
  );
  let closing = false;
  let closed: Promise<void> | undefined;
  /** Requests and streams open over all sessions; `drained` wakes when it reaches 0. */
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const sweeper = setInterval(() => sweep(), Math.max(50, Math.min(idleMs / 2, streamMaxAgeMs / 2, 60_000)));
  sweeper.unref();

  function sweep(): void {
    const at = now();
    for (const session of sessions.values()) {
      if (session.stream && at - session.stream.since >= streamMaxAgeMs) {
        logger.debug({ session: session.id }, 'mcp notification stream closed at its maximum age');
        session.stream.stop();
      }
      if (session.open === 0 && session.lastActive <= at - idleMs) {
        logger.info({ session: session.id }, 'mcp session expired (idle)');
        void closeSession(session);
      }
    }
  }

  async function closeSession(session: Session): Promise<void> {
    sessions.delete(session);
    session.stream?.stop();
    await session.transport.close().catch(() => {});
  }

  /** Counts the request, and its response body until the body ends. */
  async function serve(session: Session, request: Request, run: () => Promise<Response>): Promise<Response> {
    session.open++;
    inFlight++;
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
    const isStream = request.method === 'GET' && response.status === 200;
    let stream: Session['stream'];
    const tracked = trackBody(response, {
      signal: request.signal,
      closeConnection: isStream,
      onEnd: () => {
        if (session.stream === stream) session.stream = undefined;
        release(session);
      },
    });
    if (isStream && !tracked.stopped) {
      stream = { since: now(), stop: tracked.stop };
      session.stream = stream;
    }
    return tracked.response;
  }

  function release(session: Session): void {
    session.open--;
    session.lastActive = now();
    if (--inFlight === 0) drained?.();
  }

  async function openSession(
    request: Request,
    authInfo: AuthInfo,
    clientId: string,
    expiresAt: Date | null | undefined,
  ): Promise<Response> {
    const body = await readJson(request);
    if (!body.ok) return body.response;
    const messages = Array.isArray(body.value) ? body.value : [body.value];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    }
    const admission = sessions.reserve(clientId);
    if (!admission.ok) return rpcError(503, -32000, admission.message, { 'retry-after': '30' });
    if (admission.evicted) {
      logger.info({ session: admission.evicted.id, clientId }, 'mcp session replaced by a newer one');
      void closeSession(admission.evicted);
    }
    // The reservation ends when the session is registered (or its initialization fails), so the
    // client is never counted twice.
    let reserved = true;
    const settle = () => {
      if (reserved) sessions.settle(clientId);
      reserved = false;
    };
    const server = createServer(callerOfRequest);
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
      keepAliveMs: options.keepAliveMs ?? MCP_KEEP_ALIVE_MS,
      onsessioninitialized: (id) => {
        session = { id, clientId, transport, server, lastActive: now(), open: 0, stream: undefined };
        sessions.add(session);
        settle();
      },
    });
    // A session opened with a key ends when the key expires (its streams with it).
    let cancelExpiry = () => {};
    transport.onclose = () => {
      cancelExpiry();
      if (session) sessions.delete(session);
    };
    let response: Response;
    try {
      await server.connect(transport);
      response = await transport.handleRequest(request, { parsedBody: body.value, authInfo });
    } finally {
      settle();
    }
    if (!session) {
      // The initialize request was refused (bad headers, a batch): nothing was registered.
      await transport.close().catch(() => {});
      return response;
    }
    if (closing) {
      // Stopped while this session was being initialized.
      void closeSession(session);
      return response;
    }
    const opened = session;
    cancelExpiry = onExpiry(expiresAt, () => {
      logger.info({ session: opened.id }, 'mcp session closed: its API key expired');
      void closeSession(opened);
    });
    return serve(session, request, async () => response);
  }

  async function route(request: Request, context: RouteContext): Promise<Response> {
    if (closing) return rpcError(503, -32000, 'the server is shutting down');
    const caller: Caller = {
      request,
      viewer: options.identify?.(request, context) ?? context.viewer,
    };
    const clientId = caller.viewer?.clientId ?? 'unknown';
    // The SDK hands `authInfo` to every handler of the messages this request carries: it is how
    // each tool call learns the request (and so the client) it came from.
    const authInfo: AuthInfo = { token: '', clientId, scopes: [], extra: { [CALLER]: caller } };
    const id = request.headers.get('mcp-session-id');
    if (id === null) {
      if (request.method !== 'POST') {
        return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      }
      return openSession(request, authInfo, clientId, caller.viewer?.principal.expiresAt);
    }
    const session = sessions.get(id);
    if (!session || session.clientId !== clientId) {
      if (session) logger.debug({ session: id, clientId }, 'mcp session named by another client');
      return rpcError(404, -32001, 'Session not found');
    }
    return serve(session, request, () => session.transport.handleRequest(request, { authInfo }));
  }

  return {
    get sessionCount() {
      return sessions.size;
    },
    get streamCount() {
      let count = 0;
      for (const session of sessions.values()) if (session.stream) count++;
      return count;
    },
    sweep,

    refusal: guard.refusal,

    closeClient(clientId) {
      const owned = [...sessions.values()].filter((session) => session.clientId === clientId);
      for (const session of owned) void closeSession(session);
      return owned.length;
    },

    async handle(request, context) {
      const refused = guard.refuse(request);
      if (refused) return refused;
      if (request.method === 'OPTIONS') return guard.preflight(request);
      return guard.withCors(request, await route(request, context));
    },

    close(drainMs = 0) {
      closed ??= (async () => {
        closing = true;
        clearInterval(sweeper);
        for (const session of sessions.values()) session.stream?.stop();
        if (inFlight > 0 && drainMs > 0) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => drained?.(), drainMs);
            drained = () => {
              clearTimeout(timer);
              drained = undefined;
              resolve();
            };
          });
        }
        await Promise.all([...sessions.values()].map(closeSession));
      })();
      return closed;
    },
  };
}

/** The caller the HTTP layer attached to the request that carried this message. */
function callerOfRequest(extra: McpRequestExtra): Caller {
  const caller = extra.authInfo?.extra?.[CALLER] as Caller | undefined;
  return caller ?? {};
}

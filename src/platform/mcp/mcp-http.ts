import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { onExpiry } from '../access/expiry.ts';
import type { AppError, ErrorTable } from '../errors.ts';
import type { Viewer } from '../http/client-identity.ts';
import type { RouteContext, RouteHandler } from '../http/http-routes.ts';
import type { Logger } from '../observability/logger.ts';
import type { Caller } from '../operations/tool.ts';
import { readJson, rpcError } from './mcp-body.ts';
import { createMcpGuard, type McpGuard, type McpGuardOptions } from './mcp-guard.ts';
import { type McpRateLimit, McpRequestLimit, screenPost, withRefusals } from './mcp-post.ts';
import { type CallerSource, createMcpServerFactory, type McpServerOptions } from './mcp-server.ts';
import { CALLER, initializeSession } from './mcp-session-open.ts';
import { type HttpSession, SessionTraffic } from './mcp-session-traffic.ts';
import { MAX_SESSIONS_PER_CLIENT, SessionTable } from './mcp-sessions.ts';

export { MAX_MCP_BODY_BYTES } from './mcp-body.ts';
export { isLoopbackAddress } from './mcp-guard.ts';

/** Interval of SSE keep-alive comments on response streams (the SDK transport writes them). */
export const MCP_KEEP_ALIVE_MS = 15_000;

/** Bytes the answers to one POST (a batch) may take before its remaining requests are refused. */
export const DEFAULT_MCP_BATCH_MAX_BYTES = 4 * 1024 * 1024;

/** A POST response with no answer for this long is closed (the request is not answered). */
export const DEFAULT_MCP_STREAM_STALL_MS = 300_000;

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
  /** JSON-RPC requests per client (each element of a batch counts); unset, not limited. */
  readonly rateLimit?: McpRateLimit;
  /** Bytes of answers one POST may get (default DEFAULT_MCP_BATCH_MAX_BYTES); see Exchange. */
  readonly batchMaxBytes?: number;
  /** A POST response without progress for this long is closed (default DEFAULT_MCP_STREAM_STALL_MS). */
  readonly stallMs?: number;
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

/**
 * MCP Streamable HTTP at `/mcp`: stateful sessions (`Mcp-Session-Id`), one MCP server per session,
 * POST for requests, GET for the server's notification stream, DELETE to end a session, OPTIONS for
 * CORS preflights. Host and Origin are checked first (mcp-guard.ts).
 *
 * A session belongs to the client that initialized it: a request from any other client naming it is
 * answered 404, as for an unknown session, so a leaked session id is of no use to anyone else.
 * Sessions are bounded in total and per client (mcp-sessions.ts); at a bound an idle session is
 * replaced (the client's own, or the biggest holder's), else the new session gets 503 with
 * Retry-After. Sessions idle for `idleMs` are closed.
 *
 * Each JSON-RPC request (each element of a batch) counts against the client's `rateLimit`, and a
 * request reusing an id in flight on its session is refused (mcp-post.ts); a POST's requests run in
 * order, their answers bounded by `batchMaxBytes`, and a POST response with no progress for
 * `stallMs` is closed (mcp-exchanges.ts).
 *
 * Notification streams carry SSE keep-alive comments, so a connection whose client vanished fails a
 * write and closes (the HTTP adapter aborts the request's signal); and they are closed after
 * `streamMaxAgeMs` (clients reconnect), so no stream holds a session open for ever.
 */
export function createMcpHttpEndpoint(options: McpHttpOptions): McpHttpEndpoint {
  return new StreamableHttpEndpoint(options);
}

class StreamableHttpEndpoint implements McpHttpEndpoint {
  readonly #options: McpHttpOptions;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #streamMaxAgeMs: number;
  readonly #stallMs: number;
  readonly #limit: McpRequestLimit | undefined;
  readonly #createServer: (caller: CallerSource) => Server;
  readonly #guard: McpGuard;
  readonly #sessions: SessionTable<HttpSession>;
  readonly #traffic: SessionTraffic;
  readonly #sweeper: NodeJS.Timeout;
  #closing = false;
  #closed: Promise<void> | undefined;

  constructor(options: McpHttpOptions) {
    const { maxSessions, idleMs } = options;
    this.#options = options;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#streamMaxAgeMs = options.streamMaxAgeMs ?? idleMs;
    this.#stallMs = options.stallMs ?? DEFAULT_MCP_STREAM_STALL_MS;
    this.#limit = options.rateLimit && new McpRequestLimit(options.rateLimit);
    this.#createServer = createMcpServerFactory(options.server);
    this.#guard = createMcpGuard(options);
    this.#sessions = new SessionTable<HttpSession>(
      maxSessions,
      options.maxSessionsPerClient ?? Math.min(maxSessions, MAX_SESSIONS_PER_CLIENT),
    );
    this.#traffic = new SessionTraffic(this.#now);
    const sweepEvery = Math.max(
      50,
      Math.min(idleMs / 2, this.#streamMaxAgeMs / 2, this.#stallMs / 2, 60_000),
    );
    this.#sweeper = setInterval(() => this.sweep(), sweepEvery);
    this.#sweeper.unref();
  }

  get sessionCount(): number {
    return this.#sessions.size;
  }

  get streamCount(): number {
    let count = 0;
    for (const session of this.#sessions.values()) if (session.stream) count++;
    return count;
  }

  // Bound: the route table and the access gate hold these apart from the endpoint.
  readonly handle: RouteHandler = async (request, context) => {
    const refused = this.#guard.refuse(request);
    if (refused) return refused;
    if (request.method === 'OPTIONS') return this.#guard.preflight(request);
    return this.#guard.withCors(request, await this.#route(request, context));
  };

  readonly refusal: McpHttpEndpoint['refusal'] = (error, errors, request) =>
    this.#guard.refusal(error, errors, request);

  sweep(): void {
    const at = this.#now();
    for (const session of this.#sessions.values()) {
      if (session.stream && at - session.stream.since >= this.#streamMaxAgeMs) {
        this.#logger.debug({ session: session.id }, 'mcp notification stream closed at its maximum age');
        session.stream.stop();
      }
      if (this.#traffic.closeStalled(session, this.#stallMs) > 0) {
        this.#logger.info({ session: session.id }, 'mcp response closed: no answer for too long');
      }
      if (session.open === 0 && session.lastActive <= at - this.#options.idleMs) {
        this.#logger.info({ session: session.id }, 'mcp session expired (idle)');
        void this.#closeSession(session);
      }
    }
  }

  closeClient(clientId: string): number {
    const owned = [...this.#sessions.values()].filter((session) => session.clientId === clientId);
    for (const session of owned) void this.#closeSession(session);
    return owned.length;
  }

  close(drainMs = 0): Promise<void> {
    this.#closed ??= this.#shutDown(drainMs);
    return this.#closed;
  }

  async #shutDown(drainMs: number): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweeper);
    for (const session of this.#sessions.values()) session.stream?.stop();
    await this.#traffic.drain(drainMs);
    await Promise.all([...this.#sessions.values()].map((session) => this.#closeSession(session)));
  }

  async #closeSession(session: HttpSession): Promise<void> {
    this.#sessions.delete(session);
    session.stream?.stop();
    await session.transport.close().catch(() => {});
  }

  /** A request past the guard: to its session, or, without one, an `initialize` opening one. */
  async #route(request: Request, context: RouteContext): Promise<Response> {
    if (this.#closing) return rpcError(503, -32000, 'the server is shutting down');
    const caller: Caller = {
      request,
      viewer: this.#options.identify?.(request, context) ?? context.viewer,
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
      return this.#openSession(request, authInfo, caller.viewer?.principal.expiresAt);
    }
    const session = this.#sessions.get(id);
    if (!session || session.clientId !== clientId) {
      if (session) this.#logger.debug({ session: id, clientId }, 'mcp session named by another client');
      return rpcError(404, -32001, 'Session not found');
    }
    if (request.method !== 'POST') {
      return this.#traffic.serve(session, request, () =>
        session.transport.handleRequest(request, { authInfo }),
      );
    }
    const body = await readJson(request);
    if (!body.ok) return body.response;
    // Screening and opening the exchange happen in one go: no other POST can take an id in between.
    const screened = screenPost(
      body.value,
      (requestId) => session.exchanges.inFlight(requestId),
      () => this.#limit?.charge(clientId),
    );
    const exchange = screened.ids.length > 0 ? session.exchanges.open(screened.ids) : undefined;
    return this.#traffic.serve(
      session,
      request,
      async () =>
        withRefusals(
          screened,
          screened.forward === undefined
            ? undefined
            : await session.transport.handleRequest(request, { parsedBody: screened.forward, authInfo }),
        ),
      exchange,
    );
  }

  /** An `initialize` without a session: a new session, when the bounds leave room for one. */
  async #openSession(
    request: Request,
    authInfo: AuthInfo,
    expiresAt: Date | null | undefined,
  ): Promise<Response> {
    const clientId = authInfo.clientId;
    const body = await readJson(request);
    if (!body.ok) return body.response;
    const messages = Array.isArray(body.value) ? body.value : [body.value];
    if (!messages.some((m) => isInitializeRequest(m))) {
      return rpcError(400, -32000, 'Bad Request: Mcp-Session-Id header is required (send initialize first)');
    }
    const limited = screenPost(
      body.value,
      () => false,
      () => this.#limit?.charge(clientId),
    );
    if (limited.forward === undefined) return withRefusals(limited, undefined);
    const admission = this.#sessions.reserve(clientId);
    if (!admission.ok) return rpcError(503, -32000, admission.message, { 'retry-after': '30' });
    if (admission.evicted) {
      this.#logger.info({ session: admission.evicted.id, clientId }, 'mcp session replaced by a newer one');
      void this.#closeSession(admission.evicted);
    }
    const { session, response } = await initializeSession(
      {
        sessions: this.#sessions,
        createServer: this.#createServer,
        keepAliveMs: this.#options.keepAliveMs ?? MCP_KEEP_ALIVE_MS,
        batchMaxBytes: this.#options.batchMaxBytes ?? DEFAULT_MCP_BATCH_MAX_BYTES,
        now: this.#now,
      },
      request,
      body.value,
      authInfo,
    );
    if (!session) return response;
    if (this.#closing) {
      // Stopped while this session was being initialized.
      void this.#closeSession(session);
      return response;
    }
    // A session opened with a key ends when the key expires (its streams with it).
    session.stopExpiry = onExpiry(expiresAt, () => {
      this.#logger.info({ session: session.id }, 'mcp session closed: its API key expired');
      void this.#closeSession(session);
    });
    return this.#traffic.serve(session, request, async () => response);
  }
}

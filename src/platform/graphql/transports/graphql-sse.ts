import { randomUUID } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import type { RequestParams, Response as SseResponse } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import { isJsonContentType, readBoundedBody } from '../../http/body.ts';
import type { Viewer } from '../../http/client-identity.ts';
import type { ServerContext } from '../../http/http-routes.ts';
import { type OriginList, originList } from '../../http/origins.ts';
import { untilBodyEnds } from '../../http/stream-slots.ts';
import type { OperationRunner } from '../../operations/runner.ts';
import { CSRF_HEADERS } from '../http-guard.ts';
import { asResult, failed, limitError, refusal, resultWithoutHttp } from './graphql-sse-answers.ts';
import { SseReservations } from './graphql-sse-reservations.ts';

/** graphql-sse's endpoint (the protocol's "single connection" and "distinct connections" modes). */
export const GRAPHQL_STREAM_PATH = '/graphql/stream';

/** Where graphql-sse's client sends a reserved stream's token. */
const TOKEN_HEADER = 'x-graphql-event-stream-token';
const TOKEN_QUERY = 'token';

/** A reservation (PUT) that no stream connects to in this long is dropped with its operations. */
export const RESERVATION_TIMEOUT_MS = 30_000;

export interface GraphqlSseOptions {
  /** Largest request body (GRAPHQL_MAX_BODY_BYTES, as on `/graphql`). */
  readonly maxBodyBytes: number;
  /** Reservations not yet connected one client may hold (WS_MAX_CONNECTIONS_PER_CLIENT). */
  readonly maxReservationsPerClient: number;
  /** Operations one reserved stream may carry at once (GRAPHQL_WS_MAX_SUBSCRIPTIONS). */
  readonly maxOperationsPerStream: number;
  readonly allowedOrigins: readonly string[];
  readonly reservationTimeoutMs?: number;
}

interface Caller {
  readonly viewer: Viewer;
  readonly server: ServerContext;
}

/** The handler of graphql-sse's protocol for the `/graphql/stream` route. */
export function createGraphqlSse(runner: OperationRunner, options: GraphqlSseOptions): GraphqlSse {
  return new GraphqlSse(runner, options);
}

/**
 * graphql-sse's protocol at `/graphql/stream`, for its client's single-connection mode (PUT
 * reserves a stream, GET opens it, POST adds operations, DELETE stops one) and distinct mode (one
 * POST with `Accept: text/event-stream` per operation). Operations run through the operation
 * runner, like graphql-ws: the same guards, limits, rate limits, error masking, scopes and
 * persisted-operation rules as `/graphql`. What Yoga's request parsing does on `/graphql` is done
 * here: bounded bodies, JSON only, a preflighted header on GET; a reserved stream answers only the
 * client that reserved it, reservations and their operations are bounded, and a reservation nobody
 * connects to is dropped. The open stream itself is counted and ended by the caller (StreamSlots).
 */
export class GraphqlSse {
  readonly #origins: OriginList;
  readonly #reservations: SseReservations;
  /** Who sent each request graphql-sse hands back to the hooks (the route authenticated them). */
  readonly #callers = new WeakMap<Request, Caller>();
  /** Requests of ours that open an abandoned reservation only to end it. */
  readonly #dropping = new WeakSet<Request>();
  readonly #handler = createHandler({
    authenticate: (req) => this.#authenticate(req.raw, req.method),
    onSubscribe: (req, params) => this.#subscribe(req.raw, req.method, params),
    onNext: (_ctx, _req, result) => resultWithoutHttp(result as ExecutionResult),
    // Every operation that got a result ends here, however it ended (done, stopped, its stream gone).
    onComplete: (_ctx, req) => this.#release(req.raw),
  });

  constructor(
    private readonly runner: OperationRunner,
    private readonly options: GraphqlSseOptions,
  ) {
    this.#origins = originList(options.allowedOrigins);
    this.#reservations = new SseReservations(
      {
        perClient: options.maxReservationsPerClient,
        operationsPerStream: options.maxOperationsPerStream,
        timeoutMs: options.reservationTimeoutMs ?? RESERVATION_TIMEOUT_MS,
      },
      (token) => void this.#drop(token),
    );
  }

  /** Serves one request of the protocol for a caller the route authenticated. */
  async handle(request: Request, caller: { viewer: Viewer; server: ServerContext }): Promise<Response> {
    const forwarded = await this.#acceptable(request);
    if (forwarded instanceof Response) return forwarded;
    this.#callers.set(forwarded, { viewer: caller.viewer, server: caller.server });
    const token = tokenOf(forwarded);
    const reservation = this.#reservations.get(token);
    const response = await this.#handler(forwarded);
    if (
      reservation &&
      token !== undefined &&
      response.status === 200 &&
      (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ) {
      // Connected: no longer a pending reservation; graphql-sse forgets it when the stream ends.
      const forget = this.#reservations.connect(token, reservation);
      request.signal.addEventListener('abort', forget, { once: true });
      return this.#withCors(untilBodyEnds(response, forget).response, request);
    }
    return this.#withCors(response, request);
  }

  /**
   * What Yoga's request parsing refuses on `/graphql`, refused here too: a GET a browser would not
   * have preflighted, a POST that is not JSON or is over the size limit. Returns the request to hand
   * to graphql-sse (a POST's body read, bounded), or the refusal.
   */
  async #acceptable(request: Request): Promise<Request | Response> {
    const method = request.method.toUpperCase();
    if (method === 'GET' && !preflighted(request)) {
      return this.#respond(
        refusal(
          'CSRF_HEADER_REQUIRED',
          `a GET on this stream needs a header a browser would preflight: ${TOKEN_HEADER} or ${CSRF_HEADERS[0]}: 1`,
          403,
          { headers: [TOKEN_HEADER, ...CSRF_HEADERS] },
        ),
        request,
      );
    }
    if (method !== 'POST') return request;
    const type = request.headers.get('content-type');
    if (type === null || !isJsonContentType(type)) {
      return this.#respond(refusal('UNSUPPORTED_MEDIA_TYPE', 'send the operation as JSON', 415), request);
    }
    const limitBytes = this.options.maxBodyBytes;
    const body = await readBoundedBody(request, limitBytes);
    if (body === undefined) {
      const message = `the request body is over the limit of ${limitBytes} bytes`;
      return this.#respond(refusal('PAYLOAD_TOO_LARGE', message, 413, { limitBytes }), request);
    }
    return new Request(request.url, {
      method,
      headers: request.headers,
      body: body as unknown as BodyInit,
      signal: request.signal,
    });
  }

  /**
   * graphql-sse asks which stream a request is for: a new reservation (PUT), the caller's own
   * reserved stream, or none (distinct connections).
   */
  #authenticate(raw: Request, method: string): SseResponse | string | undefined {
    if (this.#dropping.has(raw)) return tokenOf(raw);
    const caller = this.#callers.get(raw)!;
    if (method === 'PUT') return this.#reserve(caller.viewer.clientId);
    const token = tokenOf(raw);
    if (token === undefined) return randomUUID(); // distinct connections: no stream to find
    const reservation = this.#reservations.get(token);
    if (!reservation || reservation.owner !== caller.viewer.clientId) {
      return refusal('NOT_FOUND', 'no reserved stream has this token', 404);
    }
    return token;
  }

  #reserve(owner: string): SseResponse | string {
    const limit = this.options.maxReservationsPerClient;
    if (this.#reservations.atLimit(owner)) {
      return refusal(
        'SUBSCRIPTION_LIMIT',
        `at most ${limit} reserved streams per client that are not open yet (WS_MAX_CONNECTIONS_PER_CLIENT)`,
        429,
        { limit, setting: 'WS_MAX_CONNECTIONS_PER_CLIENT' },
      );
    }
    return this.#reservations.reserve(owner);
  }

  /** An operation sent for a stream: it takes a place on its reserved stream (if any), then runs. */
  async #subscribe(raw: Request, method: string, params: RequestParams) {
    const reservation = this.#reservations.get(tokenOf(raw));
    // Counted before any await, so operations sent at once cannot all pass the check.
    if (reservation && !this.#reservations.admit(reservation, raw)) {
      const limit = this.options.maxOperationsPerStream;
      return failed([
        limitError(
          `at most ${limit} operations per stream (GRAPHQL_WS_MAX_SUBSCRIPTIONS); complete one first`,
          limit,
        ),
      ]);
    }
    try {
      return await this.#run(raw, method, params);
    } catch (error) {
      this.#release(raw);
      throw error;
    }
  }

  /** Runs the operation through the runner, as on `/graphql`; mutations only over POST. */
  async #run(raw: Request, method: string, params: RequestParams) {
    const caller = this.#callers.get(raw)!;
    const prepared = await this.runner.prepareClientOperation(
      {
        document: params.query,
        operationName: params.operationName ?? undefined,
        variables: params.variables ?? undefined,
        request: raw,
        viewer: caller.viewer,
        transport: { req: caller.server.req, res: caller.server.res },
      },
      params.extensions,
    );
    if (!prepared.ok) return failed(prepared.errors);
    if (prepared.operation === 'mutation' && method === 'GET') {
      this.#release(raw);
      return refusal('METHOD_NOT_ALLOWED', 'mutations cannot run over GET: use POST', 405);
    }
    const result =
      prepared.operation === 'subscription'
        ? await prepared.subscribe(prepared.args)
        : await prepared.execute(prepared.args);
    return Symbol.asyncIterator in result ? result : asResult(result);
  }

  #release(raw: Request): void {
    this.#reservations.release(raw, tokenOf(raw));
  }

  /**
   * graphql-sse keeps a reservation until a stream it opened ends: opening it with a request that
   * is already aborted makes it end at once, returning every operation queued on it.
   */
  async #drop(token: string): Promise<void> {
    if (!this.#reservations.takeAbandoned(token)) return;
    const controller = new AbortController();
    controller.abort();
    const request = new Request(`http://localhost${GRAPHQL_STREAM_PATH}`, {
      headers: { accept: 'text/event-stream', [TOKEN_HEADER]: token },
      signal: controller.signal,
    });
    this.#dropping.add(request);
    const response = await this.#handler(request).catch(() => undefined);
    await response?.body?.cancel().catch(() => {});
  }

  #respond([body, init]: SseResponse, request: Request): Response {
    return this.#withCors(
      new Response(body as string, { status: init.status, headers: init.headers }),
      request,
    );
  }

  #withCors(response: Response, request: Request): Response {
    const origin = this.#origins.listed(request);
    if (!origin) return response;
    const headers = new Headers(response.headers);
    headers.set('access-control-allow-origin', origin);
    headers.append('vary', 'origin');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

/** A GET that a browser would have preflighted (a page elsewhere cannot send it with a plain link). */
function preflighted(request: Request): boolean {
  const type = request.headers.get('content-type');
  return (
    (request.headers.get(TOKEN_HEADER) ?? '') !== '' ||
    CSRF_HEADERS.some((name) => (request.headers.get(name) ?? '') !== '') ||
    (type !== null && isJsonContentType(type))
  );
}

function tokenOf(request: Request): string | undefined {
  const header = request.headers.get(TOKEN_HEADER);
  if (header) return header;
  return new URL(request.url).searchParams.get(TOKEN_QUERY) ?? undefined;
}

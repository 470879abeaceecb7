import { randomUUID } from 'node:crypto';
import { type ExecutionResult, GraphQLError } from 'graphql';
import type { Response as SseResponse } from 'graphql-sse';
import { createHandler } from 'graphql-sse/lib/use/fetch';
import { isJsonContentType, readBoundedBody } from '../../http/body.ts';
import type { Viewer } from '../../http/client-identity.ts';
import type { ServerContext } from '../../http/http-routes.ts';
import { originList } from '../../http/origins.ts';
import { untilBodyEnds } from '../../http/stream-slots.ts';
import type { OperationRunner } from '../../operations/runner.ts';
import { withoutHttp } from '../graphql-errors.ts';
import { CSRF_HEADERS } from '../http-guard.ts';

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

interface Reservation {
  readonly owner: string;
  operations: number;
  connected: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

interface Caller {
  readonly viewer: Viewer;
  readonly server: ServerContext;
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
export function createGraphqlSse(runner: OperationRunner, options: GraphqlSseOptions) {
  const origins = originList(options.allowedOrigins);
  const timeoutMs = options.reservationTimeoutMs ?? RESERVATION_TIMEOUT_MS;
  const callers = new WeakMap<Request, Caller>();
  const counted = new WeakSet<Request>();
  /** Requests of ours that open an abandoned reservation only to end it. */
  const dropping = new WeakSet<Request>();
  const reservations = new Map<string, Reservation>();
  const pendingOf = (owner: string) =>
    [...reservations.values()].filter((r) => r.owner === owner && !r.connected).length;

  const handler = createHandler({
    authenticate(req) {
      if (dropping.has(req.raw)) return tokenOf(req.raw);
      const caller = callers.get(req.raw)!;
      if (req.method === 'PUT') {
        if (pendingOf(caller.viewer.clientId) >= options.maxReservationsPerClient) {
          return refusal(
            'SUBSCRIPTION_LIMIT',
            `at most ${options.maxReservationsPerClient} reserved streams per client that are not open yet (WS_MAX_CONNECTIONS_PER_CLIENT)`,
            429,
            { limit: options.maxReservationsPerClient, setting: 'WS_MAX_CONNECTIONS_PER_CLIENT' },
          );
        }
        // The token is a bearer of the stream: unguessable, and never one the client chose.
        const token = randomUUID();
        const reservation: Reservation = { owner: caller.viewer.clientId, operations: 0, connected: false };
        reservation.timer = setTimeout(() => void drop(token), timeoutMs);
        reservation.timer.unref?.();
        reservations.set(token, reservation);
        return token;
      }
      const token = tokenOf(req.raw);
      if (token === undefined) return randomUUID(); // distinct connections: no stream to find
      const reservation = reservations.get(token);
      if (!reservation || reservation.owner !== caller.viewer.clientId) {
        return refusal('NOT_FOUND', 'no reserved stream has this token', 404);
      }
      return token;
    },
    async onSubscribe(req, params) {
      const caller = callers.get(req.raw)!;
      const reservation = reservations.get(tokenOf(req.raw) ?? '');
      if (reservation) {
        if (reservation.operations >= options.maxOperationsPerStream) {
          return failed([
            limitError(
              `at most ${options.maxOperationsPerStream} operations per stream (GRAPHQL_WS_MAX_SUBSCRIPTIONS); complete one first`,
              options.maxOperationsPerStream,
            ),
          ]);
        }
        // Counted before any await, so operations sent at once cannot all pass the check.
        reservation.operations += 1;
        counted.add(req.raw);
      }
      try {
        const prepared = await runner.prepareClientOperation(
          {
            document: params.query,
            operationName: params.operationName ?? undefined,
            variables: params.variables ?? undefined,
            request: req.raw,
            viewer: caller.viewer,
            transport: { req: caller.server.req, res: caller.server.res },
          },
          params.extensions,
        );
        if (!prepared.ok) return failed(prepared.errors);
        if (prepared.operation === 'mutation' && req.method === 'GET') {
          release(req.raw);
          return refusal('METHOD_NOT_ALLOWED', 'mutations cannot run over GET: use POST', 405);
        }
        const result =
          prepared.operation === 'subscription'
            ? await prepared.subscribe(prepared.args)
            : await prepared.execute(prepared.args);
        return Symbol.asyncIterator in result ? result : asResult(result);
      } catch (error) {
        release(req.raw);
        throw error;
      }
    },
    onNext: (_ctx, _req, result) => resultWithoutHttp(result as ExecutionResult),
    // Every operation that got a result ends here, however it ended (done, stopped, its stream gone).
    onComplete: (_ctx, req) => release(req.raw),
  });

  /** An operation of a reserved stream ended: its place is free again. */
  function release(raw: Request): void {
    if (!counted.has(raw)) return;
    counted.delete(raw);
    const reservation = reservations.get(tokenOf(raw) ?? '');
    if (reservation) reservation.operations = Math.max(0, reservation.operations - 1);
  }

  /**
   * graphql-sse keeps a reservation until a stream it opened ends: opening it with a request that
   * is already aborted makes it end at once, returning every operation queued on it.
   */
  async function drop(token: string): Promise<void> {
    const reservation = reservations.get(token);
    if (!reservation || reservation.connected) return;
    reservations.delete(token);
    const controller = new AbortController();
    controller.abort();
    const request = new Request(`http://localhost${GRAPHQL_STREAM_PATH}`, {
      headers: { accept: 'text/event-stream', [TOKEN_HEADER]: token },
      signal: controller.signal,
    });
    dropping.add(request);
    const response = await handler(request).catch(() => undefined);
    await response?.body?.cancel().catch(() => {});
  }

  return {
    /** Serves one request of the protocol for a caller the route authenticated. */
    async handle(request: Request, caller: { viewer: Viewer; server: ServerContext }): Promise<Response> {
      const method = request.method.toUpperCase();
      let forwarded = request;
      if (method === 'GET' && !preflighted(request)) {
        return respond(
          refusal(
            'CSRF_HEADER_REQUIRED',
            `a GET on this stream needs a header a browser would preflight: ${TOKEN_HEADER} or ${CSRF_HEADERS[0]}: 1`,
            403,
            { headers: [TOKEN_HEADER, ...CSRF_HEADERS] },
          ),
          request,
        );
      }
      if (method === 'POST') {
        const type = request.headers.get('content-type');
        if (type === null || !isJsonContentType(type)) {
          return respond(refusal('UNSUPPORTED_MEDIA_TYPE', 'send the operation as JSON', 415), request);
        }
        const body = await readBoundedBody(request, options.maxBodyBytes);
        if (body === undefined) {
          const message = `the request body is over the limit of ${options.maxBodyBytes} bytes`;
          return respond(
            refusal('PAYLOAD_TOO_LARGE', message, 413, { limitBytes: options.maxBodyBytes }),
            request,
          );
        }
        forwarded = new Request(request.url, {
          method,
          headers: request.headers,
          body: body as unknown as BodyInit,
          signal: request.signal,
        });
      }
      callers.set(forwarded, { viewer: caller.viewer, server: caller.server });
      const token = tokenOf(forwarded);
      const reservation = token === undefined ? undefined : reservations.get(token);
      const response = await handler(forwarded);
      if (
        reservation &&
        token !== undefined &&
        response.status === 200 &&
        (response.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ) {
        // Connected: no longer a pending reservation; graphql-sse forgets it when the stream ends.
        reservation.connected = true;
        clearTimeout(reservation.timer);
        const forget = () => reservations.delete(token);
        request.signal.addEventListener('abort', forget, { once: true });
        return withCors(untilBodyEnds(response, forget).response, request);
      }
      return withCors(response, request);
    },
  };

  function respond([body, init]: SseResponse, request: Request): Response {
    return withCors(new Response(body as string, { status: init.status, headers: init.headers }), request);
  }

  function withCors(response: Response, request: Request): Response {
    const origin = origins.listed(request);
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

/**
 * A refusal before any operation, in GraphQL's error shape, as graphql-sse answers its own:
 * `[body, init]` is how its handler hooks answer with a response.
 */
function refusal(
  code: string,
  message: string,
  status: number,
  details: Record<string, unknown> = {},
): SseResponse {
  return [
    JSON.stringify({ errors: [{ message, extensions: { code, ...details } }] }),
    { status, statusText: '', headers: { 'content-type': 'application/json; charset=utf-8' } },
  ];
}

/**
 * graphql-sse takes a result for one only when it has a `data` key; a result of errors alone
 * (nothing ran) keeps the key, undefined, so it is not mistaken for arguments and not sent.
 */
function asResult(result: ExecutionResult): ExecutionResult {
  return 'data' in result ? result : { data: undefined, ...result };
}

function failed(errors: readonly GraphQLError[]): ExecutionResult {
  return asResult({ errors: errors.map(withoutHttp) });
}

function resultWithoutHttp(result: ExecutionResult): ExecutionResult {
  return result.errors ? { ...result, errors: result.errors.map(withoutHttp) } : result;
}

function limitError(message: string, limit: number): GraphQLError {
  return new GraphQLError(message, {
    extensions: { code: 'SUBSCRIPTION_LIMIT', limit, setting: 'GRAPHQL_WS_MAX_SUBSCRIPTIONS' },
  });
}

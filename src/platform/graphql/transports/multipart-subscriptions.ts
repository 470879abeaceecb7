import type { ExecutionResult, GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/**
 * Apollo's multipart subscription protocol (what Apollo Client's HttpLink sends for subscriptions):
 * the client accepts `multipart/mixed;subscriptionSpec="1.0"` (quoted or not, among other types).
 */
const ACCEPTS_MULTIPART_SUBSCRIPTIONS = /multipart\/mixed[^,]*subscriptionspec="?1\.0/i;

/** How often an idle stream says it is alive (Apollo's router uses the same period). */
export const MULTIPART_HEARTBEAT_MS = 5_000;

export const MULTIPART_CONTENT_TYPE = 'multipart/mixed;boundary="graphql";subscriptionSpec="1.0"';

const CLOSING = '\r\n--graphql--\r\n';

export interface MultipartSubscriptionsOptions {
  readonly heartbeatMs?: number;
}

/**
 * Serves subscriptions over HTTP multipart responses to clients that ask for them. Yoga answers
 * such a request 406 (it streams multipart only for incremental delivery, in another framing), so
 * this result processor takes over where Yoga found none, for subscriptions only: queries and
 * mutations keep Yoga's answers, and a client that also accepts SSE keeps SSE.
 *
 * Framing: every part is `\r\n--graphql\r\nContent-Type: application/json; charset=utf-8\r\n\r\n`
 * and a JSON object: `{}` is a heartbeat (one at once, so the headers leave, then every
 * `heartbeatMs`), `{"payload": result}` carries a result, `{"payload": null, "errors": [...]}`
 * ends the subscription on a failure, and `\r\n--graphql--\r\n` closes the stream (Apollo Client
 * waits for it). A client that goes away returns the subscription's iterator, freeing its source.
 */
export function multipartSubscriptionsPlugin(options: MultipartSubscriptionsOptions = {}): Plugin {
  const heartbeatMs = options.heartbeatMs ?? MULTIPART_HEARTBEAT_MS;
  const subscriptions = new WeakSet<Request>();
  return {
    onSubscribe({ args }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (request) subscriptions.add(request);
    },
    onResultProcess({ request, result, resultProcessor, setResultProcessor }) {
      if (resultProcessor || !subscriptions.has(request) || !isAsyncIterable(result)) return;
      if (!ACCEPTS_MULTIPART_SUBSCRIPTIONS.test(request.headers.get('accept') ?? '')) return;
      setResultProcessor(
        (results) => multipartResponse(results as AsyncIterable<ExecutionResult>, heartbeatMs),
        'multipart/mixed',
      );
    },
  };
}

function multipartResponse(results: AsyncIterable<ExecutionResult>, heartbeatMs: number): Response {
  const encoder = new TextEncoder();
  const part = (body: unknown) =>
    encoder.encode(
      `\r\n--graphql\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(body)}`,
    );
  let iterator: AsyncIterator<ExecutionResult> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let ended = false;
  const end = () => {
    ended = true;
    clearInterval(heartbeat);
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      iterator = results[Symbol.asyncIterator]();
      controller.enqueue(part({}));
      heartbeat = setInterval(() => {
        // A client that does not read gets no heartbeats queued behind what it has not read.
        if ((controller.desiredSize ?? 0) > 0) controller.enqueue(part({}));
      }, heartbeatMs);
    },
    async pull(controller) {
      try {
        const next = await iterator!.next();
        if (ended) return;
        if (next.done) {
          end();
          controller.enqueue(encoder.encode(CLOSING));
          controller.close();
          return;
        }
        controller.enqueue(part({ payload: wireResult(next.value) }));
      } catch (error) {
        if (ended) return;
        end();
        controller.enqueue(part({ payload: null, errors: [transportError(error)] }));
        controller.enqueue(encoder.encode(CLOSING));
        controller.close();
      }
    },
    async cancel() {
      end();
      await iterator?.return?.();
    },
  });
  return new Response(body, {
    status: 200,
    headers: { 'content-type': MULTIPART_CONTENT_TYPE, 'cache-control': 'no-cache' },
  });
}

/** A result as a client may see it: Yoga's internal markers (HTTP status, `unexpected`) removed. */
function wireResult(result: ExecutionResult): Record<string, unknown> {
  const wire: Record<string, unknown> = {};
  if (result.data !== undefined) wire.data = result.data;
  if (result.errors?.length) wire.errors = result.errors.map(wireError);
  const { http: _http, ...extensions } = (result.extensions ?? {}) as Record<string, unknown>;
  if (Object.keys(extensions).length > 0) wire.extensions = extensions;
  return wire;
}

function wireError(error: GraphQLError): Record<string, unknown> {
  const json = (typeof error.toJSON === 'function'
    ? error.toJSON()
    : { message: error.message }) as unknown as {
    extensions?: Record<string, unknown>;
  } & Record<string, unknown>;
  if (!json.extensions) return json;
  const { http: _http, unexpected: _unexpected, ...extensions } = json.extensions;
  const { extensions: _all, ...rest } = json;
  return Object.keys(extensions).length > 0 ? { ...rest, extensions } : rest;
}

/**
 * The subscription failed outside any result (Yoga turns errors of the source into a last result,
 * so this is rare): a GraphQL error keeps its message and code, anything else says nothing inside.
 */
function transportError(error: unknown): Record<string, unknown> {
  if (error instanceof Error && error.name === 'GraphQLError') return wireError(error as GraphQLError);
  return { message: 'Unexpected error.', extensions: { code: 'INTERNAL' } };
}

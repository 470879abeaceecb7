import { readJsonBody } from '../http/body.ts';

/** Largest JSON-RPC body accepted on `/mcp` (tool arguments are small). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

/** A JSON-RPC error answered over HTTP, before or instead of the SDK transport. */
export function rpcError(
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

/** The JSON of a request body, bounded (src/platform/http/body.ts); refusals as JSON-RPC errors. */
export async function readJson(
  request: Request,
): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const body = await readJsonBody(request, { limitBytes: MAX_MCP_BODY_BYTES });
  if (body.ok) return body;
  const { code, message } = body.failure;
  const response =
    code === 'PAYLOAD_TOO_LARGE'
      ? rpcError(413, -32000, `request body over ${MAX_MCP_BODY_BYTES} bytes`)
      : code === 'UNSUPPORTED_MEDIA_TYPE'
        ? rpcError(415, -32000, `Unsupported Media Type: ${message}`)
        : rpcError(400, -32700, `Parse error: ${message}`);
  return { ok: false, response };
}

export interface TrackedBody {
  readonly response: Response;
  /** True once the body ended (it may end at once, when the signal was already aborted). */
  readonly stopped: boolean;
  /** Ends the body now (the client sees the stream end) and cancels what produces it. */
  stop(): void;
}

/**
 * The same response, calling `onEnd` exactly once when its body is fully read, cancelled, stopped,
 * or when `signal` aborts. The HTTP adapter aborts a request's signal when its connection closes or
 * a write on it fails: without that, a response stream whose client vanished would only be noticed
 * by a read that never comes (the adapter waits for a `drain` that never comes either).
 *
 * A connection that carried the notification stream (`closeConnection`) is closed when the stream
 * ends rather than kept alive: a graceful stop must not wait out its keep-alive timeout.
 */
export function trackBody(
  response: Response,
  options: { readonly onEnd: () => void; readonly signal?: AbortSignal; readonly closeConnection: boolean },
): TrackedBody {
  const { onEnd, signal } = options;
  const reader = response.body!.getReader();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  const finish = (): boolean => {
    if (ended) return false;
    ended = true;
    signal?.removeEventListener('abort', stop);
    onEnd();
    return true;
  };
  function stop(): void {
    if (!finish()) return;
    try {
      controller.close();
    } catch {
      // Already closed or errored.
    }
    reader.cancel().catch(() => {});
  }
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    async pull(c) {
      try {
        const { done, value } = await reader.read();
        if (ended) return; // stopped while this read waited
        if (done) {
          finish();
          c.close();
        } else {
          c.enqueue(value);
        }
      } catch (error) {
        if (finish()) c.error(error);
      }
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  if (signal?.aborted) stop();
  else signal?.addEventListener('abort', stop, { once: true });
  const headers = new Headers(response.headers);
  if (options.closeConnection) headers.set('connection', 'close');
  return {
    response: new Response(body, { status: response.status, statusText: response.statusText, headers }),
    get stopped() {
      return ended;
    },
    stop,
  };
}

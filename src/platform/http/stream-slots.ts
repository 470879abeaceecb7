/**
 * Open server-sent-event streams per client. A GraphQL subscription over SSE is one HTTP response
 * that stays open; like WebSocket connections they are bounded per client, so one client cannot
 * hold thousands of them. A slot is taken when the server answers with a stream (a stream over the
 * limit is cancelled at once) and freed when the body ends, is cancelled, or the client goes away.
 */
export class StreamSlots {
  readonly #open = new Map<string, number>();

  constructor(readonly maxPerClient: number) {}

  /**
   * Counts an event-stream response against `clientId` until its body ends, is cancelled or the
   * client goes away; undefined when the client has no slot left (the caller then cancels it).
   * Decided on the response, not on the request's Accept header, which a client can spell so that
   * a check would miss it while the server still streams.
   */
  adopt(clientId: string, signal: AbortSignal, response: Response): Response | undefined {
    const open = this.#open.get(clientId) ?? 0;
    if (open >= this.maxPerClient) return undefined;
    this.#open.set(clientId, open + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.#open.get(clientId) ?? 1) - 1;
      if (left > 0) this.#open.set(clientId, left);
      else this.#open.delete(clientId);
    };
    signal.addEventListener('abort', release, { once: true });
    return untilBodyEnds(response, release);
  }

  /** Streams open for a client (for tests and listings). */
  openFor(clientId: string): number {
    return this.#open.get(clientId) ?? 0;
  }
}

/** The same response, calling `done` once when its body has been read to the end or cancelled. */
function untilBodyEnds(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          done();
          controller.close();
        } else {
          controller.enqueue(chunk.value);
        }
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** Is the response a server-sent-event stream (a subscription over SSE)? */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}

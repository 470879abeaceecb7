import { onExpiry } from '../access/expiry.ts';

/**
 * Open server-sent-event streams per client. A GraphQL subscription over SSE is one HTTP response
 * that stays open; like WebSocket connections they are bounded per client, so one client cannot
 * hold thousands of them. A slot is taken when the server answers with a stream (a stream over the
 * limit is cancelled at once) and freed when the body ends, is cancelled, or the client goes away.
 */
export class StreamSlots {
  readonly #open = new Map<string, number>();
  /** Open streams by framing, for the active-subscriptions gauge. */
  readonly #byKind = new Map<StreamKind, number>();
  /** How to end each open stream, per client (a revoked key's streams end at once). */
  readonly #enders = new Map<string, Set<() => void>>();

  constructor(readonly maxPerClient: number) {}

  /**
   * Counts an event-stream response against `clientId` until its body ends, is cancelled or the
   * client goes away; undefined when the client has no slot left (the caller then cancels it).
   * Decided on the response, not on the request's Accept header, which a client can spell so that
   * a check would miss it while the server still streams.
   */
  adopt(
    clientId: string,
    signal: AbortSignal,
    response: Response,
    expiresAt?: Date | null,
  ): Response | undefined {
    const open = this.#open.get(clientId) ?? 0;
    if (open >= this.maxPerClient) return undefined;
    this.#open.set(clientId, open + 1);
    const kind = streamKind(response);
    this.#byKind.set(kind, (this.#byKind.get(kind) ?? 0) + 1);
    let released = false;
    let enders = this.#enders.get(clientId);
    if (!enders) {
      enders = new Set();
      this.#enders.set(clientId, enders);
    }
    const ends = enders;
    let end = () => {};
    let cancelExpiry = () => {};
    const release = () => {
      if (released) return;
      released = true;
      cancelExpiry();
      ends.delete(end);
      if (ends.size === 0 && this.#enders.get(clientId) === ends) this.#enders.delete(clientId);
      const left = (this.#open.get(clientId) ?? 1) - 1;
      if (left > 0) this.#open.set(clientId, left);
      else this.#open.delete(clientId);
      this.#byKind.set(kind, Math.max(0, (this.#byKind.get(kind) ?? 1) - 1));
    };
    signal.addEventListener('abort', release, { once: true });
    const counted = untilBodyEnds(response, release);
    end = counted.end;
    ends.add(end);
    // A stream opened with a key ends when the key expires, as a WebSocket does.
    cancelExpiry = onExpiry(expiresAt, end);
    return counted.response;
  }

  /** Ends every stream of one client (its key was revoked); returns how many. */
  closeClient(clientId: string): number {
    const enders = [...(this.#enders.get(clientId) ?? [])];
    for (const end of enders) end();
    return enders.length;
  }

  /**
   * Ends every open stream (the server is stopping), so none holds its connection until the shutdown
   * deadline. A stream ends without a completion message: as with a WebSocket's 1001, the server
   * went away but the subscription did not end, and clients that retry subscribe again. Returns how
   * many.
   */
  endAll(): number {
    const enders = [...this.#enders.values()].flatMap((set) => [...set]);
    for (const end of enders) end();
    return enders.length;
  }

  /** Open streams by framing. */
  countByKind(): Readonly<Record<StreamKind, number>> {
    return { sse: this.#byKind.get('sse') ?? 0, multipart: this.#byKind.get('multipart') ?? 0 };
  }

  /** Streams open for a client (for tests and listings). */
  openFor(clientId: string): number {
    return this.#open.get(clientId) ?? 0;
  }
}

/**
 * The same response, calling `done` once when its body has been read to the end or cancelled; `end`
 * closes the body early (what the client has read stays valid; the upstream stream is cancelled).
 */
export function untilBodyEnds(response: Response, done: () => void): { response: Response; end: () => void } {
  if (!response.body) {
    done();
    return { response, end: () => {} };
  }
  const reader = response.body.getReader();
  let ended = false;
  let control: ReadableStreamDefaultController<Uint8Array> | undefined;
  const end = () => {
    if (ended) return;
    ended = true;
    done();
    void reader.cancel('ended by the server').catch(() => {});
    try {
      control?.close();
    } catch {
      // Already closed or errored.
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      control = controller;
    },
    async pull(controller) {
      if (ended) return;
      try {
        const chunk = await reader.read();
        if (ended) return;
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
  return {
    response: new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    }),
    end,
  };
}

/**
 * Is the response a stream that stays open: server-sent events (a subscription over SSE) or a
 * multipart subscription (Apollo's HTTP subscriptions)? `/graphql` sends multipart only for those.
 */
export function isEventStream(response: Response): boolean {
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  return type.startsWith('text/event-stream') || type.startsWith('multipart/mixed');
}

/** How an open stream frames its events: server-sent events or multipart parts. */
export type StreamKind = 'sse' | 'multipart';

function streamKind(response: Response): StreamKind {
  const type = (response.headers.get('content-type') ?? '').toLowerCase();
  return type.startsWith('multipart/mixed') ? 'multipart' : 'sse';
}

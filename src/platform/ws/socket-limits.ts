import type { WebSocket } from 'ws';

/** Close codes (RFC 6455 7.4.1). */
export const CLOSE_POLICY = 1008;
export const CLOSE_TOO_BIG = 1009;
export const CLOSE_TRY_AGAIN_LATER = 1013;

/** Bounds every WebSocket route applies (settings, see src/config.ts). */
export interface SocketLimits {
  /** Unsent bytes a socket may hold; a reader this far behind is skipped or closed (WS_MAX_BUFFERED_BYTES). */
  readonly maxBufferedBytes: number;
  /** Subscriptions one connection may start per second, sustained and at once (WS_SUBSCRIBE_*). */
  readonly subscribeRate: { readonly perSecond: number; readonly burst: number };
}

/**
 * A token bucket that refuses instead of queueing: a refused call costs nothing, so a client that
 * keeps trying is not pushed further into debt.
 */
export class RateGate {
  #tokens: number;
  #updatedAt: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.#tokens = burst;
    this.#updatedAt = now();
  }

  /** Takes a token when one is available; otherwise returns the milliseconds until one is. */
  tryTake(): { ok: true } | { ok: false; retryAfterMs: number } {
    this.#refill();
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: this.msUntilToken() };
  }

  /** Returns a token taken for something that turned out not to count. */
  giveBack(): void {
    this.#tokens = Math.min(this.burst, this.#tokens + 1);
  }

  /** Whether a token is available, without taking it. */
  peek(): boolean {
    this.#refill();
    return this.#tokens >= 1;
  }

  /** Milliseconds until a token is available (0 when one is). */
  msUntilToken(): number {
    this.#refill();
    return this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) / this.perSecond) * 1000);
  }

  #refill(): void {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#updatedAt) / 1000) * this.perSecond);
    this.#updatedAt = now;
  }
}

/** A close reason is at most 123 bytes of UTF-8; `ws` throws on a longer one. */
export function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/**
 * How long a slow reader gets to take the close frame before its socket is destroyed. A reader that
 * never reads would otherwise hold its backlog for the whole close timeout of `ws` (30 s).
 */
const SLOW_READER_GRACE_MS = 1_000;

const SLOW_READER_REASON = 'send buffer full (WS_MAX_BUFFERED_BYTES): read faster';

/** Ends the connection of a client that does not read what it is sent. */
export function closeSlowReader(socket: WebSocket): void {
  if (socket.readyState === socket.CLOSED) return;
  if (socket.readyState === socket.OPEN) socket.close(CLOSE_TRY_AGAIN_LATER, SLOW_READER_REASON);
  setTimeout(() => socket.terminate(), SLOW_READER_GRACE_MS).unref();
}

type SendCallback = (error?: Error) => void;

/**
 * Makes every send on `socket` check its unsent bytes first: over `maxBufferedBytes` the message is
 * not queued and the connection is closed as a slow reader. Libraries that own their sends
 * (graphql-ws) are bounded this way without knowing about it; code that can skip a message (latest-only
 * price data) checks `bufferedAmount` itself before sending.
 */
export function boundSends(socket: WebSocket, maxBufferedBytes: number): void {
  const send = socket.send.bind(socket) as (data: unknown, options?: object, cb?: SendCallback) => void;
  const bounded = (data: unknown, optionsOrCb?: object | SendCallback, cb?: SendCallback) => {
    // `ws` takes absent options as defaults: nothing is allocated for the common call, send(data).
    const options = typeof optionsOrCb === 'function' ? undefined : optionsOrCb;
    const callback = typeof optionsOrCb === 'function' ? (optionsOrCb as SendCallback) : cb;
    // A send fails only because the connection is ending, and its 'close' event tells the owner.
    // The error is not passed on: graphql-ws would print one "internal error" per queued message.
    const settled = callback ? () => callback() : undefined;
    if (socket.readyState === socket.OPEN && socket.bufferedAmount > maxBufferedBytes) {
      closeSlowReader(socket);
      // Callers awaiting the send must not wait forever for a message that is never queued.
      if (settled) process.nextTick(settled);
      return;
    }
    send(data, options, settled);
  };
  socket.send = bounded as WebSocket['send'];
}

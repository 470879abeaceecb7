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
 * The subscribe and message rates of a socket are token buckets that refuse (`tryTake`): a refused
 * call costs nothing, so a client that keeps trying is not pushed further into debt. `RateGate` is
 * the platform's one token bucket under the name the socket routes have used for it.
 */
export { TokenBucket as RateGate } from '../flow/token-bucket.ts';

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

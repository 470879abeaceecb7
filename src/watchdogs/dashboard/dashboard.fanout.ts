import type { WebSocket } from 'ws';
import { sendText } from '../../platform/ws/whole-frames.ts';
import type { WatchdogEvent } from '../events.repository.ts';
import { dashboardMessages } from './dashboard.protocol.ts';
import { eventWire } from './dashboard.wire.ts';

/**
 * What /dashboard/stream sends to many connections alike, built once: the bytes of a message
 * (stats, health, an event) are encoded a single time and the same Buffer is handed to every
 * socket that gets it. Nothing writes to such a Buffer after it is built.
 */

/** A message's bytes (its JSON, UTF-8), for any number of sockets. */
export function messageBytes(message: object): Buffer {
  return Buffer.from(JSON.stringify(message));
}

/** Event message bytes by event; an entry lives as long as the feed's event object. */
const eventMessages = new WeakMap<WatchdogEvent, Buffer>();

/**
 * The `event` message of `event`, built the first time a connection sends it: the event feed hands
 * every listener the same event object, so every connection the event passes gets the same bytes.
 */
export function eventBytes(event: WatchdogEvent): Buffer {
  let bytes = eventMessages.get(event);
  if (bytes === undefined) {
    bytes = messageBytes(dashboardMessages.event(eventWire(event)));
    eventMessages.set(event, bytes);
  }
  return bytes;
}

/** Sends shared bytes as a text message, as a string would go (one whole frame where it can). */
export function sendBytes(socket: WebSocket, bytes: Buffer): void {
  sendText(socket, bytes);
}

export type ReadResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * One read for everyone waiting on it, one read at a time. A read starts once the event loop has
 * taken in what was ready (so connections accepted together share it), and a waiter added while
 * a read is under way waits for the next: each waiter gets a read begun after it was added (for
 * the dashboard: stats that count its own connection). `done` gets the waiters in the order they
 * came (it must not throw); a waiter deleted before its read started is forgotten.
 */
export class SharedRead<W, T> {
  readonly #waiting = new Set<W>();
  /** A read is under way, or about to start. */
  #busy = false;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly done: (waiters: readonly W[], result: ReadResult<T>) => void,
  ) {}

  /** Waiters whose read has not started. */
  get waiting(): number {
    return this.#waiting.size;
  }

  add(waiter: W): void {
    this.#waiting.add(waiter);
    this.#next();
  }

  delete(waiter: W): void {
    this.#waiting.delete(waiter);
  }

  #next(): void {
    if (this.#busy || this.#waiting.size === 0) return;
    this.#busy = true;
    setImmediate(() => void this.#run());
  }

  async #run(): Promise<void> {
    const waiters = [...this.#waiting];
    this.#waiting.clear();
    let result: ReadResult<T> | undefined;
    if (waiters.length > 0) {
      try {
        result = { ok: true, value: await this.read() };
      } catch (error) {
        result = { ok: false, error };
      }
    }
    this.#busy = false;
    if (result) this.done(waiters, result);
    this.#next();
  }
}

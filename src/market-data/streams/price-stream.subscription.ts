import type { PriceTick } from '../hub/price-hub.ts';
import type { Instrument } from '../types.ts';
import { MinuteBars } from './ohlcv.ts';
import { messages, ohlcvItem, priceItem, type StreamType } from './price-stream.protocol.ts';

/** Where a subscription's data goes: its connection's socket. */
export interface DataOutlet {
  /** The socket holds more unsent bytes than it may (WS_MAX_BUFFERED_BYTES). */
  backedUp(): boolean;
  send(message: object): void;
}

/**
 * One price subscription of a plain-WebSocket connection: the latest update per symbol (or the
 * current and just-closed OHLCV bars) waits in `pending` and goes out at most once per interval. A
 * reader that is behind skips a message instead of growing a buffer; `pending` keeps only the
 * latest values, so nothing accumulates while it catches up.
 */
export class PriceSubscription {
  readonly instruments: Map<string, Instrument>;
  /** Leaves the hub, per symbol. */
  readonly leave = new Map<string, () => void>();
  readonly #pending = new Map<string, unknown>();
  readonly #bars = new Map<string, MinuteBars>();
  /** When the last data message went out, and the pending flush (if one is scheduled). */
  #lastSentAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #flushQueued = false;
  #ended = false;

  constructor(
    readonly id: string,
    readonly streamType: StreamType,
    readonly intervalMs: number,
    instruments: readonly Instrument[],
    private readonly outlet: DataOutlet,
  ) {
    this.instruments = new Map(instruments.map((i) => [i.symbol, i]));
  }

  onTick(tick: PriceTick): void {
    if (this.streamType !== 'ohlcv') {
      const item = priceItem(tick);
      // A snapshot overtaken before it went out passes its mark on: the first item still says so.
      const waiting = this.#pending.get(tick.symbol) as { snapshot?: boolean } | undefined;
      this.#pending.set(tick.symbol, waiting?.snapshot ? { ...item, snapshot: true } : item);
      // A symbol's first price goes out at once, whatever the interval: a client that adds a
      // symbol to a busy subscription must not wait an interval to see where it stands.
      this.#schedule(tick.snapshot === true);
      return;
    }
    // Bars are built from trades seen while subscribed; a snapshot is a price, not a trade.
    if (tick.snapshot) return;
    let bars = this.#bars.get(tick.symbol);
    if (!bars) {
      bars = new MinuteBars(tick.symbol);
      this.#bars.set(tick.symbol, bars);
    }
    const closed = bars.add(tick.price, tick.size, tick.asOf);
    // A closed bar must reach the client even if the next one already started; key it apart.
    if (closed) this.#pending.set(`${tick.symbol}@${closed.time.getTime()}`, ohlcvItem(closed));
    this.#pending.set(tick.symbol, ohlcvItem(bars.current()!));
    this.#schedule();
  }

  /** Stops delivering `symbol` and leaves its feed. */
  remove(symbol: string): void {
    this.leave.get(symbol)?.();
    this.leave.delete(symbol);
    this.instruments.delete(symbol);
    this.#bars.delete(symbol);
    for (const key of [...this.#pending.keys()])
      if (key === symbol || key.startsWith(`${symbol}@`)) this.#pending.delete(key);
  }

  end(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const leave of this.leave.values()) leave();
    this.leave.clear();
  }

  /**
   * Leading-edge rate limit: the first update after a quiet interval goes out at once (ticks that
   * arrive together share one message), later ones wait for the end of the interval and go out
   * together, latest per symbol. `now` (a symbol's snapshot) sends what is pending at once.
   */
  #schedule(now = false): void {
    if (this.#flushQueued || this.#ended) return;
    if (now && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#timer) return;
    const wait = now ? 0 : this.#lastSentAt + this.intervalMs - Date.now();
    if (wait <= 0) {
      this.#flushQueued = true;
      queueMicrotask(() => {
        this.#flushQueued = false;
        this.#flush();
      });
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, wait);
    this.#timer.unref();
  }

  #flush(): void {
    if (this.#pending.size === 0 || this.#ended) return;
    if (this.outlet.backedUp()) {
      // The reader is behind: try again one interval later; pending holds only the latest values.
      this.#lastSentAt = Date.now();
      this.#schedule();
      return;
    }
    const data = [...this.#pending.values()];
    this.#pending.clear();
    this.#lastSentAt = Date.now();
    this.outlet.send(messages.data(this.streamType, this.id, data));
  }
}

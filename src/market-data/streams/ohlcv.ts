/**
 * One-minute OHLCV bars built from a symbol's live ticks: the current bar is open (`closed`
 * false) until a tick of a later minute arrives, which closes it. Volume is the sum of the trade
 * sizes the provider reported; null when it reported none (never a made-up 0).
 */
export interface OhlcvBar {
  readonly symbol: string;
  readonly time: Date;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number | null;
  readonly closed: boolean;
}

const MINUTE = 60_000;

export class MinuteBars {
  #current:
    | { time: number; open: number; high: number; low: number; close: number; volume: number | null }
    | undefined;

  constructor(readonly symbol: string) {}

  /** Adds a tick; returns the bar it closed, if this tick started a new minute. */
  add(price: number, size: number | null, at: Date): OhlcvBar | undefined {
    const minute = Math.floor(at.getTime() / MINUTE) * MINUTE;
    const cur = this.#current;
    if (cur && minute < cur.time) return undefined; // late tick of a closed minute: ignored
    if (cur && minute === cur.time) {
      cur.high = Math.max(cur.high, price);
      cur.low = Math.min(cur.low, price);
      cur.close = price;
      if (size !== null) cur.volume = (cur.volume ?? 0) + size;
      return undefined;
    }
    const closed = cur ? this.#bar(true) : undefined;
    this.#current = { time: minute, open: price, high: price, low: price, close: price, volume: size };
    return closed;
  }

  current(): OhlcvBar | undefined {
    return this.#current ? this.#bar(false) : undefined;
  }

  #bar(closed: boolean): OhlcvBar {
    const c = this.#current!;
    return {
      symbol: this.symbol,
      time: new Date(c.time),
      open: c.open,
      high: c.high,
      low: c.low,
      close: c.close,
      volume: c.volume,
      closed,
    };
  }
}

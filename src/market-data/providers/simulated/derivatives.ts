import type { OrderBookLevel } from '../../types.ts';
import { MINUTE_MS } from './calendar.ts';
import { hashString, type Rand, stream } from './rng.ts';
import { TRADED_COINS } from './universe.ts';
import { rotation } from './watched.ts';

/**
 * Funding rates of perpetual contracts and order-book liquidity, as functions of (coin, time). Both
 * are smooth noise (value noise between keyed knots) with keyed episodes: funding spikes per 8-hour
 * period, liquidity drains of a few minutes to an hour. Demo activity adds one coin at a time in
 * rotation over the watched coins (all traded coins when none are watched), so that some coin is
 * always in such an episode.
 */
export const FUNDING_INTERVAL_MS = 8 * 3_600_000;
const FUNDING_KNOT_MS = 4 * 3_600_000;
const FUNDING_EXTREME_PER_PERIOD = 0.025;
const DEMO_FUNDING_SLOT_MS = 2 * 3_600_000;

const LIQUIDITY_KNOT_MS = 30 * MINUTE_MS;
const DRAIN_BLOCK_MINUTES = 240;
const DRAIN_PER_BLOCK = 0.08;
const DEMO_DRAIN_SLOT_MINUTES = 10;
/**
 * Drains take a slot in at least this many per coin: a book drained most of the time would be its
 * own usual depth (one coin drained to 10-30 % every third slot still reads below 0.4x its mean).
 */
const MIN_DRAIN_CYCLE = 3;

const S_FUNDING = stream('funding');
const S_DEMO_FUNDING = stream('demo-funding');
const S_LIQUIDITY = stream('liquidity');
const S_DRAIN = stream('liquidity-drain');
const S_DEMO_DRAIN = stream('demo-liquidity-drain');
const S_BOOK = stream('order-book');

const smoothstep = (x: number) => x * x * (3 - 2 * x);

export class Derivatives {
  readonly #fundingOrder: readonly (string | undefined)[];
  readonly #drainOrder: readonly (string | undefined)[];

  /** `watchedCoins`: the coins demo episodes rotate over; every traded coin when empty. */
  constructor(
    private readonly rand: Rand,
    readonly demo: boolean,
    watchedCoins: readonly string[] = [],
  ) {
    const watched = watchedCoins.length > 0;
    const coins = watched ? watchedCoins : TRADED_COINS.map((c) => c.symbol);
    this.#fundingOrder = rotation(rand, S_DEMO_FUNDING, coins);
    this.#drainOrder = rotation(rand, S_DEMO_DRAIN, coins, watched ? MIN_DRAIN_CYCLE : 1);
  }

  /** Interpolated standard-normal noise with knots every `knotMs` (bounded to +-2.5). */
  #noise(s: number, id: number, ms: number, knotMs: number): number {
    const k = Math.floor(ms / knotMs);
    const f = smoothstep(ms / knotMs - k);
    const v = this.rand.normal(s, id, k) * (1 - f) + this.rand.normal(s, id, k + 1) * f;
    return Math.max(-2.5, Math.min(2.5, v));
  }

  /**
   * Funding rate per 8 hours (fraction) for the period running at `ms`: usually 0.01 % +- 0.01 %;
   * 2.5 % of periods carry a spike of 0.11 % or more (rarely above 0.3 %), mostly longs paying.
   */
  fundingRate(coin: string, ms: number): number {
    const id = hashString(coin);
    let rate = 0.0001 + 0.00008 * this.#noise(S_FUNDING, id, ms, FUNDING_KNOT_MS);
    const period = Math.floor(ms / FUNDING_INTERVAL_MS);
    const u = (k: number) => this.rand.uniform(S_FUNDING, id, period, k);
    if (u(1) < FUNDING_EXTREME_PER_PERIOD) {
      const magnitude = 0.0011 * Math.exp(0.55 * Math.abs(this.rand.normal(S_FUNDING, id, period, 2)));
      rate += (u(3) < 0.7 ? 1 : -1) * magnitude;
    }
    if (this.demo) {
      const slot = Math.floor(ms / DEMO_FUNDING_SLOT_MS);
      if (this.#fundingOrder[slot % this.#fundingOrder.length] === coin) {
        rate += 0.0012 + 0.0028 * this.rand.uniform(S_DEMO_FUNDING, slot, 1);
      }
    }
    return Math.round(rate * 1e8) / 1e8;
  }

  /** The next funding time (00:00, 08:00 or 16:00 UTC) strictly after `ms`. */
  nextFunding(ms: number): number {
    return (Math.floor(ms / FUNDING_INTERVAL_MS) + 1) * FUNDING_INTERVAL_MS;
  }

  /**
   * Order-book depth multiplier (about 1 on average): slow noise and a daily cycle, times drains.
   * A drain keeps 10-38 % of the usual depth for 5-45 minutes; 8 % of 4-hour blocks have one.
   */
  liquidity(coin: string, atMs: number): number {
    const id = hashString(coin);
    // Whole seconds, like the book's level noise: two calls in the same second see the same book.
    const ms = Math.floor(atMs / 1_000) * 1_000;
    const minute = Math.floor(ms / MINUTE_MS);
    const hour = (ms / 3_600_000) % 24;
    let factor =
      Math.exp(0.08 * this.#noise(S_LIQUIDITY, id, ms, LIQUIDITY_KNOT_MS)) *
      (1 + 0.08 * Math.cos((2 * Math.PI * (hour - 15)) / 24));
    const block = Math.floor(minute / DRAIN_BLOCK_MINUTES);
    for (const b of [block - 1, block]) {
      const u = (k: number) => this.rand.uniform(S_DRAIN, id, b, k);
      if (!(u(0) < DRAIN_PER_BLOCK)) continue;
      const start = b * DRAIN_BLOCK_MINUTES + Math.floor(u(1) * (DRAIN_BLOCK_MINUTES - 15));
      const length = 5 + Math.floor(u(2) * 41);
      if (minute >= start && minute < start + length) factor *= 0.1 + 0.28 * u(3);
    }
    if (this.demo) {
      const slot = Math.floor(minute / DEMO_DRAIN_SLOT_MINUTES);
      if (this.#drainOrder[slot % this.#drainOrder.length] === coin) {
        factor *= 0.1 + 0.2 * this.rand.uniform(S_DEMO_DRAIN, slot, 1);
      }
    }
    return factor;
  }

  /**
   * `depth` levels per side around `mid`, prices on the tick grid, total size (both sides) equal to
   * `levelSize * depth * 2 * liquidity`; the spread widens when liquidity is thin. Level noise is keyed
   * by the second, so two calls in the same second see the same book.
   */
  book(coin: string, mid: number, tick: number, depth: number, levelSize: number, ms: number) {
    const id = hashString(coin);
    const second = Math.floor(ms / 1_000);
    const liquidity = this.liquidity(coin, ms);
    const total = levelSize * depth * 2 * liquidity;
    const half = Math.max(tick, (mid * 0.00005) / Math.sqrt(Math.max(liquidity, 0.05)));
    const onGrid = (x: number) => Number(x.toPrecision(12));
    let bid = Math.floor((mid - half) / tick);
    let ask = Math.ceil((mid + half) / tick);
    if (ask <= bid) ask = bid + 1;
    const weights: number[] = [];
    for (let i = 0; i < depth * 2; i++) {
      weights.push(
        (0.6 + 0.08 * Math.floor(i / 2)) * Math.exp(0.5 * this.rand.normal(S_BOOK, id, second, i)),
      );
    }
    const sum = weights.reduce((a, b) => a + b, 0);
    const bids: OrderBookLevel[] = [];
    const asks: OrderBookLevel[] = [];
    for (let level = 0; level < depth; level++) {
      const gap = (side: number) => 1 + this.rand.int(3, S_BOOK, id, second, 10_000 + level * 2 + side);
      if (level > 0) {
        bid -= gap(0);
        ask += gap(1);
      }
      if (bid <= 0) break;
      const size = (i: number) => Math.round(((total * weights[i]!) / sum) * 1e6) / 1e6;
      bids.push({ price: onGrid(bid * tick), size: size(level * 2) });
      asks.push({ price: onGrid(ask * tick), size: size(level * 2 + 1) });
    }
    return { bids, asks };
  }
}

/** Price increment at a price level: six significant digits, like the crypto quotes. */
export function tickSize(price: number): number {
  return 10 ** (Math.floor(Math.log10(price)) - 5);
}

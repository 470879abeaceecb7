import { resolveInstrument } from '../../instruments.ts';
import type { Rand } from './rng.ts';
import { EQUITIES, type Known, resolve, TRADED_COINS } from './universe.ts';
import { LISTED } from './universe-data.ts';

/**
 * What the watchdogs watch (WATCHDOG_SYMBOLS, by default the scan universes), as the simulated
 * market lists it. Demo activity rotates its episodes over these, so that a watchdog sees one
 * within minutes instead of waiting while the rotation visits coins nobody watches.
 */
export interface WatchedAssets {
  /** Traded coins (not stablecoins) of watched crypto symbols, in universe order. */
  readonly coins: readonly string[];
  /** Path keys of watched US listings, shares and ETFs, in universe order. */
  readonly listed: readonly string[];
  /** Watched shares (the listings that report earnings), in universe order. */
  readonly equities: readonly string[];
}

export const NOTHING_WATCHED: WatchedAssets = { coins: [], listed: [], equities: [] };

/**
 * The watched symbols the simulation can act on, read the way the watchdogs read them. Symbols it
 * does not list (or cannot parse), stablecoins, indices, fx and macro series are left out.
 */
export function watchedAssets(symbols: readonly string[]): WatchedAssets {
  const coins = new Set<string>();
  const listed = new Set<string>();
  for (const symbol of symbols) {
    let known: Known | undefined;
    try {
      known = resolve(resolveInstrument(symbol));
    } catch {
      continue;
    }
    if (known?.coin && !known.coin.stable) coins.add(known.coin.symbol);
    if (known?.listed) listed.add(known.listed.symbol);
  }
  return {
    coins: TRADED_COINS.map((c) => c.symbol).filter((s) => coins.has(s)),
    listed: LISTED.map((l) => l.symbol).filter((s) => listed.has(s)),
    equities: EQUITIES.map((e) => e.symbol).filter((s) => listed.has(s)),
  };
}

/**
 * A seeded rotation order over `items`, at least `minLength` slots long: when there are fewer items,
 * the empty slots (undefined) are spread between them. Some episodes need that room: a volume burst
 * only stands out against minutes without one, a drained book only against a usual one.
 */
export function rotation(
  rand: Rand,
  stream: number,
  items: readonly string[],
  minLength = 1,
): readonly (string | undefined)[] {
  const order = rand.permutation(items.length, stream).map((i) => items[i]!);
  if (order.length >= minLength) return order;
  const out: (string | undefined)[] = new Array(minLength).fill(undefined);
  for (let k = 0; k < order.length; k++) out[Math.floor((k * minLength) / order.length)] = order[k];
  return out;
}

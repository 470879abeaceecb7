import { parseInstrument } from '../../instruments.ts';
import { MINUTE_MS, type Session } from './calendar.ts';
import { DECOUPLED_LOADING } from './daily.ts';
import { demoEvent, type FlashEvent } from './day-plan.ts';
import { hashString, type Rand, stream } from './rng.ts';
import { ANOMALY_COINS, EQUITIES, resolve, TRADED_COINS } from './universe.ts';
import type { PathSpec } from './universe-data.ts';
import { NOTHING_WATCHED, rotation, type WatchedAssets } from './watched.ts';

/**
 * What activity 'demo' adds to the price paths, as fixed rotations over the watched symbols (the
 * universe when none are given) so that each watchdog condition holds somewhere it looks at every
 * minute (rather than "usually", as random timing would give). Everything here is a pure function of
 * the seed, the watched symbols and the time.
 */
export const DEMO_EVENT_SLOT_MINUTES = 3;
/**
 * A flash event with its recovery spans at most 16 minutes, and a path's next event must start after
 * it (planDay drops clashing ones): with few anomaly coins, slots stretch to keep each coin's apart.
 */
const EVENT_SPACING_MINUTES = 17;
/**
 * Bursts take a slot in at least this many minutes per coin (or listing): a burst stands out against
 * the previous 30 minutes only when few of them held one (30x against a mean of 1 + 29/8: 6.5x).
 */
const MIN_BURST_CYCLE = 8;
/** Anti-correlation windows of the second member of each watched pair. */
export const ANTI_PERIOD_MINUTES = 360;
export const ANTI_WINDOW_MINUTES = 120;
const DEMO_SYSTEMATIC = 0.9;
const BURST = 30;
const NONE: readonly FlashEvent[] = [];

/** Symbol pairs the correlation watchdog watches (WATCHDOG_CORRELATION_PAIRS), e.g. ['AAPL', 'MSFT']. */
export type WatchedPair = readonly [string, string];

/**
 * The price paths behind watched pairs. The simulation can only move paths it has: a pair naming a
 * symbol the simulated market does not list (or one without a price path, such as GDP), or two
 * symbols on one path (SPY and ^GSPC), is left out: its prices follow the normal model, nothing fails.
 */
export function watchedPaths(pairs: readonly WatchedPair[]): Array<readonly [PathSpec, PathSpec]> {
  const pathOf = (symbol: string): PathSpec | undefined => {
    try {
      return resolve(parseInstrument(symbol))?.view?.path;
    } catch {
      return undefined;
    }
  };
  const out: Array<readonly [PathSpec, PathSpec]> = [];
  for (const [a, b] of pairs) {
    const [first, second] = [pathOf(a), pathOf(b)];
    if (first && second && first.key !== second.key) out.push([first, second]);
  }
  return out;
}

export class DemoSchedule {
  readonly #anomalyOrder: readonly (string | undefined)[];
  readonly #anomalySlotMinutes: number;
  readonly #coinBurstOrder: readonly (string | undefined)[];
  readonly #listedBurstOrder: readonly (string | undefined)[];
  readonly #antiPhase = new Map<string, number>();
  readonly #tracked = new Set<string>();

  /**
   * `watched`: the pairs the correlation watchdog watches. In demo activity the second member of
   * each is the leg that turns against its factors in windows, so the pair's short-term correlation
   * breaks away from its long-term one while the first member keeps the market's common moves.
   * `assets`: the watched coins and listings, over which bursts and flash events rotate (flash events
   * on coins outside the watched pairs when there are such, so correlations keep their meaning).
   */
  constructor(
    private readonly rand: Rand,
    readonly active: boolean,
    watched: readonly WatchedPair[] = [],
    assets: WatchedAssets = NOTHING_WATCHED,
  ) {
    const pairKeys = new Set(watchedPaths(watched).flatMap(([a, b]) => [a.key, b.key]));
    const outsidePairs = assets.coins.filter((c) => !pairKeys.has(c));
    const watchedAnomalyCoins = outsidePairs.length > 0 ? outsidePairs : assets.coins;
    const anomalyCoins = watchedAnomalyCoins.length > 0 ? watchedAnomalyCoins : ANOMALY_COINS;
    this.#anomalyOrder = rotation(rand, stream('demo-anomaly-order'), anomalyCoins);
    this.#anomalySlotMinutes = Math.max(
      DEMO_EVENT_SLOT_MINUTES,
      Math.ceil(EVENT_SPACING_MINUTES / anomalyCoins.length),
    );
    const orderOf = (name: string, watchedKeys: readonly string[], universe: readonly string[]) =>
      watchedKeys.length > 0
        ? rotation(rand, stream(name), watchedKeys, MIN_BURST_CYCLE)
        : rotation(rand, stream(name), universe);
    this.#coinBurstOrder = orderOf(
      'demo-burst-coins',
      assets.coins,
      TRADED_COINS.map((c) => c.symbol),
    );
    this.#listedBurstOrder = orderOf(
      'demo-burst-listed',
      assets.listed,
      EQUITIES.map((e) => e.symbol),
    );
    let crypto = 0;
    let listed = 0;
    for (const [first, second] of watchedPaths(watched)) {
      this.#tracked.add(first.key).add(second.key);
      // Crypto pairs (24/7) are staggered a quarter period apart so that, together, they cover every
      // minute; the others (listed, fx) add more cover during their sessions.
      const phase =
        second.calendar === 'crypto'
          ? (crypto++ * ANTI_PERIOD_MINUTES) / 4
          : (listed++ * ANTI_PERIOD_MINUTES) / 6;
      this.#antiPhase.set(second.key, phase);
    }
  }

  /**
   * Demo flash events of a path's day: one anomaly coin per slot (DEMO_EVENT_SLOT_MINUTES, longer
   * when few coins share the rotation), in rotation.
   */
  events(pathKey: string, session: Session): readonly FlashEvent[] {
    if (!this.active) return NONE;
    const position = this.#anomalyOrder.indexOf(pathKey);
    if (position < 0) return NONE;
    const n = this.#anomalyOrder.length;
    const slotMinutes = this.#anomalySlotMinutes;
    const openMinute = Math.floor(session.openMs / MINUTE_MS);
    const firstSlot = Math.ceil(openMinute / slotMinutes);
    const lastSlot = Math.floor((openMinute + session.minutes - 1) / slotMinutes);
    const events: FlashEvent[] = [];
    let slot = firstSlot + ((((position - firstSlot) % n) + n) % n);
    for (; slot <= lastSlot; slot += n) {
      events.push(demoEvent(this.rand, hashString(pathKey), slot, slot * slotMinutes - openMinute));
    }
    return events;
  }

  /**
   * Loadings multiplier at a global minute: `decoupled` (the day's daily regime) shrinks loadings.
   * In demo mode the watched pairs follow the demo windows instead (a daily decoupling of one leg must
   * not hide the window that is due; the daily bars still show it), with loadings raised so that
   * common factors carry DEMO_SYSTEMATIC of the variance: 30-minute correlations then differ from
   * 6-hour ones by far more than sampling noise.
   */
  loading(pathKey: string, minute: number, decoupled: boolean, systematicVariance: number): number {
    if (!this.active || !this.#tracked.has(pathKey)) return decoupled ? DECOUPLED_LOADING : 1;
    const boost = Math.sqrt(Math.max(1, DEMO_SYSTEMATIC / systematicVariance));
    const phase = this.#antiPhase.get(pathKey);
    if (phase === undefined) return boost;
    const offset = (((minute - phase) % ANTI_PERIOD_MINUTES) + ANTI_PERIOD_MINUTES) % ANTI_PERIOD_MINUTES;
    return offset < ANTI_WINDOW_MINUTES ? -boost : boost;
  }

  /** Volume multiplier at a global minute: each minute one coin (and one listing) trades a burst. */
  burst(pathKey: string, minute: number): number {
    if (!this.active) return 1;
    if (this.#coinBurstOrder[minute % this.#coinBurstOrder.length] === pathKey) return BURST;
    if (this.#listedBurstOrder[minute % this.#listedBurstOrder.length] === pathKey) return BURST;
    return 1;
  }
}

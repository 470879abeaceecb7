import { parseInstrument } from '../../instruments.ts';
import { MINUTE_MS, type Session } from './calendar.ts';
import { DECOUPLED_LOADING } from './daily.ts';
import { demoEvent, type FlashEvent } from './day-plan.ts';
import { hashString, type Rand, stream } from './rng.ts';
import { ANOMALY_COINS, EQUITIES, resolve, TRADED_COINS } from './universe.ts';
import type { PathSpec } from './universe-data.ts';

/**
 * What activity 'demo' adds to the price paths, as fixed rotations over the universe so that each
 * watchdog condition holds somewhere at every minute (rather than "usually", as random timing would
 * give). Everything here is a pure function of the seed and the time.
 */
export const DEMO_EVENT_SLOT_MINUTES = 3;
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
  readonly #anomalyOrder: readonly number[];
  readonly #coinBurstOrder: readonly string[];
  readonly #listedBurstOrder: readonly string[];
  readonly #antiPhase = new Map<string, number>();
  readonly #tracked = new Set<string>();

  /**
   * `watched`: the pairs the correlation watchdog watches. In demo activity the second member of
   * each is the leg that turns against its factors in windows, so the pair's short-term correlation
   * breaks away from its long-term one while the first member keeps the market's common moves.
   */
  constructor(
    private readonly rand: Rand,
    readonly active: boolean,
    watched: readonly WatchedPair[] = [],
  ) {
    this.#anomalyOrder = rand.permutation(ANOMALY_COINS.length, stream('demo-anomaly-order'));
    this.#coinBurstOrder = rand
      .permutation(TRADED_COINS.length, stream('demo-burst-coins'))
      .map((i) => TRADED_COINS[i]!.symbol);
    this.#listedBurstOrder = rand
      .permutation(EQUITIES.length, stream('demo-burst-listed'))
      .map((i) => EQUITIES[i]!.symbol);
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

  /** Demo flash events of a path's day: one anomaly coin every DEMO_EVENT_SLOT_MINUTES, in rotation. */
  events(pathKey: string, session: Session): readonly FlashEvent[] {
    if (!this.active) return NONE;
    const coin = ANOMALY_COINS.indexOf(pathKey);
    if (coin < 0) return NONE;
    const n = ANOMALY_COINS.length;
    const position = this.#anomalyOrder.indexOf(coin);
    const openMinute = Math.floor(session.openMs / MINUTE_MS);
    const firstSlot = Math.ceil(openMinute / DEMO_EVENT_SLOT_MINUTES);
    const lastSlot = Math.floor((openMinute + session.minutes - 1) / DEMO_EVENT_SLOT_MINUTES);
    const events: FlashEvent[] = [];
    let slot = firstSlot + ((((position - firstSlot) % n) + n) % n);
    for (; slot <= lastSlot; slot += n) {
      events.push(
        demoEvent(this.rand, hashString(pathKey), slot, slot * DEMO_EVENT_SLOT_MINUTES - openMinute),
      );
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

  /** Volume multiplier at a global minute: each minute one coin (and one stock) trades a burst. */
  burst(pathKey: string, minute: number): number {
    if (!this.active) return 1;
    if (this.#coinBurstOrder[minute % this.#coinBurstOrder.length] === pathKey) return BURST;
    if (this.#listedBurstOrder[minute % this.#listedBurstOrder.length] === pathKey) return BURST;
    return 1;
  }
}

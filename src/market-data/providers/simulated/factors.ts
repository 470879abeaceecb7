import { Lru, type Rand, stream } from './rng.ts';
import { FACTORS, type Factor } from './universe-data.ts';

/**
 * Market-wide state shared by every path: volatility regimes (calm / normal / stressed, persistent
 * over weeks), common factor shocks per day and per minute, and market-wide crash days. Regimes are
 * a Markov chain, so they are generated once, day after day, and kept; shocks are keyed draws.
 */
export type RegimeGroup = 'market' | 'crypto';

/** Volatility multiplier per regime, per group. */
const MULTIPLIER: Readonly<Record<RegimeGroup, readonly [number, number, number]>> = {
  market: [0.7, 1, 1.9],
  crypto: [0.75, 1, 1.7],
};

/** Daily switching probabilities: calm to normal, normal to calm, normal to stressed, stressed to normal. */
const SWITCH: Readonly<Record<RegimeGroup, readonly [number, number, number, number]>> = {
  market: [1 / 60, 1 / 90, 1 / 150, 1 / 25],
  crypto: [1 / 45, 1 / 70, 1 / 110, 1 / 20],
};

/** Mean factor shock (in standard deviations) per regime: stressed markets fall, calm ones drift up. */
const REGIME_DRIFT: readonly [number, number, number] = [0.05, 0, -0.12];

/** Probability per day of a market-wide (or crypto-wide) crash day, and its size in factor sd. */
const CRASH_PER_DAY: Readonly<Record<RegimeGroup, number>> = { market: 1 / 500, crypto: 1 / 250 };

const S_REGIME = stream('regime');
const S_FACTOR_DAY = stream('factor-day');
const S_FACTOR_MINUTE = stream('factor-minute');
const S_CRASH = stream('crash-day');

export const FACTOR_INDEX: Readonly<Record<Factor, number>> = Object.fromEntries(
  FACTORS.map((f, i) => [f, i]),
) as Record<Factor, number>;

const MARKET = FACTOR_INDEX.market;
const CRYPTO = FACTOR_INDEX.crypto;

export class FactorModel {
  #days = 0;
  #regimes: Record<RegimeGroup, Uint8Array> = { market: new Uint8Array(0), crypto: new Uint8Array(0) };
  readonly #minutes = new Lru<string, Float64Array>(96);

  constructor(private readonly rand: Rand) {}

  /** Makes days [0, days) available. */
  ensure(days: number): void {
    if (days <= this.#days) return;
    const capacity = Math.max(days, this.#days * 2, 4_096);
    const grow = (old: Uint8Array): Uint8Array => {
      if (old.length >= days) return old;
      const next = new Uint8Array(capacity);
      next.set(old);
      return next;
    };
    this.#regimes.market = grow(this.#regimes.market);
    this.#regimes.crypto = grow(this.#regimes.crypto);
    const { market, crypto } = this.#regimes;
    for (let d = this.#days; d < days; d++) {
      market[d] = d === 0 ? 1 : this.#next('market', market[d - 1]!, d);
      crypto[d] = d === 0 ? 1 : this.#next('crypto', crypto[d - 1]!, d);
    }
    this.#days = days;
  }

  #next(group: RegimeGroup, state: number, day: number): number {
    const u = this.rand.uniform(S_REGIME, group === 'market' ? 1 : 2, day);
    const [calmUp, normalDown, normalUp, stressedDown] = SWITCH[group];
    if (state === 0) return u < calmUp ? 1 : 0;
    if (state === 2) return u < stressedDown ? 1 : 2;
    if (u < normalDown) return 0;
    if (u < normalDown + normalUp) return 2;
    return 1;
  }

  regime(group: RegimeGroup, day: number): number {
    this.ensure(day + 1);
    return this.#regimes[group][day]!;
  }

  volMultiplier(group: RegimeGroup, day: number): number {
    return MULTIPLIER[group][this.regime(group, day)]!;
  }

  /** Standardised shock of a factor on a day (regime drift and crash days included). */
  dailyShock(factor: number, day: number): number {
    let z = this.rand.normal(S_FACTOR_DAY, factor, day);
    if (factor === MARKET || factor === CRYPTO) {
      const group = factor === MARKET ? 'market' : 'crypto';
      z += REGIME_DRIFT[this.regime(group, day)]!;
      const crash = this.rand.uniform(S_CRASH, factor, day);
      if (crash < CRASH_PER_DAY[group]) z -= 3 + 3 * (crash / CRASH_PER_DAY[group]);
    }
    return z;
  }

  /** Standard normal shocks of a factor for `count` consecutive minutes from a global minute index. */
  minuteShocks(factor: number, firstMinute: number, count: number): Float64Array {
    return this.#minutes.getOrCreate(`${factor}:${firstMinute}:${count}`, () => {
      const out = new Float64Array(count);
      for (let i = 0; i < count; i++) out[i] = this.rand.normal(S_FACTOR_MINUTE, factor, firstMinute + i);
      return out;
    });
  }
}

import { periodsPerYear } from '../../../quant/periods.ts';
import { dayIndexOf, type Session, sessionOf } from './calendar.ts';
import { type DayPlan, type FlashEvent, normalEvent, planDay } from './day-plan.ts';
import { FACTOR_INDEX, type FactorModel, type RegimeGroup } from './factors.ts';
import { hashString, type Rand, stream } from './rng.ts';
import type { Factor, PathKind, PathSpec } from './universe-data.ts';

/**
 * Daily model of one path: log price = trend + OU deviation, where the deviation takes a factor-model
 * shock each trading day (common factors with regime-dependent volatility, idiosyncratic noise,
 * jumps, earnings gaps). The trend runs through the real-world levels of 2015 and 2025. The state is
 * cumulative, so a path's days are generated once, in order, and kept (a decade is a few ms).
 */
interface KindParams {
  readonly revertPerYear: number;
  /** Share of daily variance realised between sessions (overnight gap). */
  readonly gapShare: number;
  readonly jumpsPerYear: number;
  readonly jumpSize: number;
  /** Intraday flash events (price anomalies) per year. */
  readonly eventsPerYear: number;
  readonly driftAfterAnchor: number;
  readonly volumeSpikesPerYear: number;
  /** Entries per year into a decoupled regime, where common-factor loadings shrink (correlation breaks). */
  readonly decouplingsPerYear: number;
  readonly group: RegimeGroup;
}

const KIND: Readonly<Record<PathKind, KindParams>> = {
  equity: k(0.5, 0.2, 2, 0.05, 1, 0.08, 4, 1.5, 'market'),
  etf: k(0.5, 0.15, 0.5, 0.03, 0.3, 0.07, 2, 1, 'market'),
  coin: k(0.9, 0, 4, 0.1, 12, 0.15, 6, 2, 'crypto'),
  stable: k(90, 0, 0, 0, 0, 0, 3, 0, 'crypto'),
  fx: k(1, 0, 0.5, 0.015, 0.3, 0, 0, 1, 'market'),
  rate: k(0.5, 0.1, 1, 0.05, 0.3, 0, 0, 1, 'market'),
  vix: k(12, 0.2, 2, 0.1, 1, 0, 0, 0, 'market'),
};

function k(
  revertPerYear: number,
  gapShare: number,
  jumpsPerYear: number,
  jumpSize: number,
  eventsPerYear: number,
  driftAfterAnchor: number,
  volumeSpikesPerYear: number,
  decouplingsPerYear: number,
  group: RegimeGroup,
): KindParams {
  return {
    revertPerYear,
    gapShare,
    jumpsPerYear,
    jumpSize,
    eventsPerYear,
    driftAfterAnchor,
    volumeSpikesPerYear,
    decouplingsPerYear,
    group,
  };
}

/** Levels are pinned to reality on these days (2015-01-02 is day 1; the trend starts on day 0). */
export const ANCHOR_DAY = dayIndexOf(Date.UTC(2025, 0, 2));
/** Loadings multiplier while decoupled, and mean length of a decoupled spell in trading days. */
export const DECOUPLED_LOADING = 0.2;
const DECOUPLED_DAYS = 10;
/** VIX level by regime (a calm market has a low VIX, a stressed one a high VIX), approached at 30 % a day. */
const VIX_LEVEL = [Math.log(13 / 17), 0, Math.log(32 / 17)];
const VIX_LEVEL_SPEED = 0.3;

const NO_EVENTS: readonly FlashEvent[] = [];
const AHEAD_DAYS = 366;

function grown<T extends Float64Array | Uint8Array>(old: T, next: T): T {
  next.set(old);
  return next;
}

const S_IDIO = stream('daily-idio');
const S_GAP = stream('daily-gap');
const S_JUMP = stream('daily-jump');
const S_VOLUME = stream('daily-volume');
const S_DECOUPLE = stream('decouple');

export interface DayRecord {
  readonly day: number;
  readonly session: Session;
  readonly logOpen: number;
  readonly plan: DayPlan;
  readonly sigma: number;
  readonly volume: number;
  readonly decoupled: boolean;
}

/** What the rest of the market adds to a path: earnings gaps and demo events (avoids import cycles). */
export interface PathExtras {
  earningsGap?(day: number): number;
  demoEvents?(day: number, session: Session): readonly FlashEvent[];
}

export class DailyPath {
  readonly id: number;
  readonly params: KindParams;
  #days = 0;
  #logOpen = new Float64Array(0);
  #close = new Float64Array(0);
  #sigma = new Float64Array(0);
  #high = new Float64Array(0);
  #low = new Float64Array(0);
  #volume = new Float64Array(0);
  #decoupled = new Uint8Array(0);
  #deviation = 0;
  #lastLogClose = Number.NaN;
  #isDecoupled = false;
  #level = 0;
  readonly #loadings: ReadonlyArray<readonly [number, number]>;
  readonly #systematicVariance: number;

  constructor(
    readonly spec: PathSpec,
    private readonly rand: Rand,
    private readonly factors: FactorModel,
    private readonly extras: PathExtras,
  ) {
    this.id = hashString(spec.key);
    this.params = KIND[spec.kind];
    this.#loadings = Object.entries(spec.loadings).map(([f, l]) => [FACTOR_INDEX[f as Factor], l] as const);
    this.#systematicVariance = this.#loadings.reduce((s, [, l]) => s + l * l, 0);
  }

  get loadings(): ReadonlyArray<readonly [number, number]> {
    return this.#loadings;
  }

  get systematicVariance(): number {
    return this.#systematicVariance;
  }

  /** The trading day `day`, or undefined when the path does not trade that day. */
  record(day: number): DayRecord | undefined {
    if (day < 0) return undefined;
    this.#ensure(day + 1);
    const logOpen = this.#logOpen[day]!;
    if (Number.isNaN(logOpen)) return undefined;
    const session = sessionOf(this.spec.calendar, day)!;
    return {
      day,
      session,
      logOpen,
      plan: this.#plan(day, session, this.#close[day]!, this.#sigma[day]!),
      sigma: this.#sigma[day]!,
      volume: this.#volume[day]!,
      decoupled: this.#decoupled[day] === 1,
    };
  }

  /** Daily bar in log terms without building the plan again (the fast path for long daily ranges). */
  summary(
    day: number,
  ): { logOpen: number; close: number; high: number; low: number; volume: number } | undefined {
    if (day < 0) return undefined;
    this.#ensure(day + 1);
    const logOpen = this.#logOpen[day]!;
    if (Number.isNaN(logOpen)) return undefined;
    return {
      logOpen,
      close: this.#close[day]!,
      high: this.#high[day]!,
      low: this.#low[day]!,
      volume: this.#volume[day]!,
    };
  }

  /** Log closing price of a trading day (NaN when it does not trade). */
  logClose(day: number): number {
    if (day < 0) return Number.NaN;
    this.#ensure(day + 1);
    return this.#logOpen[day]! + this.#close[day]!;
  }

  #plan(day: number, session: Session, close: number, sigma: number): DayPlan {
    const demo = this.extras.demoEvents?.(day, session) ?? NO_EVENTS;
    const perDay = this.params.eventsPerYear / periodsPerYear(this.spec.calendar);
    const own = normalEvent(this.rand, this.id, day, session.minutes, perDay);
    let events = demo;
    if (
      own &&
      !demo.some(
        (o) => own.start <= o.start + o.recoveryMinutes + 6 && o.start <= own.start + own.recoveryMinutes + 6,
      )
    ) {
      events = [...demo, own];
    }
    return planDay(this.rand, this.id, day, session.minutes, close, sigma, events);
  }

  /** Generates days up to `days` (and a year beyond, so that day-by-day callers do not step one by one). */
  #ensure(days: number): void {
    if (days <= this.#days) return;
    const target = Math.max(days, this.#days + AHEAD_DAYS);
    if (this.#logOpen.length < target) {
      const capacity = Math.max(target, this.#logOpen.length * 2);
      this.#logOpen = grown(this.#logOpen, new Float64Array(capacity));
      this.#close = grown(this.#close, new Float64Array(capacity));
      this.#sigma = grown(this.#sigma, new Float64Array(capacity));
      this.#high = grown(this.#high, new Float64Array(capacity));
      this.#low = grown(this.#low, new Float64Array(capacity));
      this.#volume = grown(this.#volume, new Float64Array(capacity));
      this.#decoupled = grown(this.#decoupled, new Uint8Array(capacity));
    }
    this.factors.ensure(target);
    for (let d = this.#days; d < target; d++) this.#step(d);
    this.#days = target;
  }

  #trend(day: number): number {
    const { level2015, level2025 } = this.spec;
    const slope = (Math.log(level2025) - Math.log(level2015)) / ANCHOR_DAY;
    const after = Math.max(0, day - ANCHOR_DAY);
    return (
      Math.log(level2015) +
      slope * Math.min(day, ANCHOR_DAY) +
      (this.params.driftAfterAnchor * after) / 365.25
    );
  }

  #step(d: number): void {
    const session = sessionOf(this.spec.calendar, d);
    if (!session) {
      this.#logOpen[d] = Number.NaN;
      return;
    }
    const p = this.params;
    const id = this.id;
    const rand = this.rand;
    const perYear = periodsPerYear(this.spec.calendar);
    const regime = this.factors.regime(p.group, d);
    const multiplier = this.factors.volMultiplier(p.group, d);
    const sd = (this.spec.vol * multiplier) / Math.sqrt(perYear);

    if (p.decouplingsPerYear > 0) {
      const switchU = rand.uniform(S_DECOUPLE, id, d);
      if (this.#isDecoupled) this.#isDecoupled = switchU >= 1 / DECOUPLED_DAYS;
      else this.#isDecoupled = switchU < p.decouplingsPerYear / perYear;
    }
    const loading = this.#isDecoupled ? DECOUPLED_LOADING : 1;
    let systematic = 0;
    for (const [f, l] of this.#loadings) systematic += l * this.factors.dailyShock(f, d);
    const idioScale = Math.sqrt(Math.max(0.02, 1 - loading * loading * this.#systematicVariance));
    const shock = sd * (loading * systematic + idioScale * rand.normal(S_IDIO, id, d));

    // Split the day's diffusive move into the overnight gap and the session (Brownian bridge split).
    let gap = 0;
    if (p.gapShare > 0) {
      gap = p.gapShare * shock + Math.sqrt(p.gapShare * (1 - p.gapShare)) * sd * rand.normal(S_GAP, id, d);
    }
    let jump = 0;
    if (rand.uniform(S_JUMP, id, d, 0) < p.jumpsPerYear / perYear) {
      jump = p.jumpSize * rand.normal(S_JUMP, id, d, 1);
      if (p.gapShare > 0 && rand.uniform(S_JUMP, id, d, 2) < 0.5) gap += jump;
    }
    const earnings = this.extras.earningsGap?.(d) ?? 0;
    gap += earnings;

    const prevClose = Number.isNaN(this.#lastLogClose) ? this.#trend(d) : this.#lastLogClose;
    this.#deviation = this.#deviation * (1 - p.revertPerYear / perYear) + shock + jump + earnings;
    if (this.spec.kind === 'vix') this.#level += VIX_LEVEL_SPEED * (VIX_LEVEL[regime]! - this.#level);
    const level = this.#level;
    const logOpen = prevClose + gap;
    const close = this.#trend(d) + level + this.#deviation - logOpen;
    const sigma = sd * Math.sqrt(1 - p.gapShare);

    const plan = this.#plan(d, session, close, sigma);
    let volume = 0;
    if (this.spec.dailyVolume > 0) {
      const surprise = Math.min(4, Math.abs(shock + jump) / sd);
      const spike =
        rand.uniform(S_VOLUME, id, d, 1) < p.volumeSpikesPerYear / perYear
          ? 3.5 + 4 * rand.uniform(S_VOLUME, id, d, 2)
          : 1;
      // Volume follows surprise, stress, spikes, earnings and flash events (a plan with pins besides
      // the open and the close has events).
      const intensity =
        Math.exp(0.3 * rand.normal(S_VOLUME, id, d) - 0.045) *
        (1 + 0.5 * Math.max(0, surprise - 1)) *
        multiplier ** 0.6 *
        spike *
        (earnings !== 0 ? 2.2 : 1) *
        (plan.pinT.length > 2 ? 1.5 : 1);
      const crypto = this.spec.calendar === 'crypto';
      const units = crypto ? this.spec.dailyVolume / Math.exp(prevClose) : this.spec.dailyVolume;
      volume = crypto ? units * intensity : Math.round(units * intensity);
    }
    this.#logOpen[d] = logOpen;
    this.#close[d] = close;
    this.#sigma[d] = sigma;
    this.#high[d] = plan.high;
    this.#low[d] = plan.low;
    this.#volume[d] = volume;
    this.#decoupled[d] = this.#isDecoupled ? 1 : 0;
    this.#lastLogClose = logOpen + close;
  }
}

import {
  dayIndexOf,
  dayStartMs,
  lastStartedTradingDay,
  MINUTE_MS,
  previousTradingDay,
  sessionEndMs,
  sessionOf,
} from './calendar.ts';
import { DailyPath, type PathExtras } from './daily.ts';
import { DemoSchedule, type WatchedPair } from './demo.ts';
import { EarningsBook } from './earnings.ts';
import { FactorModel } from './factors.ts';
import { buildMinutePath, type MinutePath, SUBSTEPS, subPoints } from './intraday.ts';
import { MacroSeries } from './macro.ts';
import { Lru, Rand } from './rng.ts';
import type { PathSpec } from './universe-data.ts';
import { NOTHING_WATCHED, type WatchedAssets } from './watched.ts';

/**
 * The simulated market for one seed and activity: paths, their days and minutes, and prices at any
 * instant. Values here are log prices of the underlying path; views (scaling, inversion, rounding)
 * are applied by the callers that build API values. Nothing here looks at a clock: every question
 * carries the instant `nowMs` that bounds what may be seen.
 */
export type Activity = 'normal' | 'demo';

/** OHLCV of a bar in log prices of the path; `time` is the bar's open time (ms). */
export interface RawBar {
  readonly time: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
}

export interface PricePoint {
  readonly log: number;
  /** Time of the trade the price reflects: the instant itself in session, else the last close. */
  readonly time: number;
  readonly live: boolean;
}

const MINUTE_PATH_CACHE = 512;

export class SimulatedMarket {
  readonly rand: Rand;
  readonly factors: FactorModel;
  readonly demo: DemoSchedule;
  readonly earnings: EarningsBook;
  readonly macro: MacroSeries;
  readonly #paths = new Map<string, DailyPath>();
  readonly #minutePaths = new Lru<string, MinutePath>(MINUTE_PATH_CACHE);
  readonly #scratch = new Float64Array(SUBSTEPS + 1);

  /**
   * `watched`: the correlation watchdog's pairs, whose correlation demo activity breaks; `assets`:
   * the watched coins and listings, where demo activity puts its bursts, flash moves and reports.
   */
  constructor(
    seed: string,
    readonly activity: Activity,
    watched: readonly WatchedPair[] = [],
    assets: WatchedAssets = NOTHING_WATCHED,
  ) {
    this.rand = Rand.fromSeed(seed);
    this.factors = new FactorModel(this.rand);
    this.demo = new DemoSchedule(this.rand, activity === 'demo', watched, assets);
    this.earnings = new EarningsBook(this.rand, activity === 'demo', assets.equities);
    this.macro = new MacroSeries(this.rand, this.factors);
  }

  path(spec: PathSpec): DailyPath {
    let path = this.#paths.get(spec.key);
    if (!path) {
      const extras: PathExtras = {
        demoEvents: (_day, session) => this.demo.events(spec.key, session),
        ...(spec.kind === 'equity'
          ? { earningsGap: (day: number) => this.earnings.gapOn(spec.key, day) }
          : {}),
      };
      path = new DailyPath(spec, this.rand, this.factors, extras);
      this.#paths.set(spec.key, path);
    }
    return path;
  }

  minutePath(path: DailyPath, day: number): MinutePath | undefined {
    const key = `${path.spec.key}:${day}`;
    const cached = this.#minutePaths.get(key);
    if (cached) return cached;
    const record = path.record(day);
    if (!record) return undefined;
    const pathKey = path.spec.key;
    const previous = previousTradingDay(path.spec.calendar, day);
    const built = buildMinutePath(
      this.rand,
      this.factors,
      path,
      record,
      {
        loading: (m, decoupled) => this.demo.loading(pathKey, m, decoupled, path.systematicVariance),
        burst: (m) => this.demo.burst(pathKey, m),
        previousVolume: previous === undefined ? 0 : (path.summary(previous)?.volume ?? 0),
      },
      path.spec.calendar === 'us',
    );
    this.#minutePaths.set(key, built);
    return built;
  }

  /** Price at an instant: live inside a session, the last close outside; undefined before the first trade. */
  priceAt(path: DailyPath, ms: number): PricePoint | undefined {
    const day = lastStartedTradingDay(path.spec.calendar, ms);
    if (day === undefined) return undefined;
    const session = sessionOf(path.spec.calendar, day)!;
    const end = sessionEndMs(session);
    if (ms >= end) return { log: path.logClose(day), time: end, live: false };
    const minutes = this.minutePath(path, day)!;
    const m = Math.floor((ms - session.openMs) / MINUTE_MS);
    return { log: minutes.logOpen + this.#partial(path, minutes, m, ms).close, time: ms, live: true };
  }

  /** Volume of the whole minute containing `ms` (0 outside a session), to size simulated trades. */
  minuteVolumeAt(path: DailyPath, ms: number): number {
    const day = dayIndexOf(ms);
    const session = sessionOf(path.spec.calendar, day);
    if (!session || ms < session.openMs || ms >= sessionEndMs(session)) return 0;
    return this.minutePath(path, day)!.volume[Math.floor((ms - session.openMs) / MINUTE_MS)]!;
  }

  /** Minute `m` of a day's path, partial when `nowMs` falls inside it; undefined when it has not begun. */
  minuteBar(path: DailyPath, minutes: MinutePath, m: number, nowMs: number): RawBar | undefined {
    const start = minutes.openMs + m * MINUTE_MS;
    if (start >= nowMs) return undefined;
    const base = minutes.logOpen;
    const open = base + minutes.y[m]!;
    if (start + MINUTE_MS <= nowMs) {
      return {
        time: start,
        open,
        high: base + minutes.high[m]!,
        low: base + minutes.low[m]!,
        close: base + minutes.y[m + 1]!,
        volume: minutes.volume[m]!,
      };
    }
    const p = this.#partial(path, minutes, m, nowMs);
    return {
      time: start,
      open,
      high: base + p.high,
      low: base + p.low,
      close: base + p.close,
      // Listed volumes are whole shares, also while the minute is still running.
      volume:
        path.spec.calendar === 'us'
          ? Math.floor(minutes.volume[m]! * p.fraction)
          : minutes.volume[m]! * p.fraction,
    };
  }

  /** The daily bar of a trading day as far as it has happened at `nowMs`. */
  dayBar(path: DailyPath, day: number, nowMs: number): RawBar | undefined {
    const summary = path.summary(day);
    if (!summary) return undefined;
    const session = sessionOf(path.spec.calendar, day)!;
    if (session.openMs >= nowMs) return undefined;
    const time = dayStartMs(day);
    if (sessionEndMs(session) <= nowMs) {
      const base = summary.logOpen;
      return {
        time,
        open: base,
        high: base + summary.high,
        low: base + summary.low,
        close: base + summary.close,
        volume: summary.volume,
      };
    }
    const agg = this.aggregate(path, session.openMs, nowMs, nowMs);
    return agg ? { ...agg, time } : undefined;
  }

  /** Visits the minute bars with open time in [fromMs, min(toMs, nowMs)), in order. */
  eachMinute(
    path: DailyPath,
    fromMs: number,
    toMs: number,
    nowMs: number,
    visit: (bar: RawBar) => void,
  ): void {
    const end = Math.min(toMs, nowMs);
    if (!(fromMs < end)) return;
    for (let day = Math.max(0, dayIndexOf(fromMs)); day <= dayIndexOf(end - 1); day++) {
      const session = sessionOf(path.spec.calendar, day);
      if (!session || session.openMs >= end || sessionEndMs(session) <= fromMs) continue;
      const minutes = this.minutePath(path, day)!;
      const first = Math.max(0, Math.ceil((fromMs - session.openMs) / MINUTE_MS));
      const last = Math.min(session.minutes, Math.ceil((end - session.openMs) / MINUTE_MS));
      for (let m = first; m < last; m++) {
        const bar = this.minuteBar(path, minutes, m, nowMs);
        if (bar) visit(bar);
      }
    }
  }

  /** One bar aggregating the minutes in [fromMs, min(toMs, nowMs)); undefined when none traded. */
  aggregate(path: DailyPath, fromMs: number, toMs: number, nowMs: number): RawBar | undefined {
    let bar: { -readonly [K in keyof RawBar]: RawBar[K] } | undefined;
    this.eachMinute(path, fromMs, toMs, nowMs, (m) => {
      if (!bar) bar = { ...m };
      else {
        if (m.high > bar.high) bar.high = m.high;
        if (m.low < bar.low) bar.low = m.low;
        bar.close = m.close;
        bar.volume += m.volume;
      }
    });
    return bar;
  }

  /** Price, high and low of the part of minute `m` before `ms` (relative to the day's open, log). */
  #partial(path: DailyPath, minutes: MinutePath, m: number, ms: number) {
    const start = minutes.openMs + m * MINUTE_MS;
    const fraction = Math.min(1, Math.max(0, (ms - start) / MINUTE_MS));
    const points = subPoints(
      this.rand,
      path.id,
      Math.floor(start / MINUTE_MS),
      minutes.y[m]!,
      minutes.y[m + 1]!,
      minutes.sigma[m]!,
      minutes.dayHigh,
      minutes.dayLow,
      this.#scratch,
    );
    const position = fraction * SUBSTEPS;
    const i = Math.min(SUBSTEPS - 1, Math.floor(position));
    const close = points[i]! + (position - i) * (points[i + 1]! - points[i]!);
    let high = close;
    let low = close;
    for (let s = 0; s <= i; s++) {
      if (points[s]! > high) high = points[s]!;
      if (points[s]! < low) low = points[s]!;
    }
    return { close, high, low, fraction };
  }
}

import { DAY_MS, dayIndexOf, dayStartMs, sessionOf, usEasternOffsetMinutes } from './calendar.ts';
import type { FactorModel } from './factors.ts';
import { type Rand, stream } from './rng.ts';

/**
 * Macro series published on a schedule rather than traded: CPI and unemployment monthly, GDP
 * quarterly, the effective fed funds rate daily with step changes at FOMC meetings. They share the
 * market's regimes (a stressed market raises unemployment and slows GDP) and feed each other (the
 * policy rate follows a Taylor-style rule on the simulated inflation and unemployment).
 */
export type ObservedSeriesCode = 'CPI' | 'UNEMPLOYMENT' | 'GDP' | 'FED_RATE';

export const OBSERVED_SERIES: ReadonlyArray<{ readonly code: ObservedSeriesCode; readonly name: string }> = [
  { code: 'CPI', name: 'US Consumer Price Index (CPI-U, 1982-84 = 100)' },
  { code: 'UNEMPLOYMENT', name: 'US Unemployment Rate (%)' },
  { code: 'GDP', name: 'US Nominal GDP (billions of USD, seasonally adjusted annual rate)' },
  { code: 'FED_RATE', name: 'Effective Federal Funds Rate (%)' },
];

export interface Observation {
  /** Start of the period the value describes (FRED convention: 2024-12-01 for December's CPI). */
  readonly periodMs: number;
  /** When the value was published; it does not exist before then. */
  readonly releaseMs: number;
  readonly value: number;
}

const S_MACRO = stream('macro');
/** FOMC decision days (month, day): approximations of the usual schedule, moved to a Wednesday. */
const FOMC: ReadonlyArray<readonly [number, number]> = [
  [1, 28],
  [3, 18],
  [5, 6],
  [6, 17],
  [7, 29],
  [9, 16],
  [11, 4],
  [12, 16],
];

const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** 08:30 New York time on a calendar date, moved off weekends (Saturday to Friday, Sunday to Monday). */
function releaseAt(year: number, month: number, day: number, minuteOfDay = 8 * 60 + 30): number {
  const date = new Date(Date.UTC(year, month - 1, day));
  const weekday = date.getUTCDay();
  if (weekday === 6) date.setUTCDate(date.getUTCDate() - 1);
  if (weekday === 0) date.setUTCDate(date.getUTCDate() + 1);
  const offset = usEasternOffsetMinutes(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
  return date.getTime() + (minuteOfDay + offset) * 60_000;
}

function firstFriday(year: number, month: number): number {
  const weekday = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
  return 1 + ((5 - weekday + 7) % 7);
}

export class MacroSeries {
  readonly #series: Record<ObservedSeriesCode, Observation[]> = {
    CPI: [],
    UNEMPLOYMENT: [],
    GDP: [],
    FED_RATE: [],
  };
  #months = 0;
  #inflation = 0.002;
  #hot = false;
  #cpi = 234.7;
  #unemployment = 5.7;
  #gdp = 17_980;
  #lowerBound = 0;
  #fedDay = 0;

  constructor(
    private readonly rand: Rand,
    private readonly factors: FactorModel,
  ) {}

  /** Observations published at or before `untilMs`, oldest first. */
  observations(code: ObservedSeriesCode, untilMs: number): readonly Observation[] {
    this.#ensure(untilMs);
    const all = this.#series[code];
    let n = all.length;
    while (n > 0 && all[n - 1]!.releaseMs > untilMs) n--;
    return n === all.length ? all : all.slice(0, n);
  }

  #stressShare(fromDay: number, toDay: number): number {
    let stressed = 0;
    for (let d = fromDay; d < toDay; d++) if (this.factors.regime('market', d) === 2) stressed++;
    return stressed / Math.max(1, toDay - fromDay);
  }

  #ensure(untilMs: number): void {
    const until = new Date(untilMs + 120 * DAY_MS);
    const months = (until.getUTCFullYear() - 2015) * 12 + until.getUTCMonth();
    for (; this.#months < months; this.#months++) this.#month(this.#months);
    const lastDay = dayIndexOf(untilMs) + 1;
    for (; this.#fedDay <= lastDay; this.#fedDay++) this.#fedFunds(this.#fedDay);
  }

  #month(i: number): void {
    const year = 2015 + Math.floor(i / 12);
    const month = (i % 12) + 1;
    const periodMs = Date.UTC(year, month - 1, 1);
    const next = new Date(Date.UTC(year, month, 1));
    const [nextYear, nextMonth] = [next.getUTCFullYear(), next.getUTCMonth() + 1];
    const n = (k: number) => this.rand.normal(S_MACRO, i, k);
    const u = (k: number) => this.rand.uniform(S_MACRO, i, k);
    const stress = this.#stressShare(dayIndexOf(periodMs), dayIndexOf(next.getTime()));

    // Inflation: persistent monthly rate with occasional hot spells lasting about a year and a half.
    this.#hot = this.#hot ? u(1) >= 1 / 18 : u(1) < 1 / 70;
    const target = 0.002 + (this.#hot ? 0.004 : 0) - 0.001 * stress;
    this.#inflation = target + 0.7 * (this.#inflation - target) + 0.0012 * n(2);
    if (i > 0) this.#cpi *= 1 + this.#inflation;
    this.#series.CPI.push({
      periodMs,
      releaseMs: releaseAt(nextYear, nextMonth, 13),
      value: round(this.#cpi, 3),
    });

    // Unemployment: slow mean reversion, jumps when the market is stressed for most of the month.
    const recession = stress > 0.5 ? 0.3 + 1.2 * u(3) : 0;
    this.#unemployment += 0.04 * (4.2 - this.#unemployment) + 0.1 * n(4) + recession;
    this.#unemployment = Math.min(15, Math.max(3.2, this.#unemployment));
    this.#series.UNEMPLOYMENT.push({
      periodMs,
      releaseMs: releaseAt(nextYear, nextMonth, firstFriday(nextYear, nextMonth)),
      value: round(this.#unemployment, 1),
    });

    if (month % 3 === 0) {
      const quarterStart = Date.UTC(year, month - 3, 1);
      const growth =
        0.011 + 0.005 * n(5) - 0.03 * this.#stressShare(dayIndexOf(quarterStart), dayIndexOf(next.getTime()));
      if (i > 2) this.#gdp *= 1 + growth;
      this.#series.GDP.push({
        periodMs: quarterStart,
        releaseMs: releaseAt(nextYear, nextMonth, 28),
        value: round(this.#gdp, 3),
      });
    }
  }

  /** One US trading day of the effective fed funds rate (published the next morning). */
  #fedFunds(day: number): void {
    if (!sessionOf('us', day)) return;
    const date = new Date(dayStartMs(day));
    const meeting = FOMC.find(
      ([m, d]) => m === date.getUTCMonth() + 1 && date.getUTCDate() - d >= 0 && date.getUTCDate() - d < 7,
    );
    this.#series.FED_RATE.push({
      periodMs: date.getTime(),
      releaseMs: date.getTime() + DAY_MS + 14 * 3_600_000,
      value: round(this.#lowerBound + 0.08, 2),
    });
    // The decision is taken on the first Wednesday on or after the nominal date, effective next day.
    if (meeting && date.getUTCDay() === 3) this.#decide(day, date.getTime() + 19 * 3_600_000);
  }

  #decide(day: number, atMs: number): void {
    const cpi = this.#series.CPI.filter((o) => o.releaseMs <= atMs);
    const jobs = this.#series.UNEMPLOYMENT.filter((o) => o.releaseMs <= atMs);
    if (cpi.length < 13 || jobs.length === 0) return;
    const inflation = (cpi.at(-1)!.value / cpi.at(-13)!.value - 1) * 100;
    const unemployment = jobs.at(-1)!.value;
    const neutral = 2.5 + 1.5 * (inflation - 2) - 1.0 * (unemployment - 4.4);
    const target = Math.min(6, Math.max(0, neutral));
    const gap = target - this.#lowerBound;
    const stressed = this.factors.regime('market', day) === 2;
    let move = Math.abs(gap) < 0.375 ? 0 : Math.sign(gap) * (Math.abs(gap) > 1.5 ? 0.5 : 0.25);
    if (stressed && gap < 0) move = Math.min(move, -0.5);
    this.#lowerBound = Math.min(6.5, Math.max(0, this.#lowerBound + move));
  }
}

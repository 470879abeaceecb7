/**
 * Putting series of different frequencies on one time line (daily closes and 10-year yields,
 * monthly CPI, quarterly GDP) before any regression: an as-of join on anchor dates, then
 * period-to-period changes.
 *
 * Conventions for changes:
 * - rate-like series (yields, policy rate, unemployment rate) use first differences (`diff`,
 *   in their own units, e.g. percentage points): a rate's ratio means little, and it can be 0 or
 *   negative;
 * - level series (prices, CPI, GDP, indices, exchange rates) use log changes (`log`): they grow
 *   multiplicatively, and log changes add up over time and are comparable across scales.
 *
 * Time stamps should be when a value became known (a CPI print's release date, not the month it
 * describes); the as-of join then never lets a regression see a number before it was published.
 */
import { StatsError } from './errors.ts';

export interface TimedSeries {
  /** Epoch milliseconds, ascending. */
  readonly times: readonly number[];
  /** Same length as times. Non-finite values count as missing. */
  readonly values: readonly number[];
}

export interface AlignedSeries {
  /** The anchor times kept. */
  readonly times: number[];
  /** One array per input series, in input order, each as long as times. */
  readonly values: number[][];
}

/**
 * As-of join: for every anchor time, the last finite value at or before it of every series. Anchor
 * times before some series has its first value are dropped, so each kept row is complete.
 * O(total points + anchors x series).
 */
export function alignOnDates(series: readonly TimedSeries[], anchor: readonly number[]): AlignedSeries {
  series.forEach(checkSeries);
  checkAscending(anchor, 'anchor dates');
  // cursor[k]: index of the last observation of series k at or before the current anchor.
  const cursor = series.map(() => -1);
  const latest = series.map(() => Number.NaN);
  const times: number[] = [];
  const values: number[][] = series.map(() => []);
  for (const t of anchor) {
    let complete = true;
    for (let k = 0; k < series.length; k++) {
      const s = series[k]!;
      while (cursor[k]! + 1 < s.times.length && s.times[cursor[k]! + 1]! <= t) {
        cursor[k]!++;
        const v = s.values[cursor[k]!]!;
        if (Number.isFinite(v)) latest[k] = v;
      }
      if (Number.isNaN(latest[k]!)) complete = false;
    }
    if (!complete) continue;
    times.push(t);
    for (let k = 0; k < series.length; k++) values[k]!.push(latest[k]!);
  }
  return { times, values };
}

export type ChangeKind = 'log' | 'diff';

/**
 * Period-to-period changes, length n - 1: `log` = ln(v_t / v_{t-1}) for levels, `diff` =
 * v_t - v_{t-1} for rates (see the conventions above). Log changes need positive values.
 */
export function changes(values: ArrayLike<number>, kind: ChangeKind): Float64Array {
  const out = new Float64Array(Math.max(0, values.length - 1));
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v) || (kind === 'log' && v <= 0)) {
      throw new StatsError(
        'INVALID_INPUT',
        kind === 'log'
          ? `log changes need positive values; value ${i} is ${v} (use 'diff' for rates)`
          : `value ${i} is ${v}, not a finite number`,
        { index: i, value: v },
      );
    }
    if (i > 0) out[i - 1] = kind === 'log' ? Math.log(v / values[i - 1]!) : v - values[i - 1]!;
  }
  return out;
}

const DAY_MS = 86_400_000;

/** Median gap between observations in days (1 daily, ~7 weekly, ~30 monthly, ~91 quarterly). */
export function medianSpacingDays(times: readonly number[]): number {
  if (times.length < 2) return Number.POSITIVE_INFINITY;
  const gaps = times
    .slice(1)
    .map((t, i) => t - times[i]!)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]! / DAY_MS;
}

function checkSeries(s: TimedSeries, index: number): void {
  if (s.times.length !== s.values.length) {
    throw new StatsError(
      'INVALID_INPUT',
      `series ${index + 1} has ${s.times.length} times but ${s.values.length} values`,
      { series: index },
    );
  }
  checkAscending(s.times, `times of series ${index + 1}`);
}

function checkAscending(times: readonly number[], what: string): void {
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    if (!Number.isFinite(t) || (i > 0 && t < times[i - 1]!)) {
      throw new StatsError('INVALID_INPUT', `${what} must be finite and ascending; entry ${i} is ${t}`, {
        index: i,
      });
    }
  }
}

/**
 * Putting series of different frequencies on one time line (daily prices, monthly CPI, quarterly
 * GDP): an as-of join on anchor dates, then period-to-period changes.
 */
export interface TimeSeries {
  /** Epoch milliseconds, ascending. */
  readonly times: readonly number[];
  readonly values: readonly number[];
}

export interface Aligned {
  readonly times: number[];
  /** One array per input series, each value the last observation at or before the anchor time. */
  readonly values: number[][];
}

/** For each anchor time, the last value at or before it of every series; anchors before any series starts are dropped. */
export function alignOnDates(series: readonly TimeSeries[], anchors: readonly number[]): Aligned {
  const cursors = series.map(() => -1);
  const times: number[] = [];
  const values: number[][] = series.map(() => []);
  for (const anchor of anchors) {
    for (const [k, s] of series.entries()) {
      while (cursors[k]! + 1 < s.times.length && s.times[cursors[k]! + 1]! <= anchor) cursors[k]!++;
    }
    if (cursors.some((c) => c < 0)) continue;
    times.push(anchor);
    for (const [k, s] of series.entries()) values[k]!.push(s.values[cursors[k]!]!);
  }
  return { times, values };
}

/**
 * Period-to-period changes: `log` = ln(v_t / v_{t-1}) for levels (prices, indices, CPI, GDP);
 * `diff` = v_t - v_{t-1} for rates (yields, policy rate, unemployment), whose ratios mean little.
 */
export function changes(values: readonly number[], kind: 'log' | 'diff'): Float64Array {
  const out = new Float64Array(Math.max(0, values.length - 1));
  for (let i = 1; i < values.length; i++)
    out[i - 1] = kind === 'log' ? Math.log(values[i]! / values[i - 1]!) : values[i]! - values[i - 1]!;
  return out;
}

/** Median spacing of observations in days (1 daily, ~7 weekly, ~30 monthly, ~91 quarterly). */
export function medianSpacingDays(times: readonly number[]): number {
  if (times.length < 2) return Number.POSITIVE_INFINITY;
  const gaps = times
    .slice(1)
    .map((t, i) => t - times[i]!)
    .sort((a, b) => a - b);
  return gaps[Math.floor(gaps.length / 2)]! / 86_400_000;
}

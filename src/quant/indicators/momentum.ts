/** Momentum-style measures on closes: change over n bars and the Sharpe ratio of a window. */
import { assertPeriod, outputSeries } from './series.ts';
import { logReturns, mean, sampleStdDev } from './statistics.ts';

/** Momentum: close[i] - close[i - n], in price units. Warm-up: n values. */
export function momentum(close: ArrayLike<number>, n: number): Float64Array {
  assertPeriod(n, 'n');
  const out = outputSeries(close.length, n);
  for (let i = n; i < close.length; i++) out[i] = close[i]! - close[i - n]!;
  return out;
}

/**
 * Rate of change in percent: (close[i] / close[i - n] - 1) * 100, evaluated as
 * (close[i] - close[i - n]) / close[i - n] * 100, which is the same number without the
 * cancellation of `ratio - 1` for small changes. Warm-up: n values. The FK-DSL's MOMENTUM(window)
 * and PRICE_CHANGE(window) are this value at the last bar, with n = the window's bars.
 */
export function rateOfChange(close: ArrayLike<number>, n: number): Float64Array {
  assertPeriod(n, 'n');
  const out = outputSeries(close.length, n);
  for (let i = n; i < close.length; i++) {
    const base = close[i - n]!;
    out[i] = ((close[i]! - base) / base) * 100;
  }
  return out;
}

/**
 * Annualised Sharpe ratio of log returns: (mean(r) - rf) / sd(r) * sqrt(periodsPerYear), where r are
 * the log returns of `closes`, sd is their sample standard deviation (n - 1), and rf is the annual
 * risk-free rate `riskFree` (a fraction: 0.04 = 4 %) as a log return per period,
 * ln(1 + riskFree) / periodsPerYear, so both sides of the difference are in the same unit.
 * periodsPerYear: see quant/periods.ts (252 for listed daily bars, 365 for crypto). NaN with fewer than three
 * prices (two returns) or when the returns do not vary.
 */
export function sharpe(closes: ArrayLike<number>, periodsPerYear: number, riskFree = 0): number {
  if (!(periodsPerYear > 0)) throw new RangeError(`periodsPerYear must be positive, got ${periodsPerYear}`);
  if (closes.length < 3) return Number.NaN;
  const r = logReturns(closes);
  const sd = sampleStdDev(r);
  if (sd === 0) return Number.NaN;
  const riskFreePerPeriod = Math.log1p(riskFree) / periodsPerYear;
  return ((mean(r) - riskFreePerPeriod) / sd) * Math.sqrt(periodsPerYear);
}

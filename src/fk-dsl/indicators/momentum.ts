import { assertPeriod } from './moving-averages.ts';
import { logReturns, mean, sampleStdDev } from './statistics.ts';

/** close[i] - close[i - n]. Warm-up: n bars. */
export function momentum(close: ArrayLike<number>, n: number): Float64Array {
  assertPeriod(n);
  const out = new Float64Array(close.length).fill(Number.NaN);
  for (let i = n; i < close.length; i++) out[i] = close[i]! - close[i - n]!;
  return out;
}

/** (close[i] / close[i - n] - 1) * 100. Warm-up: n bars. */
export function rateOfChange(close: ArrayLike<number>, n: number): Float64Array {
  assertPeriod(n);
  const out = new Float64Array(close.length).fill(Number.NaN);
  for (let i = n; i < close.length; i++) out[i] = (close[i]! / close[i - n]! - 1) * 100;
  return out;
}

/**
 * Annualised Sharpe ratio of log returns: (mean - riskFree per period) / sample sd * sqrt(periods
 * per year); riskFree is an annual rate as a fraction. NaN with fewer than 3 prices or no variation.
 */
export function sharpe(close: ArrayLike<number>, periodsPerYear: number, riskFree = 0): number {
  if (close.length < 3) return Number.NaN;
  const r = logReturns(close);
  const sd = sampleStdDev(r);
  return sd === 0 ? Number.NaN : ((mean(r) - riskFree / periodsPerYear) / sd) * Math.sqrt(periodsPerYear);
}

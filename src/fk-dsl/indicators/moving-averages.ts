/**
 * Moving averages over typed arrays. Outputs have the input's length; positions inside the
 * warm-up (not enough data yet) are NaN.
 */

/** Simple moving average: mean of the last `period` values. Warm-up: period - 1. */
export function sma(values: ArrayLike<number>, period: number): Float64Array {
  assertPeriod(period);
  const out = new Float64Array(values.length).fill(Number.NaN);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += values[i]!;
    if (i >= period) sum -= values[i - period]!;
    if (i >= period - 1) out[i] = sum / period;
  }
  return out;
}

/**
 * Exponential moving average with alpha = 2 / (period + 1), seeded with the simple average of
 * the first `period` values (the TA-Lib convention). Warm-up: period - 1. NaN inputs before the
 * first finite value are skipped (so an EMA of another indicator's output works).
 */
export function ema(values: ArrayLike<number>, period: number): Float64Array {
  assertPeriod(period);
  const out = new Float64Array(values.length).fill(Number.NaN);
  const alpha = 2 / (period + 1);
  let start = 0;
  while (start < values.length && !Number.isFinite(values[start]!)) start++;
  if (values.length - start < period) return out;
  let seed = 0;
  for (let i = start; i < start + period; i++) seed += values[i]!;
  let prev = seed / period;
  out[start + period - 1] = prev;
  for (let i = start + period; i < values.length; i++) {
    prev = alpha * values[i]! + (1 - alpha) * prev;
    out[i] = prev;
  }
  return out;
}

export function assertPeriod(period: number): void {
  if (!Number.isInteger(period) || period < 1)
    throw new RangeError(`period must be a positive integer, got ${period}`);
}

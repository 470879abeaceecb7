import { assertPeriod } from './moving-averages.ts';

/**
 * Average True Range with Wilder smoothing. True range of bar i: max(high - low, |high - prevClose|,
 * |low - prevClose|); of the first bar: high - low. The first ATR (index period - 1) is the mean of
 * the first `period` true ranges, then atr = (prev * (period - 1) + tr) / period.
 */
export function atr(
  high: ArrayLike<number>,
  low: ArrayLike<number>,
  close: ArrayLike<number>,
  period = 14,
): Float64Array {
  assertPeriod(period);
  const n = close.length;
  const out = new Float64Array(n).fill(Number.NaN);
  if (n < period) return out;
  let sum = 0;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const h = high[i]!;
    const l = low[i]!;
    const tr = i === 0 ? h - l : Math.max(h - l, Math.abs(h - close[i - 1]!), Math.abs(l - close[i - 1]!));
    if (i < period) {
      sum += tr;
      if (i === period - 1) {
        prev = sum / period;
        out[i] = prev;
      }
    } else {
      prev = (prev * (period - 1) + tr) / period;
      out[i] = prev;
    }
  }
  return out;
}

export interface StochasticSeries {
  readonly k: Float64Array;
  readonly d: Float64Array;
}

/**
 * Slow stochastic oscillator. Raw %K = 100 * (close - lowest low) / (highest high - lowest low)
 * over `kPeriod` bars (50 when the range is zero); %K = SMA(kSmoothing) of raw %K; %D =
 * SMA(dPeriod) of %K. Warm-up: kPeriod + kSmoothing - 2 bars for %K, + dPeriod - 1 for %D.
 * Window extremes come from monotonic deques: O(n) whatever the period.
 */
export function stochastic(
  high: ArrayLike<number>,
  low: ArrayLike<number>,
  close: ArrayLike<number>,
  kPeriod = 14,
  kSmoothing = 3,
  dPeriod = 3,
): StochasticSeries {
  assertPeriod(kPeriod);
  assertPeriod(kSmoothing);
  assertPeriod(dPeriod);
  const n = close.length;
  const raw = new Float64Array(n).fill(Number.NaN);
  const maxQ = new Int32Array(n);
  const minQ = new Int32Array(n);
  let maxHead = 0;
  let maxTail = 0;
  let minHead = 0;
  let minTail = 0;
  for (let i = 0; i < n; i++) {
    while (maxTail > maxHead && high[maxQ[maxTail - 1]!]! <= high[i]!) maxTail--;
    maxQ[maxTail++] = i;
    while (minTail > minHead && low[minQ[minTail - 1]!]! >= low[i]!) minTail--;
    minQ[minTail++] = i;
    if (maxQ[maxHead]! <= i - kPeriod) maxHead++;
    if (minQ[minHead]! <= i - kPeriod) minHead++;
    if (i >= kPeriod - 1) {
      const hi = high[maxQ[maxHead]!]!;
      const lo = low[minQ[minHead]!]!;
      raw[i] = hi === lo ? 50 : (100 * (close[i]! - lo)) / (hi - lo);
    }
  }
  const k = smaFrom(raw, kSmoothing);
  return { k, d: smaFrom(k, dPeriod) };
}

/** SMA that starts where the input's values start (leading NaN skipped). */
function smaFrom(values: Float64Array, period: number): Float64Array {
  const out = new Float64Array(values.length).fill(Number.NaN);
  let start = 0;
  while (start < values.length && Number.isNaN(values[start]!)) start++;
  let sum = 0;
  for (let i = start; i < values.length; i++) {
    sum += values[i]!;
    if (i - start >= period) sum -= values[i - period]!;
    if (i - start >= period - 1) out[i] = sum / period;
  }
  return out;
}

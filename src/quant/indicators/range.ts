/** Indicators on the bars' high-low range: average true range and the stochastic oscillator. */
import { assertPeriod, assertSameLength, outputSeries, slidingMean } from './series.ts';

/**
 * Average True Range with Wilder smoothing. True range of bar i: max(high - low, |high - prevClose|,
 * |low - prevClose|); of the first bar (no previous close): high - low. The first ATR, at index
 * period - 1 (warm-up period - 1), is the mean of the first `period` true ranges; then
 * atr = (prev * (period - 1) + tr) / period. Bars must have high >= low.
 */
export function atr(
  high: ArrayLike<number>,
  low: ArrayLike<number>,
  close: ArrayLike<number>,
  period = 14,
): Float64Array {
  assertPeriod(period);
  assertSameLength(high, low, close);
  const n = close.length;
  const out = outputSeries(n, period - 1);
  if (n < period) return out;
  let sum = high[0]! - low[0]!;
  for (let i = 1; i < period; i++) sum += trueRange(high[i]!, low[i]!, close[i - 1]!);
  let value = sum / period;
  out[period - 1] = value;
  // Precomputed weights keep the division off the recurrence's critical path (a few ulps apart
  // from dividing each time; the smoothing is contractive, so they do not accumulate).
  const keep = (period - 1) / period;
  const weight = 1 / period;
  for (let i = period; i < n; i++) {
    value = value * keep + trueRange(high[i]!, low[i]!, close[i - 1]!) * weight;
    out[i] = value;
  }
  return out;
}

/**
 * max(high - low, |high - prevClose|, |low - prevClose|) for a bar with high >= low, written as
 * high - low plus the gap beyond the bar's range on either side (at most one is positive), each
 * as (x + |x|) / 2 = max(x, 0) exactly: no branch, where the comparisons would be mispredicted for
 * about every other bar. Equal to the three-way maximum within an ulp or two.
 */
function trueRange(high: number, low: number, previousClose: number): number {
  const above = previousClose - high;
  const below = low - previousClose;
  return high - low + (above + Math.abs(above)) * 0.5 + (below + Math.abs(below)) * 0.5;
}

export interface StochasticSeries {
  readonly k: Float64Array;
  readonly d: Float64Array;
}

/**
 * Slow stochastic oscillator. Raw %K = 100 * (close - lowest low) / (highest high - lowest low)
 * over the last `kPeriod` bars, and 50 (the middle) when that range is zero, where the formula is
 * 0 / 0 (technicalindicators and trading-signals answer 0 there); %K = SMA(kSmoothing) of raw %K;
 * %D = SMA(dPeriod) of %K. kSmoothing = 1 gives the fast stochastic. Warm-up: kPeriod + kSmoothing
 * - 2 values for %K, kPeriod + kSmoothing + dPeriod - 3 for %D.
 *
 * O(n) whatever kPeriod: window extremes by the van Herk / Gil-Werman scheme (running extremes
 * from the start of each block of kPeriod bars, and to the end of the previous block, give any
 * window's extreme with one comparison and no data-dependent loops).
 */
export function stochastic(
  high: ArrayLike<number>,
  low: ArrayLike<number>,
  close: ArrayLike<number>,
  kPeriod = 14,
  kSmoothing = 3,
  dPeriod = 3,
): StochasticSeries {
  assertPeriod(kPeriod, 'kPeriod');
  assertPeriod(kSmoothing, 'kSmoothing');
  assertPeriod(dPeriod, 'dPeriod');
  assertSameLength(high, low, close);
  const n = close.length;
  const kStart = kPeriod + kSmoothing - 2;
  const dStart = kStart + dPeriod - 1;
  const k = outputSeries(n, kSmoothing === 1 ? kPeriod - 1 : kStart);
  const d = outputSeries(n, dStart);
  const result: StochasticSeries = { k, d }; // before the loops: see macd()
  if (kSmoothing === 1) rawStochastic(high, low, close, kPeriod, k);
  else {
    // Raw %K is only needed to compute %K: it borrows %D's storage, which %D then overwrites (one
    // allocation less, and typed arrays cost garbage collections in proportion to their bytes).
    rawStochastic(high, low, close, kPeriod, d);
    slidingMean(d, kPeriod - 1, kSmoothing, k);
  }
  slidingMean(k, kStart, dPeriod, d);
  d.fill(Number.NaN, 0, Math.min(n, dStart));
  // Raw %K is within [0, 100] exactly (the division comes first and cannot round the ratio above 1);
  // a slid sum may exceed the window's exact sum by its bounded rounding, so the means are clamped.
  clamp(k, kStart, 0, 100);
  clamp(d, dStart, 0, 100);
  return result;
}

function clamp(values: Float64Array, from: number, low: number, high: number): void {
  for (let i = from; i < values.length; i++) {
    const v = values[i]!;
    if (v < low) values[i] = low;
    else if (v > high) values[i] = high;
  }
}

/** Writes raw %K into out[kPeriod - 1..]. */
function rawStochastic(
  high: ArrayLike<number>,
  low: ArrayLike<number>,
  close: ArrayLike<number>,
  kPeriod: number,
  out: Float64Array,
): void {
  const n = close.length;
  // Extremes from each position to the end of its block; index kPeriod is a neutral sentinel for
  // windows that coincide with a block.
  let tailHigh = new Float64Array(kPeriod + 1).fill(Number.NEGATIVE_INFINITY);
  let tailLow = new Float64Array(kPeriod + 1).fill(Number.POSITIVE_INFINITY);
  let nextHigh = new Float64Array(kPeriod + 1).fill(Number.NEGATIVE_INFINITY);
  let nextLow = new Float64Array(kPeriod + 1).fill(Number.POSITIVE_INFINITY);
  // Running extremes are updated by indexing a two-slot buffer with the comparison's outcome: new
  // highs come at random bars, so a branch there would be mispredicted often; this halves the time
  // on long series and, unlike arithmetic max formulas, selects the exact value.
  const pick = new Float64Array(2);
  for (let start = 0; start < n; start += kPeriod) {
    const end = Math.min(start + kPeriod, n);
    let headHigh = Number.NEGATIVE_INFINITY;
    let headLow = Number.POSITIVE_INFINITY;
    for (let i = start; i < end; i++) {
      const h = high[i]!;
      const l = low[i]!;
      pick[0] = headHigh;
      pick[1] = h;
      headHigh = pick[+(h > headHigh)]!;
      pick[0] = headLow;
      pick[1] = l;
      headLow = pick[+(l < headLow)]!;
      if (i < kPeriod - 1) continue;
      // The window [i - kPeriod + 1, i] is the previous block from offset i - start + 1 on plus this
      // block up to i. The tail shrinks and the head grows with i, so these comparisons change
      // outcome about once per block and predict well.
      const j = i - start + 1;
      const th = tailHigh[j]!;
      const tl = tailLow[j]!;
      const hi = th > headHigh ? th : headHigh;
      const lo = tl < headLow ? tl : headLow;
      const range = hi - lo;
      out[i] = range === 0 ? 50 : 100 * ((close[i]! - lo) / range);
    }
    let h = Number.NEGATIVE_INFINITY;
    let l = Number.POSITIVE_INFINITY;
    for (let i = end - 1; i >= start; i--) {
      const x = high[i]!;
      const y = low[i]!;
      pick[0] = h;
      pick[1] = x;
      h = pick[+(x > h)]!;
      pick[0] = l;
      pick[1] = y;
      l = pick[+(y < l)]!;
      nextHigh[i - start] = h;
      nextLow[i - start] = l;
    }
    const spareHigh = tailHigh;
    tailHigh = nextHigh;
    nextHigh = spareHigh;
    const spareLow = tailLow;
    tailLow = nextLow;
    nextLow = spareLow;
  }
}

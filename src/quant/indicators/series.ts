/**
 * Shared plumbing of the indicator functions. Conventions that hold for every indicator here:
 * - inputs are oldest-first price series (a plain array or a typed array);
 * - an output series has the input's length and holds NaN where the indicator is still warming up;
 * - inputs must be finite (providers drop bars without prices, so the evaluator never passes NaN).
 *   Checking every value would cost as much as some indicators do; a NaN close generally turns the
 *   values that depend on it, and for the recursive ones (EMA, RSI, ATR, MACD) every later value,
 *   into NaN, but a NaN high or low is not guaranteed to show in the stochastic's window extremes.
 */

export function assertPeriod(period: number, name = 'period'): void {
  if (!Number.isInteger(period) || period < 1)
    throw new RangeError(`${name} must be a positive integer, got ${period}`);
}

export function assertSameLength(...series: ArrayLike<number>[]): void {
  const n = series[0]?.length ?? 0;
  for (const s of series)
    if (s.length !== n)
      throw new RangeError(`series lengths differ: ${series.map((x) => x.length).join(' vs ')}`);
}

/**
 * An output series of length n whose first `warmup` values are NaN. Only the warm-up is filled:
 * the rest is written by the caller, and filling it too would cost a whole extra pass.
 */
export function outputSeries(n: number, warmup: number): Float64Array {
  const out = new Float64Array(n);
  out.fill(Number.NaN, 0, Math.min(n, warmup));
  return out;
}

/**
 * An indicator output that is written value by value: a Float64Array, or for a short series a plain
 * array of numbers (see `overwrittenSeries`). Read it by index, `length` and `at` alike.
 */
export type Series = Float64Array | number[];

/** Series at most this long are plain arrays (on the JS heap); longer ones are Float64Arrays. */
export const HEAP_SERIES_MAX_LENGTH = 8_192;

/** What short outputs are cut from: as many NaN as the longest one asked for so far (a plain array of doubles). */
let nans: number[] = [Number.NaN];

/**
 * `outputSeries` whose values past the warm-up are left for the caller, for an indicator that
 * writes every one of them (EMA and MACD): zeroing a fresh output costs as much as computing a
 * fast indicator into it. The caller must write out[warmup..n), all of it, before the series
 * leaves it: nothing else may ever read those values.
 *
 * A short output (a decade of daily bars is 2,520) is a plain array cut from an array of NaN: it
 * lives in the young generation of the JS heap, whose pages the collector reuses while they are
 * warm. A Float64Array's memory comes from the C allocator instead, which returns it to the system
 * after a collection, so each new output would then fault its pages in again: on the decade of
 * bars that costs several times the EMA itself. A long output is a Float64Array, whose page faults
 * are small beside its computation and which the collector does not have to copy.
 */
export function overwrittenSeries(n: number, warmup: number): Series {
  if (n <= HEAP_SERIES_MAX_LENGTH) {
    if (nans.length < n) nans = growNans(n);
    return nans.slice(0, n);
  }
  const bytes = Buffer.allocUnsafeSlow(n * Float64Array.BYTES_PER_ELEMENT);
  const out = new Float64Array(bytes.buffer, bytes.byteOffset, n);
  out.fill(Number.NaN, 0, Math.min(n, warmup));
  return out;
}

function growNans(n: number): number[] {
  const grown = nans.slice();
  while (grown.length < n) grown.push(Number.NaN);
  return grown;
}

/** Sum of values[from..to), four partial sums at a time (shorter dependency chain, same accuracy class). */
export function windowSum(values: ArrayLike<number>, from: number, to: number): number {
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = from;
  for (; i + 3 < to; i += 4) {
    a += values[i]!;
    b += values[i + 1]!;
    c += values[i + 2]!;
    d += values[i + 3]!;
  }
  for (; i < to; i++) a += values[i]!;
  return a + b + (c + d);
}

/** Largest relative rounding error of one floating-point operation (2^-53). */
export const UNIT_ROUNDOFF = 2 ** -53;

/**
 * Sliding window statistics (O(1) per bar) keep a first-order bound on the rounding error their
 * updates have accumulated, and recompute the window exactly when the bound exceeds this fraction of
 * the statistic's scale. So they stay as accurate as the direct formula to about 1e-12 whatever the
 * series' length or path (a plain running sum drifts: after a long fall from high prices its
 * leftover error can swamp the small values), while on ordinary prices the exact recomputations are
 * rare (an SMA's every few thousand bars, the Bollinger variance's every 80 or so).
 */
export const SLIDING_TOLERANCE = 1e-12;

/**
 * Writes the simple moving average of values[from..] into out[from + period - 1..]: the window sum
 * slides with one addition per bar, with an exact recomputation whenever the error bound of the
 * updates exceeds SLIDING_TOLERANCE of the sum of the window's absolute values (the scale of the
 * direct sum's own rounding).
 */
export function slidingMean(
  values: ArrayLike<number>,
  from: number,
  period: number,
  out: Float64Array,
): void {
  const n = values.length;
  if (n - from < period) return;
  // Multiplying by 1 / period instead of dividing is within an ulp and keeps divisions out of the loop.
  const inv = 1 / period;
  // Module constants copied to locals, which the compiler keeps in registers (see bollinger()).
  const roundoff = UNIT_ROUNDOFF;
  const tolerance = SLIDING_TOLERANCE;
  let sum = 0;
  let magnitude = 0;
  let err = 0;
  for (let i = from + period - 1; i < n; i++) {
    let exact = i === from + period - 1;
    if (!exact) {
      const incoming = values[i]!;
      const outgoing = values[i - period]!;
      // The difference is taken first so that only one addition sits on the loop-carried chain.
      const step = incoming - outgoing;
      sum += step;
      magnitude += Math.abs(incoming) - Math.abs(outgoing);
      err += Math.abs(step) + Math.abs(sum);
      exact = err * roundoff > tolerance * magnitude;
    }
    if (exact) {
      sum = windowSum(values, i - period + 1, i + 1);
      magnitude = 0;
      for (let j = i - period + 1; j <= i; j++) magnitude += Math.abs(values[j]!);
      err = 0;
    }
    out[i] = sum * inv;
  }
}

/**
 * Test support for the indicator proofs (imported by *.test.ts only): the recorded TSLA history,
 * alignment of other libraries' outputs to ours, comparison with a stated tolerance, and exact
 * (BigInt) window statistics to judge floating-point results against.
 */
import { expect } from 'vitest';
import { fixtureJson } from './fixtures.ts';

interface Chart {
  chart: {
    result: Array<{
      timestamp: number[];
      indicators: { quote: Array<Record<'open' | 'high' | 'low' | 'close', Array<number | null>>> };
    }>;
  };
}

/**
 * Yahoo's recording of TSLA's whole daily history (2010-06-29 to 2023-08-11, split-adjusted):
 * real prices from about 1 to 400 with gaps, crashes and quiet stretches. Bars without a price
 * (none in this recording) would be dropped, as the providers do.
 */
export function tslaHistory() {
  const result = fixtureJson<Chart>('yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json').chart.result[0]!;
  const quote = result.indicators.quote[0]!;
  const rows = quote.close
    .map((close, i) => ({ close, high: quote.high[i], low: quote.low[i] }))
    .filter(
      (r): r is { close: number; high: number; low: number } =>
        r.close != null && r.high != null && r.low != null,
    );
  return {
    close: Float64Array.from(rows, (r) => r.close),
    high: Float64Array.from(rows, (r) => r.high),
    low: Float64Array.from(rows, (r) => r.low),
    /** trading-signals' candle input. */
    candles: rows,
    n: rows.length,
  };
}

/** Puts a library's output (defined values only, newest last) at the end of a series of length n. */
export function padFront(values: ArrayLike<number | null | undefined>, n: number): Float64Array {
  const out = new Float64Array(n).fill(Number.NaN);
  const offset = n - values.length;
  for (let i = 0; i < values.length; i++) out[offset + i] = values[i] ?? Number.NaN;
  return out;
}

/**
 * Feeds a trading-signals indicator one input at a time; the result has one value per input, NaN
 * where it had none yet (so warm-ups can be compared position by position).
 */
export function streamed<I, O>(
  indicator: { update(input: I, replace: boolean): O | null },
  inputs: readonly I[],
  pick: (output: O) => number,
): Float64Array {
  return Float64Array.from(inputs, (input) => {
    const output = indicator.update(input, false);
    return output === null || output === undefined ? Number.NaN : pick(output);
  });
}

/**
 * Error of `a` against the reference `b`: relative to |b|, or absolute where |b| < 1 (oscillators
 * and MACD cross zero, where a relative error means nothing).
 */
export function errorOf(a: number, b: number): number {
  return Math.abs(a - b) / Math.max(1, Math.abs(b));
}

/**
 * Asserts that `ours` equals `theirs` position by position from index `from` on: both NaN (the
 * same warm-up), or within `tolerance` (see errorOf). Returns the largest error seen.
 */
export function expectSeries(
  ours: ArrayLike<number>,
  theirs: ArrayLike<number>,
  tolerance: number,
  from = 0,
): number {
  expect(ours.length).toBe(theirs.length);
  let worst = 0;
  for (let i = from; i < ours.length; i++) {
    const a = ours[i]!;
    const b = theirs[i]!;
    if (Number.isNaN(a) || Number.isNaN(b)) {
      expect(Number.isNaN(a) && Number.isNaN(b), `index ${i}: ${a} vs ${b} (warm-ups differ)`).toBe(true);
      continue;
    }
    const error = errorOf(a, b);
    if (error > worst) worst = error;
    if (error > tolerance) expect(error, `index ${i}: ${a} vs ${b}`).toBeLessThanOrEqual(tolerance);
  }
  return worst;
}

/** Bars after which a seed's influence (1 - alpha)^k on an EMA has fallen below `fraction`. */
export function barsToForget(alpha: number, fraction: number): number {
  return Math.ceil(Math.log(fraction) / Math.log(1 - alpha));
}

const SCALE_BITS = 90;

/**
 * Exact mean and population standard deviation of every window of `period` values (NaN during the
 * warm-up), from sums kept as BigInt multiples of 2^-90: no rounding at all until the final
 * conversion, so the results are correct to an ulp or two. Values must be multiples of 2^-90
 * (every double from about 1e-9 up is).
 */
export function exactWindowStats(values: ArrayLike<number>, period: number) {
  const n = values.length;
  const mean = new Float64Array(n).fill(Number.NaN);
  const sd = new Float64Array(n).fill(Number.NaN);
  const scaled = Array.from(values, (x) => {
    const v = x * 2 ** SCALE_BITS;
    if (!Number.isInteger(v)) throw new RangeError(`${x} is not a multiple of 2^-${SCALE_BITS}`);
    return BigInt(v);
  });
  const p = BigInt(period);
  let s1 = 0n;
  let s2 = 0n;
  for (let i = 0; i < n; i++) {
    const x = scaled[i]!;
    s1 += x;
    s2 += x * x;
    if (i >= period) {
      const y = scaled[i - period]!;
      s1 -= y;
      s2 -= y * y;
    }
    if (i >= period - 1) {
      mean[i] = Number(s1) / period / 2 ** SCALE_BITS;
      // p^2 * M2 * 2^180 = p * sum(x^2) - sum(x)^2, an exact non-negative integer.
      sd[i] = Math.sqrt(Number(p * s2 - s1 * s1)) / period / 2 ** SCALE_BITS;
    }
  }
  return { mean, sd };
}

import {
  assertPeriod,
  outputSeries,
  overwrittenSeries,
  type Series,
  SLIDING_TOLERANCE,
  UNIT_ROUNDOFF,
  windowSum,
} from './series.ts';

/**
 * Relative Strength Index with Wilder's smoothing: the first average gain and loss are the simple
 * means of the first `period` changes, then avg = (avg * (period - 1) + current) / period.
 * Warm-up: `period` values (the first RSI is at index `period`). RSI = 100 * gain / (gain + loss):
 * 100 when there were only gains, 0 with only losses, 50 when the price did not move at all.
 */
export function rsi(closes: ArrayLike<number>, period = 14): Float64Array {
  assertPeriod(period);
  const n = closes.length;
  const out = outputSeries(n, period);
  if (n <= period) return out;
  let gain = 0;
  let loss = 0;
  for (let i = 1; i <= period; i++) {
    const change = closes[i]! - closes[i - 1]!;
    if (change > 0) gain += change;
    else loss -= change;
  }
  gain /= period;
  loss /= period;
  out[period] = toRsi(gain, loss);
  // Multiplying by precomputed weights keeps a division off the recurrence's critical path; the
  // result differs from dividing by `period` by a few ulps at most (the smoothing is contractive).
  const keep = (period - 1) / period;
  const half = 0.5 / period;
  for (let i = period + 1; i < n; i++) {
    const change = closes[i]! - closes[i - 1]!;
    // (|c| + c) / 2 is max(c, 0) exactly, without a branch the CPU would mispredict half the time.
    const size = Math.abs(change);
    gain = gain * keep + (size + change) * half;
    loss = loss * keep + (size - change) * half;
    out[i] = toRsi(gain, loss);
  }
  return out;
}

/**
 * 100 * G / (G + L) is 100 - 100 / (1 + G / L) without its cancellation near 0 and with one
 * division. Dividing first keeps the result within [0, 100] exactly (G / (G + L) cannot round above 1).
 */
function toRsi(gain: number, loss: number): number {
  const total = gain + loss;
  return total === 0 ? 50 : 100 * (gain / total);
}

export interface MacdSeries {
  readonly macd: Series;
  readonly signal: Series;
  readonly histogram: Series;
}

/**
 * MACD: EMA(fast) - EMA(slow) of closes (SMA-seeded EMAs, as ema()), signal = EMA(signal) of the
 * MACD line, histogram = MACD - signal. Warm-up: slow - 1 values for the line, slow + signal - 2
 * for the signal and histogram. One fused pass: the recurrences of three ema() calls without the
 * intermediate arrays (a few ulps from them, as ema() unrolls its loop four bars at a time).
 */
export function macd(closes: ArrayLike<number>, fast = 12, slow = 26, signalPeriod = 9): MacdSeries {
  assertPeriod(fast, 'MACD fast period');
  assertPeriod(slow, 'MACD slow period');
  assertPeriod(signalPeriod, 'MACD signal period');
  if (fast >= slow) throw new RangeError(`MACD fast period (${fast}) must be shorter than slow (${slow})`);
  const n = closes.length;
  const lineStart = slow - 1;
  const signalStart = slow + signalPeriod - 2;
  // The loops below write every value past each warm-up (up to n, wherever they stop early).
  const line = overwrittenSeries(n, lineStart);
  const signal = overwrittenSeries(n, signalStart);
  const histogram = overwrittenSeries(n, signalStart);
  // Built before the loops: code after a hot loop that has never run when V8 compiles the loop
  // on-stack can make that compiled loop bail out at the end of every later call.
  const result: MacdSeries = { macd: line, signal, histogram };
  if (n < slow) return result;
  const af = 2 / (fast + 1);
  const kf = 1 - af;
  const as = 2 / (slow + 1);
  const ks = 1 - as;
  const ag = 2 / (signalPeriod + 1);
  const kg = 1 - ag;
  let f = windowSum(closes, 0, fast) / fast;
  for (let i = fast; i < slow; i++) f = af * closes[i]! + kf * f;
  let s = windowSum(closes, 0, slow) / slow;
  line[lineStart] = f - s;
  // The signal's seed is the mean of the first signalPeriod line values, so those come first.
  const seeded = Math.min(n, signalStart + 1);
  for (let i = slow; i < seeded; i++) {
    const x = closes[i]!;
    f = af * x + kf * f;
    s = as * x + ks * s;
    line[i] = f - s;
  }
  if (n <= signalStart) return result;
  let g = windowSum(line, lineStart, signalStart + 1) / signalPeriod;
  signal[signalStart] = g;
  histogram[signalStart] = line[signalStart]! - g;
  for (let i = signalStart + 1; i < n; i++) {
    const x = closes[i]!;
    f = af * x + kf * f;
    s = as * x + ks * s;
    const m = f - s;
    g = ag * m + kg * g;
    line[i] = m;
    signal[i] = g;
    histogram[i] = m - g;
  }
  return result;
}

export interface BollingerSeries {
  readonly middle: Float64Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
}

/**
 * Bollinger bands: SMA(period) ± k population standard deviations (divisor `period`, as Bollinger,
 * TA-Lib and both comparison libraries define it) over the same window. Warm-up: period - 1.
 *
 * O(n) for price-like series: the window's mean and sum of squared deviations (M2) slide by one bar
 * with a Welford-style update on values shifted by the window mean at the last exact computation, so
 * the update works on deviations of the order of the band width, not on price levels (the textbook
 * sum of squares cancels catastrophically there). Beside them runs a first-order bound on the
 * rounding error the updates have accumulated; when it exceeds SLIDING_TOLERANCE of the mean or of
 * M2, the window is recomputed exactly (corrected two-pass). Every band therefore stays within about
 * 1e-12 (relative) of the direct formula, after a crash from high prices or on a flat stretch too;
 * daily prices need an exact window every 80 bars or so, which adds a few percent to the work.
 * accuracy.test.ts checks this against exact arithmetic.
 */
export function bollinger(closes: ArrayLike<number>, period = 20, k = 2): BollingerSeries {
  assertPeriod(period);
  const n = closes.length;
  const middle = outputSeries(n, period - 1);
  const upper = outputSeries(n, period - 1);
  const lower = outputSeries(n, period - 1);
  const result: BollingerSeries = { middle, upper, lower }; // before the loops: see macd()
  const inv = 1 / period;
  // Imported constants are copied to locals: read in the loop, each access went through the module
  // binding (a getter under tsx's transform), which made this function six times slower.
  const roundoff = UNIT_ROUNDOFF;
  const tolerance = SLIDING_TOLERANCE;
  let i = period - 1;
  while (i < n) {
    // The window ending at i, exactly, by the corrected two-pass algorithm: the sum of the
    // deviations (zero in exact arithmetic) removes the first-order error of the computed mean.
    const from = i - period + 1;
    const shift = windowSum(closes, from, i + 1) * inv;
    let sq = 0;
    let dev = 0;
    for (let j = from; j <= i; j++) {
      const d = closes[j]! - shift;
      sq += d * d;
      dev += d;
    }
    let mean = dev * inv;
    let m2 = sq - dev * mean;
    writeBands(result, i, shift + mean, m2 * inv, k);
    // Then slide, until the error bound asks for the next exact window.
    let meanErr = 0;
    let m2Err = 0;
    for (i++; i < n; i++) {
      const x = closes[i]! - shift;
      const y = closes[i - period]! - shift;
      const previous = mean;
      const step = x - y;
      mean += step * inv;
      const a = x - mean;
      const b = y - previous;
      m2 += step * (a + b);
      // First-order bound on the rounding error accumulated since the exact window, in units of
      // `roundoff` (each operation errs by at most that fraction of its result). With
      // s = |x| + |y| + |step| and w = s + 2|mean|: the mean gains at most 3s / period + |mean|,
      // and M2 at most 5w^2 + |M2| plus 2|step| times the mean's error (it enters both deviations).
      const size = Math.abs(step);
      const s = Math.abs(x) + Math.abs(y) + size;
      const centre = Math.abs(mean);
      const w = s + 2 * centre;
      meanErr += 3 * inv * s + centre;
      m2Err += 5 * w * w + Math.abs(m2) + 2 * size * meanErr;
      if (m2Err * roundoff > tolerance * m2 || meanErr * roundoff > tolerance * (Math.abs(shift) + w)) break;
      writeBands(result, i, shift + mean, m2 * inv, k);
    }
  }
  return result;
}

function writeBands(bands: BollingerSeries, i: number, mean: number, variance: number, k: number): void {
  // The sliding update can leave the variance a few ulps below zero where it is exactly zero.
  const width = k * Math.sqrt(variance > 0 ? variance : 0);
  bands.middle[i] = mean;
  bands.upper[i] = mean + width;
  bands.lower[i] = mean - width;
}

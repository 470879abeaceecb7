import { assertPeriod } from './moving-averages.ts';

/**
 * Relative Strength Index with Wilder's smoothing: the first average gain/loss is the simple
 * mean of the first `period` changes, then avg = (avg * (period - 1) + current) / period.
 * Warm-up: `period` values (the first RSI is at index `period`). RSI is 100 when there were no
 * losses and 50 when price did not move at all.
 */
export function rsi(closes: ArrayLike<number>, period = 14): Float64Array {
  assertPeriod(period);
  const out = new Float64Array(closes.length).fill(Number.NaN);
  if (closes.length <= period) return out;
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
  for (let i = period + 1; i < closes.length; i++) {
    const change = closes[i]! - closes[i - 1]!;
    gain = (gain * (period - 1) + Math.max(change, 0)) / period;
    loss = (loss * (period - 1) + Math.max(-change, 0)) / period;
    out[i] = toRsi(gain, loss);
  }
  return out;
}

function toRsi(gain: number, loss: number): number {
  if (loss === 0) return gain === 0 ? 50 : 100;
  return 100 - 100 / (1 + gain / loss);
}

export interface MacdSeries {
  readonly macd: Float64Array;
  readonly signal: Float64Array;
  readonly histogram: Float64Array;
}

/**
 * MACD: EMA(fast) - EMA(slow) of closes (SMA-seeded EMAs), signal = EMA(signal) of the MACD line,
 * histogram = MACD - signal. Warm-up: slow - 1 for the line, slow + signal - 2 for the signal.
 * One fused pass (the same arithmetic as three ema() calls, without the intermediate arrays).
 */
export function macd(closes: ArrayLike<number>, fast = 12, slow = 26, signalPeriod = 9): MacdSeries {
  if (fast >= slow) throw new RangeError(`MACD fast period (${fast}) must be shorter than slow (${slow})`);
  assertPeriod(fast);
  assertPeriod(signalPeriod);
  const n = closes.length;
  const line = new Float64Array(n).fill(Number.NaN);
  const signal = new Float64Array(n).fill(Number.NaN);
  const histogram = new Float64Array(n).fill(Number.NaN);
  const af = 2 / (fast + 1);
  const as = 2 / (slow + 1);
  const ag = 2 / (signalPeriod + 1);
  let f = 0;
  let sl = 0;
  let g = 0;
  let seedF = 0;
  let seedS = 0;
  let seedG = 0;
  for (let i = 0; i < n; i++) {
    const x = closes[i]!;
    if (i < fast) {
      seedF += x;
      if (i === fast - 1) f = seedF / fast;
    } else f = af * x + (1 - af) * f;
    if (i < slow) {
      seedS += x;
      if (i === slow - 1) sl = seedS / slow;
      else continue;
    } else sl = as * x + (1 - as) * sl;
    const m = f - sl;
    line[i] = m;
    const k = i - (slow - 1);
    if (k < signalPeriod) {
      seedG += m;
      if (k === signalPeriod - 1) g = seedG / signalPeriod;
      else continue;
    } else g = ag * m + (1 - ag) * g;
    signal[i] = g;
    histogram[i] = m - g;
  }
  return { macd: line, signal, histogram };
}

export interface BollingerSeries {
  readonly middle: Float64Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
}

/**
 * Bollinger bands: SMA(period) ± k population standard deviations over the same window. The
 * window's mean and sum of squared deviations slide in O(1) per bar (Welford-style update), which
 * stays accurate where the naive sum-of-squares formula would cancel.
 */
export function bollinger(closes: ArrayLike<number>, period = 20, k = 2): BollingerSeries {
  const n = closes.length;
  const middle = new Float64Array(n).fill(Number.NaN);
  const upper = new Float64Array(n).fill(Number.NaN);
  const lower = new Float64Array(n).fill(Number.NaN);
  if (n < period) return { middle, upper, lower };
  let mean = 0;
  let m2 = 0;
  for (let i = 0; i < period; i++) {
    const x = closes[i]!;
    const delta = x - mean;
    mean += delta / (i + 1);
    m2 += delta * (x - mean);
  }
  for (let i = period - 1; i < n; i++) {
    if (i >= period) {
      const incoming = closes[i]!;
      const outgoing = closes[i - period]!;
      const previous = mean;
      mean += (incoming - outgoing) / period;
      m2 += (incoming - outgoing) * (incoming - mean + outgoing - previous);
    }
    const sd = Math.sqrt(Math.max(0, m2) / period);
    middle[i] = mean;
    upper[i] = mean + k * sd;
    lower[i] = mean - k * sd;
  }
  return { middle, upper, lower };
}

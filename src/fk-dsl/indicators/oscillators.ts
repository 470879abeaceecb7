import { assertPeriod, ema, sma } from './moving-averages.ts';

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
 */
export function macd(closes: ArrayLike<number>, fast = 12, slow = 26, signalPeriod = 9): MacdSeries {
  if (fast >= slow) throw new RangeError(`MACD fast period (${fast}) must be shorter than slow (${slow})`);
  const f = ema(closes, fast);
  const s = ema(closes, slow);
  const line = new Float64Array(closes.length);
  for (let i = 0; i < closes.length; i++) line[i] = f[i]! - s[i]!;
  const signal = ema(line, signalPeriod);
  const histogram = new Float64Array(closes.length);
  for (let i = 0; i < closes.length; i++) histogram[i] = line[i]! - signal[i]!;
  return { macd: line, signal, histogram };
}

export interface BollingerSeries {
  readonly middle: Float64Array;
  readonly upper: Float64Array;
  readonly lower: Float64Array;
}

/** Bollinger bands: SMA(period) ± k population standard deviations over the same window. */
export function bollinger(closes: ArrayLike<number>, period = 20, k = 2): BollingerSeries {
  const middle = sma(closes, period);
  const upper = new Float64Array(closes.length).fill(Number.NaN);
  const lower = new Float64Array(closes.length).fill(Number.NaN);
  for (let i = period - 1; i < closes.length; i++) {
    const mean = middle[i]!;
    let sq = 0;
    for (let j = i - period + 1; j <= i; j++) sq += (closes[j]! - mean) ** 2;
    const sd = Math.sqrt(sq / period);
    upper[i] = mean + k * sd;
    lower[i] = mean - k * sd;
  }
  return { middle, upper, lower };
}

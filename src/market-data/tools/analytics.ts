import { alignedLogReturns } from '../../quant/bar-alignment.ts';
import { ema, sma } from '../../quant/indicators/moving-averages.ts';
import { macd, rsi } from '../../quant/indicators/oscillators.ts';
import { annualizedVolatility, beta } from '../../quant/indicators/statistics.ts';
import { trend } from '../../quant/indicators/trend.ts';
import { ANNUALISED_DAILY, periodsPerYear } from '../../quant/periods.ts';
import { roundFloat } from '../../quant/round.ts';
import type { AssetClass, Bar } from '../types.ts';

/** Technical picture of an instrument from its daily closes, with the conventions used. */
export interface TechnicalSummary {
  readonly asOf: Date;
  readonly close: number;
  readonly rsi14: number | null;
  readonly sma20: number | null;
  readonly sma50: number | null;
  readonly sma200: number | null;
  readonly ema20: number | null;
  readonly macd: { readonly line: number; readonly signal: number; readonly histogram: number } | null;
  /** Annualised volatility of daily log returns over the last 30 returns. */
  readonly volatility30d: number | null;
  /** Where the close sits in its 52-week range (0 = at the low, 1 = at the high). */
  readonly rangePosition52w: number | null;
  readonly trend: 'uptrend' | 'downtrend' | 'sideways' | 'unknown';
  readonly barsUsed: number;
  readonly conventions: string;
}

export const TECHNICAL_CONVENTIONS =
  'Daily closes. RSI 14 with Wilder smoothing; SMA/EMA simple and SMA-seeded exponential averages; ' +
  'MACD 12/26/9 on EMAs; volatility = sample standard deviation of the last 30 daily log returns ' +
  `${ANNUALISED_DAILY}; trend = close vs SMA 50 and SMA 50 vs SMA 200.`;

/** The last value of an indicator series, as the summary reports it (rounded: it is derived). */
const last = (series: ArrayLike<number>) => {
  const v = series[series.length - 1];
  return v === undefined || Number.isNaN(v) ? null : roundFloat(v);
};

export function technicalSummary(bars: readonly Bar[], assetClass: AssetClass): TechnicalSummary | null {
  if (bars.length < 2) return null;
  const closes = Float64Array.from(bars, (b) => b.close);
  const close = closes[closes.length - 1]!;
  const m = macd(closes);
  const line = last(m.macd);
  const signal = last(m.signal);
  const sma50 = last(sma(closes, 50));
  const sma200 = last(sma(closes, 200));
  const window = bars.slice(-periodsPerYear(assetClass));
  const hi = Math.max(...window.map((b) => b.high));
  const lo = Math.min(...window.map((b) => b.low));
  const direction = trend(closes);
  return {
    asOf: bars.at(-1)!.time,
    close,
    rsi14: last(rsi(closes, 14)),
    sma20: last(sma(closes, 20)),
    sma50,
    sma200,
    ema20: last(ema(closes, 20)),
    macd: line !== null && signal !== null ? { line, signal, histogram: roundFloat(line - signal) } : null,
    volatility30d:
      closes.length > 30
        ? roundFloat(annualizedVolatility(closes.slice(-31), periodsPerYear(assetClass)))
        : null,
    rangePosition52w: hi > lo ? roundFloat((close - lo) / (hi - lo)) : null,
    trend: direction === 'up' ? 'uptrend' : direction === 'down' ? 'downtrend' : (direction ?? 'unknown'),
    barsUsed: bars.length,
    conventions: TECHNICAL_CONVENTIONS,
  };
}

/** 52-week high/low and average daily volume (last 63 sessions, about three months) from daily bars. */
export function rangeAndVolume(bars: readonly Bar[], assetClass: AssetClass) {
  const year = bars.slice(-periodsPerYear(assetClass));
  const recent = bars.slice(-63).filter((b) => b.volume !== null);
  return {
    week52High: year.length ? Math.max(...year.map((b) => b.high)) : null,
    week52Low: year.length ? Math.min(...year.map((b) => b.low)) : null,
    averageVolume: recent.length
      ? roundFloat(recent.reduce((s, b) => s + (b.volume ?? 0), 0) / recent.length)
      : null,
  };
}

/** Beta of daily log returns against a benchmark's, on the dates both have (at least 60). */
export function betaAgainst(bars: readonly Bar[], benchmark: readonly Bar[]): number | null {
  const returns = alignedLogReturns(bars, benchmark, 'day');
  if (returns.a.length < 60) return null;
  const value = beta(returns.a, returns.b);
  return Number.isFinite(value) ? roundFloat(value) : null;
}

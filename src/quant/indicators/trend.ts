import { sma } from './moving-averages.ts';

export type TrendDirection = 'up' | 'down' | 'sideways';

/**
 * The moving-average trend rule used by the data tools and FK-DSL's TREND: up when close > SMA 50
 * > SMA 200, down when close < SMA 50 < SMA 200, sideways otherwise; null with fewer than 200 closes.
 */
export function trend(closes: ArrayLike<number>): TrendDirection | null {
  if (closes.length < 200) return null;
  const last = (series: Float64Array) => series[series.length - 1]!;
  const close = closes[closes.length - 1]!;
  const s50 = last(sma(closes, 50));
  const s200 = last(sma(closes, 200));
  if (close > s50 && s50 > s200) return 'up';
  if (close < s50 && s50 < s200) return 'down';
  return 'sideways';
}

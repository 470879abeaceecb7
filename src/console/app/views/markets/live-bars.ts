/** Ranges, intervals, and how a live tick moves the candles (pure functions, no DOM). */
import type { Bar, BarInterval } from './queries.ts';

export const INTERVALS: readonly { id: BarInterval; label: string; seconds: number }[] = [
  { id: 'ONE_MINUTE', label: '1 minute', seconds: 60 },
  { id: 'FIVE_MINUTES', label: '5 minutes', seconds: 300 },
  { id: 'FIFTEEN_MINUTES', label: '15 minutes', seconds: 900 },
  { id: 'THIRTY_MINUTES', label: '30 minutes', seconds: 1800 },
  { id: 'ONE_HOUR', label: '1 hour', seconds: 3600 },
  { id: 'ONE_DAY', label: '1 day', seconds: 86_400 },
];

/** Each range with the interval that gives it a readable number of candles (a few hundred). */
export const RANGES: readonly { id: string; label: string; seconds: number; interval: BarInterval }[] = [
  { id: '1d', label: '1 day', seconds: 86_400, interval: 'FIVE_MINUTES' },
  { id: '1w', label: '1 week', seconds: 7 * 86_400, interval: 'THIRTY_MINUTES' },
  { id: '1m', label: '1 month', seconds: 30 * 86_400, interval: 'ONE_HOUR' },
  { id: '3m', label: '3 months', seconds: 91 * 86_400, interval: 'ONE_DAY' },
  { id: '1y', label: '1 year', seconds: 365 * 86_400, interval: 'ONE_DAY' },
  { id: '5y', label: '5 years', seconds: 5 * 365 * 86_400, interval: 'ONE_DAY' },
];

/** Past this many bars a range is paged too long for a chart one reads (the API's cap is 50000). */
export const MAX_BARS = 5000;

export function intervalSeconds(id: BarInterval): number {
  return INTERVALS.find((i) => i.id === id)?.seconds ?? 86_400;
}

/** Whether `interval` over `rangeSeconds` stays under MAX_BARS (crypto trades around the clock). */
export function fits(interval: BarInterval, rangeSeconds: number): boolean {
  return rangeSeconds / intervalSeconds(interval) <= MAX_BARS;
}

/** A candle as the chart takes it: time in whole seconds (UTC). */
export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number | undefined;
}

export function toCandle(bar: Bar): Candle {
  return {
    time: Math.floor(new Date(bar.time).getTime() / 1000),
    open: bar.open,
    high: bar.high,
    low: bar.low,
    close: bar.close,
    volume: bar.volume ?? undefined,
  };
}

export type TickEffect = 'updated' | 'opened' | 'stale';

/**
 * Applies a price at `seconds` to the candles (in place). A tick inside the last candle's interval
 * moves its close (and high or low); one past it opens a new candle on the same grid as the bars
 * (stepping from the last bar's own stamp, since daily bars may be stamped at the exchange open);
 * one older than the last candle (a snapshot of a shut market) changes nothing.
 */
export function applyTick(candles: Candle[], price: number, seconds: number, step: number): TickEffect {
  const last = candles[candles.length - 1];
  if (!last) {
    candles.push(fresh(Math.floor(seconds / step) * step, price));
    return 'opened';
  }
  if (seconds < last.time) return 'stale';
  if (seconds < last.time + step) {
    last.high = Math.max(last.high, price);
    last.low = Math.min(last.low, price);
    last.close = price;
    return 'updated';
  }
  const steps = Math.floor((seconds - last.time) / step);
  candles.push(fresh(last.time + steps * step, price));
  return 'opened';
}

function fresh(time: number, price: number): Candle {
  return { time, open: price, high: price, low: price, close: price, volume: undefined };
}

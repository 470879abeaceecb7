import { BAR_INTERVAL_MS, type Bar, type BarInterval } from '../../types.ts';
import { DAY_MS, dayStartMs, HISTORY_START_MS } from './calendar.ts';
import type { DailyPath } from './daily.ts';
import type { Observation } from './macro.ts';
import type { RawBar, SimulatedMarket } from './market.ts';
import type { View } from './universe.ts';

/**
 * Bars of any interval, aggregated from one minute path (so 1m, 1h and 1d bars of the same span
 * always agree), bounded by `nowMs`: a bar is returned once its first trade has happened, partial
 * while it is still running. Intraday buckets are aligned to the epoch (an hourly bar of a US session
 * opening at 13:30 UTC is stamped 13:00 and holds 13:30-14:00); daily bars are stamped at 00:00 UTC
 * of the trading date.
 */
export const MAX_BARS_PER_CALL = 50_000;

/** An API price from a log price of the path, through the instrument's view. */
export function priceOf(view: View, log: number): number {
  const price = Math.exp(log) * view.scale;
  return view.round(view.invert ? 1 / price : price);
}

/**
 * Volume traded in the instrument. An inverted stablecoin pair counts the other stablecoin, one for
 * one (a conversion at each bar's price would make minute volumes stop adding up to the day's).
 */
export function volumeOf(view: View, volume: number): number | null {
  if (view.volumeShare === null) return null;
  const units = volume * view.volumeShare;
  return Number.isInteger(units) ? units : Math.round(units * 1e6) / 1e6;
}

export function toBar(view: View, raw: RawBar): Bar {
  return {
    time: new Date(raw.time),
    open: priceOf(view, raw.open),
    high: priceOf(view, view.invert ? raw.low : raw.high),
    low: priceOf(view, view.invert ? raw.high : raw.low),
    close: priceOf(view, raw.close),
    volume: volumeOf(view, raw.volume),
  };
}

export function pathBars(
  market: SimulatedMarket,
  path: DailyPath,
  view: View,
  interval: BarInterval,
  startMs: number,
  endMs: number,
  nowMs: number,
): Bar[] {
  const end = Math.min(endMs, nowMs);
  const out: Bar[] = [];
  if (interval === '1d') {
    for (
      let day = Math.max(0, Math.ceil((startMs - HISTORY_START_MS) / DAY_MS));
      dayStartMs(day) < end;
      day++
    ) {
      const raw = market.dayBar(path, day, nowMs);
      if (raw) out.push(toBar(view, raw));
    }
    return out;
  }
  const step = BAR_INTERVAL_MS[interval];
  let current: { -readonly [K in keyof RawBar]: RawBar[K] } | undefined;
  market.eachMinute(path, Math.ceil(startMs / step) * step, end, nowMs, (m) => {
    const bucket = Math.floor(m.time / step) * step;
    if (current && current.time === bucket) {
      if (m.high > current.high) current.high = m.high;
      if (m.low < current.low) current.low = m.low;
      current.close = m.close;
      current.volume += m.volume;
      return;
    }
    if (current) out.push(toBar(view, current));
    current = { ...m, time: bucket };
  });
  if (current) out.push(toBar(view, current));
  return out;
}

/** Daily bars of a published series: one flat bar per observation, stamped at its period start. */
export function observationBars(observations: readonly Observation[], startMs: number, endMs: number): Bar[] {
  return observations
    .filter((o) => o.periodMs >= startMs && o.periodMs < endMs)
    .map((o) => ({
      time: new Date(o.periodMs),
      open: o.value,
      high: o.value,
      low: o.value,
      close: o.value,
      volume: null,
    }));
}

/** How many bars a range could hold at most (calendar time / interval), for the request cap. */
export function barSlots(interval: BarInterval, startMs: number, endMs: number): number {
  return (endMs - startMs) / BAR_INTERVAL_MS[interval];
}

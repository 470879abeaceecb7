import { nextSlice, sliceSpent } from '../../../platform/slices.ts';
import { BAR_INTERVAL_MS, type Bar, type BarInterval } from '../../types.ts';
import { DAY_MS, dayStartMs, HISTORY_START_MS } from './calendar.ts';
import type { DailyPath } from './daily.ts';
import type { Observation } from './macro.ts';
import type { RawBar, SimulatedMarket } from './market.ts';
import { guard } from './requests.ts';
import type { View } from './universe.ts';

/**
 * Bars of any interval, aggregated from one minute path (so 1m, 1h and 1d bars of the same span
 * always agree), bounded by `nowMs`: a bar is returned once its first trade has happened, partial
 * while it is still running. Intraday buckets are aligned to the epoch (an hourly bar of a US session
 * opening at 13:30 UTC is stamped 13:00 and holds 13:30-14:00); daily bars are stamped at 00:00 UTC
 * of the trading date.
 */
export const MAX_BARS_PER_CALL = 50_000;

const DAILY_CHUNK = 64;

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
  const out: Bar[] = [];
  for (const chunk of pathBarChunks(market, path, view, interval, startMs, endMs, nowMs)) out.push(...chunk);
  return out;
}

/**
 * pathBars for request handlers: the same bars, built a day at a time with the event loop given
 * back between days once the current slice is spent (years of hourly history take seconds to
 * generate). Stops with the caller's signal.
 */
export async function pathBarsSliced(
  market: SimulatedMarket,
  path: DailyPath,
  view: View,
  interval: BarInterval,
  startMs: number,
  endMs: number,
  nowMs: number,
  signal: AbortSignal,
): Promise<Bar[]> {
  const out: Bar[] = [];
  // Many requests start in the same turn (a query fetches all its instruments at once).
  while (sliceSpent()) await nextSlice();
  guard(signal);
  for (const chunk of pathBarChunks(market, path, view, interval, startMs, endMs, nowMs)) {
    for (const bar of chunk) out.push(bar);
    if (!sliceSpent()) continue;
    while (sliceSpent()) await nextSlice();
    guard(signal);
  }
  return out;
}

/** The bars of pathBars in chunks of at most one day's work (a partial bar is never split). */
function* pathBarChunks(
  market: SimulatedMarket,
  path: DailyPath,
  view: View,
  interval: BarInterval,
  startMs: number,
  endMs: number,
  nowMs: number,
): Generator<Bar[]> {
  const end = Math.min(endMs, nowMs);
  if (interval === '1d') {
    let chunk: Bar[] = [];
    for (
      let day = Math.max(0, Math.ceil((startMs - HISTORY_START_MS) / DAY_MS));
      dayStartMs(day) < end;
      day++
    ) {
      const raw = market.dayBar(path, day, nowMs);
      if (raw) chunk.push(toBar(view, raw));
      // Daily bars are cheap: yielding every bar would cost more than it saves.
      if (chunk.length >= DAILY_CHUNK) {
        yield chunk;
        chunk = [];
      }
    }
    yield chunk;
    return;
  }
  const step = BAR_INTERVAL_MS[interval];
  let current: { -readonly [K in keyof RawBar]: RawBar[K] } | undefined;
  let chunk: Bar[] = [];
  const visit = (m: RawBar) => {
    const bucket = Math.floor(m.time / step) * step;
    if (current && current.time === bucket) {
      if (m.high > current.high) current.high = m.high;
      if (m.low < current.low) current.low = m.low;
      current.close = m.close;
      current.volume += m.volume;
      return;
    }
    if (current) chunk.push(toBar(view, current));
    current = { ...m, time: bucket };
  };
  // Minute paths are built a day at a time, so a day is the natural unit of work.
  for (let from = Math.ceil(startMs / step) * step; from < end; ) {
    const to = Math.min(end, (Math.floor(from / DAY_MS) + 1) * DAY_MS);
    market.eachMinute(path, from, to, nowMs, visit);
    from = to;
    yield chunk;
    chunk = [];
  }
  if (current) chunk.push(toBar(view, current));
  yield chunk;
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

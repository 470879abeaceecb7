import { BAR_INTERVAL_MS, type BarInterval } from '../types.ts';

/**
 * Time ranges as the cache keys them. Callers compute ranges from the clock ("the last year, up to
 * now"), so two identical queries a few milliseconds apart ask for different ranges; keyed as asked,
 * no request would ever hit. The cache instead fetches and keys the covering range aligned to whole
 * bars (whole UTC days for daily bars), and each caller gets exactly its own range cut out of it.
 */

const DAY = 86_400_000;

export interface AlignedRange {
  /** Start of the bar containing the requested start. */
  readonly start: Date;
  /** End (exclusive) of the bar containing the requested end, never past the current bar. */
  readonly until: Date;
  /** What the provider is asked for: `until`, or now while the last bar is still forming. */
  readonly fetchEnd: Date;
}

export function alignBarRange(interval: BarInterval, start: Date, end: Date, now: Date): AlignedRange {
  const step = BAR_INTERVAL_MS[interval];
  const currentEnd = Math.floor(now.getTime() / step) * step + step;
  const until = Math.min(Math.ceil(end.getTime() / step) * step, currentEnd);
  return {
    start: new Date(Math.floor(start.getTime() / step) * step),
    until: new Date(until),
    fetchEnd: new Date(Math.min(until, now.getTime())),
  };
}

/**
 * The part of an ascending series with `from <= time < to` (`to` inclusive when asked). The
 * cached array itself when nothing is cut, so a hit copies nothing.
 */
export function cut<T>(items: T[], timeOf: (item: T) => Date, from: Date, to: Date, inclusive = false): T[] {
  const lo = from.getTime();
  const hi = to.getTime();
  let first = 0;
  while (first < items.length && timeOf(items[first]!).getTime() < lo) first++;
  let last = items.length;
  const after = (t: number) => (inclusive ? t > hi : t >= hi);
  while (last > first && after(timeOf(items[last - 1]!).getTime())) last--;
  return first === 0 && last === items.length ? items : items.slice(first, last);
}

/** Whole UTC days around [from, to], for date-ranged data such as earnings calendars. */
export function alignDays(from: Date, to: Date): { readonly from: Date; readonly to: Date } {
  return {
    from: new Date(Math.floor(from.getTime() / DAY) * DAY),
    to: new Date(Math.ceil(to.getTime() / DAY) * DAY),
  };
}

/** `since` rounded down to `stepMs`, so polling "what happened since a moment ago" shares entries. */
export function alignDown(at: Date, stepMs: number): Date {
  return new Date(Math.floor(at.getTime() / stepMs) * stepMs);
}

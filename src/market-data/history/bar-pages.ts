import { ValidationError } from '../../platform/errors.ts';
import type { Bar, BarInterval } from '../types.ts';

/**
 * Cursor paging over a bar series, oldest first (the order of every provider and chart). A cursor
 * is the open time of a bar, opaque to clients; the page after it starts with the next later bar,
 * so a cursor stays valid while the series grows at its end or the range moves with the clock.
 */

/** Most bars one page may hold: a client pages through longer ranges. */
export const MAX_BARS_PER_PAGE = 1_000;
export const DEFAULT_BARS_PER_PAGE = 100;

const DAY = 86_400_000;

/**
 * How far back a range reaches when the caller gives no `from`: for daily bars the 420 days the deep
 * technical summary reads (about 290 sessions of a listing, 420 days of crypto), for intraday bars
 * what the providers keep (Yahoo keeps a month of hourly and a week of minute bars within reach).
 */
export const DEFAULT_LOOKBACK_MS: Readonly<Record<BarInterval, number>> = {
  '1m': DAY,
  '5m': 7 * DAY,
  '15m': 7 * DAY,
  '30m': 7 * DAY,
  '1h': 30 * DAY,
  '1d': 420 * DAY,
};

const LOOKBACK_UNITS: Readonly<Record<string, number>> = {
  m: 60_000,
  h: 3_600_000,
  d: DAY,
  w: 7 * DAY,
  y: 365 * DAY,
};

/** Longest lookback accepted: ten years (the range's bar cap still applies). */
const MAX_LOOKBACK_MS = 3_650 * DAY;

/**
 * A lookback (`90d`, `6h`, `30m`, `2w`, `1y`) in ms: how far before `to` a range starts. Agents
 * think in "the last 90 days" rather than in timestamps, and the server's clock, not theirs,
 * fixes where the range ends.
 */
export function parseLookback(text: string, field = 'lookback'): number {
  const match = /^\s*(\d{1,6})\s*([mhdwy])\s*$/i.exec(text);
  const ms = match ? Number(match[1]) * LOOKBACK_UNITS[match[2]!.toLowerCase()]! : Number.NaN;
  if (!(ms > 0) || ms > MAX_LOOKBACK_MS) {
    throw new ValidationError(
      field,
      `must be a positive number and a unit m, h, d, w or y, at most 10 years (90d, 6h, 1y), got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}

const CURSOR_PREFIX = 'bar:';

export function encodeCursor(time: Date): string {
  return Buffer.from(`${CURSOR_PREFIX}${time.getTime()}`).toString('base64url');
}

/** The bar time a cursor stands for; a malformed one is the caller's `after` argument at fault. */
export function decodeCursor(cursor: string, field = 'after'): number {
  const text = /^[A-Za-z0-9_-]{1,40}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const ms = text.startsWith(CURSOR_PREFIX) ? Number(text.slice(CURSOR_PREFIX.length)) : Number.NaN;
  if (!Number.isSafeInteger(ms)) {
    throw new ValidationError(field, 'is not a cursor of this series (use an endCursor or edge cursor)');
  }
  return ms;
}

export function checkPageSize(first: number, field = 'first'): number {
  if (!Number.isInteger(first) || first < 1 || first > MAX_BARS_PER_PAGE) {
    throw new ValidationError(
      field,
      `must be between 1 and ${MAX_BARS_PER_PAGE} bars per page, got ${first}`,
    );
  }
  return first;
}

export interface BarPage {
  readonly bars: readonly Bar[];
  /** Bars in the whole range, all pages together. */
  readonly totalCount: number;
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
}

/** The `first` bars after `afterMs` (from the start when absent) of an ascending series. */
export function pageOf(series: readonly Bar[], first: number, afterMs?: number): BarPage {
  let start = 0;
  if (afterMs !== undefined) {
    // Binary search: the first bar later than the cursor.
    let hi = series.length;
    while (start < hi) {
      const mid = (start + hi) >>> 1;
      if (series[mid]!.time.getTime() <= afterMs) start = mid + 1;
      else hi = mid;
    }
  }
  const bars = series.slice(start, start + first);
  return {
    bars,
    totalCount: series.length,
    hasNextPage: start + bars.length < series.length,
    hasPreviousPage: start > 0,
  };
}

import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../platform/errors.ts';
import type { Bar } from '../types.ts';
import {
  checkPageSize,
  DEFAULT_LOOKBACK_MS,
  decodeCursor,
  encodeCursor,
  MAX_BARS_PER_PAGE,
  pageOf,
  parseLookback,
} from './bar-pages.ts';

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
const series: Bar[] = Array.from({ length: 10 }, (_, i) => ({
  time: new Date(T0 + i * DAY),
  open: 100 + i,
  high: 101 + i,
  low: 99 + i,
  close: 100.5 + i,
  volume: 1_000 + i,
}));

describe('bar pages', () => {
  it('pages forward from the oldest bar, cursor by cursor, without gaps or repeats', () => {
    const seen: number[] = [];
    let after: number | undefined;
    let pages = 0;
    for (;;) {
      const page = pageOf(series, 4, after);
      pages++;
      expect(page.totalCount).toBe(10);
      expect(page.hasPreviousPage).toBe(after !== undefined);
      seen.push(...page.bars.map((b) => b.time.getTime()));
      if (!page.hasNextPage) break;
      after = decodeCursor(encodeCursor(page.bars.at(-1)!.time));
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(series.map((b) => b.time.getTime()));
  });

  it('starts after a cursor that falls between bars or past the end', () => {
    expect(pageOf(series, 2, T0 + 2.5 * DAY).bars.map((b) => b.open)).toEqual([103, 104]);
    expect(pageOf(series, 2, T0 + 20 * DAY)).toMatchObject({
      bars: [],
      hasNextPage: false,
      hasPreviousPage: true,
    });
    expect(pageOf([], 5)).toEqual({ bars: [], totalCount: 0, hasNextPage: false, hasPreviousPage: false });
  });

  it('refuses a cursor it did not make and a page size out of bounds, naming the argument', () => {
    for (const bad of ['', 'nope', Buffer.from('bar:x').toString('base64url'), 'a'.repeat(60)]) {
      expect(() => decodeCursor(bad)).toThrow(/^after: is not a cursor/);
    }
    expect(checkPageSize(MAX_BARS_PER_PAGE)).toBe(MAX_BARS_PER_PAGE);
    expect(() => checkPageSize(0)).toThrow(ValidationError);
    expect(() => checkPageSize(MAX_BARS_PER_PAGE + 1)).toThrow(
      /^first: must be between 1 and 1000 bars per page, got 1001/,
    );
    expect(() => checkPageSize(2.5)).toThrow(/first/);
  });

  it('looks back far enough by default for 250 daily bars of a listing', () => {
    // 252 sessions a year: 420 days hold about 290.
    expect((DEFAULT_LOOKBACK_MS['1d'] / DAY) * (252 / 365)).toBeGreaterThan(250);
  });
});

describe('lookback', () => {
  it('reads a number and a unit, case and spaces aside', () => {
    expect(parseLookback('90d')).toBe(90 * DAY);
    expect(parseLookback(' 6H ')).toBe(6 * 3_600_000);
    expect(parseLookback('30m')).toBe(30 * 60_000);
    expect(parseLookback('2w')).toBe(14 * DAY);
    expect(parseLookback('1y')).toBe(365 * DAY);
  });

  it.each(['', '0d', '90', 'd', '-5d', '1.5d', '90 days', '11y'])(
    'refuses %j naming the argument',
    (text) => {
      expect(() => parseLookback(text)).toThrow(ValidationError);
      try {
        parseLookback(text);
      } catch (error) {
        expect((error as ValidationError).details).toMatchObject({ field: 'lookback' });
      }
    },
  );
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignOnDates, changes, medianSpacingDays } from './align.ts';

const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

describe('alignOnDates', () => {
  // Daily closes, a daily yield with a holiday gap, and monthly CPI known on its release dates.
  const closes = {
    times: ['2024-02-09', '2024-02-12', '2024-02-13', '2024-02-14', '2024-03-11', '2024-03-12'].map(day),
    values: [188.85, 187.15, 185.04, 184.15, 172.75, 173.23],
  };
  const us10y = {
    times: ['2024-02-08', '2024-02-09', '2024-02-13', '2024-02-14', '2024-03-12'].map(day),
    values: [4.16, 4.18, 4.31, 4.27, 4.15],
  };
  const cpi = { times: ['2024-02-13', '2024-03-12'].map(day), values: [308.417, 310.326] };

  it('takes, for each anchor date, the last value at or before it and drops dates before any value', () => {
    const aligned = alignOnDates([closes, us10y, cpi], closes.times);
    // 02-09 and 02-12 come before the first CPI release; 02-13 uses the release of that very day.
    expect(aligned.times).toEqual(['2024-02-13', '2024-02-14', '2024-03-11', '2024-03-12'].map(day));
    expect(aligned.values).toEqual([
      [185.04, 184.15, 172.75, 173.23],
      [4.31, 4.27, 4.27, 4.15],
      [308.417, 308.417, 308.417, 310.326],
    ]);
  });

  it('anchors on the least frequent series as easily (monthly rows)', () => {
    expect(alignOnDates([closes, us10y, cpi], cpi.times)).toEqual({
      times: cpi.times,
      values: [
        [185.04, 173.23],
        [4.31, 4.15],
        [308.417, 310.326],
      ],
    });
  });

  it('treats non-finite values as missing and keeps the last known one', () => {
    const gappy = { times: [1, 2, 3, 4], values: [10, Number.NaN, 12, Number.NaN] };
    expect(alignOnDates([gappy], [1, 2, 3, 4])).toEqual({ times: [1, 2, 3, 4], values: [[10, 10, 12, 12]] });
    const late = { times: [1, 2, 3], values: [Number.NaN, Number.NaN, 5] };
    expect(alignOnDates([late], [1, 2, 3])).toEqual({ times: [3], values: [[5]] });
  });

  it('refuses unsorted or ragged input', () => {
    expect(() => alignOnDates([{ times: [1, 3, 2], values: [1, 2, 3] }], [1, 2, 3])).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: expect.stringMatching(/times of series 1 must be .* ascending; entry 2 is 2/),
      }),
    );
    expect(() => alignOnDates([{ times: [1, 2], values: [1] }], [1])).toThrow(/2 times but 1 values/);
    expect(() => alignOnDates([closes], [3, 1])).toThrow(/anchor dates must be finite and ascending/);
  });

  it('agrees with a brute-force as-of lookup', () => {
    const series = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 100 }), fc.double({ min: -10, max: 10, noNaN: true })), {
        maxLength: 20,
      })
      .map((points) => {
        const sorted = [...points].sort((a, b) => a[0] - b[0]);
        return { times: sorted.map((p) => p[0]), values: sorted.map((p) => p[1]) };
      });
    fc.assert(
      fc.property(
        fc.array(series, { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 100 }), { maxLength: 30 }),
        (all, anchorTimes) => {
          const anchor = [...anchorTimes].sort((a, b) => a - b);
          // Last index with time <= t (the later of equal times wins), or -1.
          const asOf = (s: { times: number[] }, t: number) => s.times.findLastIndex((u) => u <= t);
          const expectedTimes = anchor.filter((t) => all.every((s) => asOf(s, t) >= 0));
          const aligned = alignOnDates(all, anchor);
          expect(aligned.times).toEqual(expectedTimes);
          all.forEach((s, k) => {
            expect(aligned.values[k]).toEqual(expectedTimes.map((t) => s.values[asOf(s, t)]));
          });
        },
      ),
    );
  });
});

describe('changes', () => {
  it('takes log changes of levels and first differences of rates', () => {
    expect(Array.from(changes([100, 110, 99], 'log'))).toEqual([Math.log(1.1), Math.log(99 / 110)]);
    expect(Array.from(changes([4.5, 4.25, 4.5], 'diff'))).toEqual([-0.25, 0.25]);
    expect(changes([5], 'log')).toHaveLength(0);
    expect(changes([], 'diff')).toHaveLength(0);
  });

  it('refuses log changes of non-positive values, pointing to differences', () => {
    expect(() => changes([0.5, 0, -0.1], 'log')).toThrow(
      expect.objectContaining({
        code: 'INVALID_INPUT',
        message: "log changes need positive values; value 1 is 0 (use 'diff' for rates)",
      }),
    );
    expect(Array.from(changes([0.5, 0, -0.1], 'diff'))).toEqual([-0.5, -0.1]);
    expect(() => changes([1, Number.NaN], 'diff')).toThrow(/value 1 is NaN/);
  });
});

describe('medianSpacingDays', () => {
  it('tells daily, monthly and quarterly series apart', () => {
    const every = (days: number, count: number) =>
      Array.from({ length: count }, (_, i) => i * days * 86_400_000);
    expect(medianSpacingDays(every(1, 10))).toBe(1);
    expect(medianSpacingDays(every(30, 6))).toBe(30);
    expect(medianSpacingDays(every(91, 6))).toBe(91);
    expect(medianSpacingDays([5])).toBe(Number.POSITIVE_INFINITY);
  });
});

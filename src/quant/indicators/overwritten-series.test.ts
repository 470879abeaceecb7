import { describe, expect, it } from 'vitest';
import { ema, emaInto } from './moving-averages.ts';
import { macd } from './oscillators.ts';
import { HEAP_SERIES_MAX_LENGTH, overwrittenSeries } from './series.ts';

/**
 * EMA and MACD allocate their outputs uninitialised (overwrittenSeries): every value must be
 * written. Memory freed just before is filled with a marker, so a value left unwritten would show
 * it (or another stale number) instead of NaN or the recurrence's value, at every length around
 * the warm-ups, including the early returns.
 */
const MARKER = 123_456.789;

function dirtyTheAllocator(length = 4096): void {
  const garbage = Array.from({ length: 64 }, () => new Float64Array(length).fill(MARKER));
  garbage.length = 0;
}

function referenceEma(values: readonly number[], period: number): number[] {
  const out = values.map(() => Number.NaN);
  if (values.length < period) return out;
  const a = 2 / (period + 1);
  let prev = values.slice(0, period).reduce((s, x) => s + x, 0) / period;
  out[period - 1] = prev;
  for (let i = period; i < values.length; i++) {
    prev = a * values[i]! + (1 - a) * prev;
    out[i] = prev;
  }
  return out;
}

const prices = Array.from({ length: 80 }, (_, i) => 100 + 10 * Math.sin(i / 5) + i / 10);

describe('indicators whose outputs are not zeroed first', () => {
  it('EMA writes every value, at every length around its warm-up', () => {
    for (let n = 0; n <= 45; n++) {
      dirtyTheAllocator();
      const values = prices.slice(0, n);
      const got = Array.from(ema(values, 20));
      const want = referenceEma(values, 20);
      expect(got).toHaveLength(n);
      got.forEach((v, i) => {
        if (Number.isNaN(want[i]!)) expect(v, `n=${n} i=${i}`).toBeNaN();
        else expect(v, `n=${n} i=${i}`).toBeCloseTo(want[i]!, 9);
      });
    }
  });

  it('MACD is NaN exactly in its warm-ups and the recurrence after them, at every length', () => {
    for (let n = 0; n <= 45; n++) {
      dirtyTheAllocator();
      const values = prices.slice(0, n);
      const { macd: line, signal, histogram } = macd(values, 12, 26, 9);
      const fast = referenceEma(values, 12);
      const slow = referenceEma(values, 26);
      for (let i = 0; i < n; i++) {
        if (i < 25) expect(line[i], `line n=${n} i=${i}`).toBeNaN();
        else expect(line[i], `line n=${n} i=${i}`).toBeCloseTo(fast[i]! - slow[i]!, 9);
        if (i < 33) {
          expect(signal[i], `signal n=${n} i=${i}`).toBeNaN();
          expect(histogram[i], `histogram n=${n} i=${i}`).toBeNaN();
        } else {
          expect(Number.isFinite(signal[i]!) && signal[i] !== MARKER, `signal n=${n} i=${i}`).toBe(true);
          expect(histogram[i], `histogram n=${n} i=${i}`).toBeCloseTo(line[i]! - signal[i]!, 12);
        }
      }
    }
  });

  it('EMA writes every value of a long output too (a Float64Array from the C allocator)', () => {
    const long = Array.from({ length: HEAP_SERIES_MAX_LENGTH + 40 }, (_, i) => 100 + Math.sin(i / 7));
    for (const n of [HEAP_SERIES_MAX_LENGTH + 1, HEAP_SERIES_MAX_LENGTH + 19, HEAP_SERIES_MAX_LENGTH + 40]) {
      dirtyTheAllocator(n);
      const values = long.slice(0, n);
      const got = ema(values, 20);
      expect(got).toBeInstanceOf(Float64Array);
      const want = referenceEma(values, 20);
      for (let i = 0; i < n; i++) {
        if (Number.isNaN(want[i]!)) expect(got[i], `n=${n} i=${i}`).toBeNaN();
        else expect(got[i], `n=${n} i=${i}`).toBeCloseTo(want[i]!, 9);
      }
    }
  });

  it('gives every short output its own array of NaN, whatever was written into earlier ones', () => {
    const first = overwrittenSeries(100, 10);
    expect(Array.isArray(first)).toBe(true);
    first.fill(MARKER);
    const longer = overwrittenSeries(HEAP_SERIES_MAX_LENGTH, 10);
    expect(longer).toHaveLength(HEAP_SERIES_MAX_LENGTH);
    expect(Array.prototype.every.call(longer, Number.isNaN)).toBe(true);
    expect(overwrittenSeries(HEAP_SERIES_MAX_LENGTH + 1, 10)).toBeInstanceOf(Float64Array);
    expect(overwrittenSeries(0, 0)).toHaveLength(0);
  });
});

describe('emaInto', () => {
  it('writes the same values into a plain array and into a Float64Array (its two loops agree)', () => {
    for (const n of [0, 1, 19, 20, 21, 22, 23, 24, 25, 97, 2_520]) {
      const values = Array.from({ length: n }, (_, i) => 100 + Math.sin(i / 5) * 3 + ((i * 7919) % 13) / 10);
      for (const start of [0, 3]) {
        if (n - start < 20) continue;
        const plain = values.map(() => Number.NaN);
        const typed = new Float64Array(n).fill(Number.NaN);
        emaInto(values, start, 20, plain);
        emaInto(values, start, 20, typed);
        expect(Array.isArray(plain)).toBe(true);
        expect([...typed]).toEqual(plain);
        expect(plain.at(-1)).toBeCloseTo(referenceEma(values.slice(start), 20).at(-1)!, 9);
      }
    }
  });
});

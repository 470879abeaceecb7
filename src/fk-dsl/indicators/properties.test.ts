import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ema, sma } from './moving-averages.ts';
import { bollinger, rsi } from './oscillators.ts';
import { atr, stochastic } from './range.ts';

const prices = fc.array(fc.double({ min: 1, max: 1000, noNaN: true }), { minLength: 30, maxLength: 200 });
const defined = (xs: Float64Array) => Array.from(xs).filter((x) => !Number.isNaN(x));

describe('indicator properties', () => {
  it('moving averages of a constant series are the constant', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        fc.integer({ min: 1, max: 30 }),
        (c, p) => {
          const xs = new Array(60).fill(c);
          for (const v of [...defined(sma(xs, p)), ...defined(ema(xs, p))]) expect(v).toBeCloseTo(c, 6);
        },
      ),
    );
  });

  it('RSI and stochastic stay within 0..100, ATR is never negative, bands are ordered', () => {
    fc.assert(
      fc.property(prices, (close) => {
        const high = close.map((c) => c * 1.01);
        const low = close.map((c) => c * 0.99);
        for (const v of defined(rsi(close, 14))) expect(v >= 0 && v <= 100).toBe(true);
        const s = stochastic(high, low, close, 14, 3, 3);
        for (const v of [...defined(s.k), ...defined(s.d)]) expect(v >= -1e-9 && v <= 100 + 1e-9).toBe(true);
        for (const v of defined(atr(high, low, close, 14))) expect(v).toBeGreaterThanOrEqual(0);
        const b = bollinger(close, 20, 2);
        for (let i = 19; i < close.length; i++) {
          expect(b.upper[i]!).toBeGreaterThanOrEqual(b.middle[i]! - 1e-9);
          expect(b.middle[i]!).toBeGreaterThanOrEqual(b.lower[i]! - 1e-9);
        }
      }),
      { numRuns: 200 },
    );
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactWindowStats } from '../../../test/support/indicator-golden.ts';
import { momentum, rateOfChange, sharpe } from './momentum.ts';
import { ema, sma } from './moving-averages.ts';
import { bollinger, macd, rsi } from './oscillators.ts';
import { atr, stochastic } from './range.ts';
import { beta, drawdownSeries, maxDrawdown, pearson } from './statistics.ts';

/** Properties every input must satisfy, checked with fast-check on generated series. */
const UNIT = 2 ** -53;
const price = fc.double({ min: 1e-3, max: 1e5, noNaN: true, noDefaultInfinity: true });
const prices = fc.array(price, { minLength: 2, maxLength: 300 });
const period = fc.integer({ min: 1, max: 40 });
/** Bars with low <= close <= high, built from three prices. */
const bars = fc.array(fc.tuple(price, price, price), { minLength: 1, maxLength: 300 }).map((rows) => {
  const sorted = rows.map((r) => [...r].sort((a, b) => a - b));
  return {
    low: Float64Array.from(sorted, (r) => r[0]!),
    close: Float64Array.from(sorted, (r) => r[1]!),
    high: Float64Array.from(sorted, (r) => r[2]!),
  };
});
const powerOfTwo = fc.integer({ min: -20, max: 20 }).map((k) => 2 ** k);

const leadingNaN = (xs: ArrayLike<number>) => {
  let i = 0;
  while (i < xs.length && Number.isNaN(xs[i]!)) i++;
  return i;
};
/** The documented warm-up, and every value after it defined. */
const expectWarmUp = (xs: ArrayLike<number>, warmup: number) => {
  expect(leadingNaN(xs)).toBe(Math.min(warmup, xs.length));
  for (let i = warmup; i < xs.length; i++) expect(Number.isFinite(xs[i]!)).toBe(true);
};
const scaled = (xs: ArrayLike<number>, f: number) => Float64Array.from(xs, (x) => x * f);

describe('warm-ups', () => {
  it('are as documented, with a value at every later bar', () => {
    fc.assert(
      fc.property(bars, period, period, fc.integer({ min: 1, max: 5 }), ({ high, low, close }, p, q, r) => {
        expectWarmUp(sma(close, p), p - 1);
        expectWarmUp(ema(close, p), p - 1);
        expectWarmUp(rsi(close, p), p);
        expectWarmUp(atr(high, low, close, p), p - 1);
        expectWarmUp(bollinger(close, p, 2).upper, p - 1);
        expectWarmUp(momentum(close, p), p);
        expectWarmUp(rateOfChange(close, p), p);
        const s = stochastic(high, low, close, p, r, r);
        expectWarmUp(s.k, p + r - 2);
        expectWarmUp(s.d, p + 2 * r - 3);
        const m = macd(close, p, p + q, r);
        expectWarmUp(m.macd, p + q - 1);
        expectWarmUp(m.signal, p + q + r - 2);
        expectWarmUp(m.histogram, p + q + r - 2);
      }),
    );
  });
});

describe('constant series', () => {
  it('give the constant for the averages, zero width, RSI and stochastic 50, no momentum', () => {
    fc.assert(
      fc.property(price, period, fc.integer({ min: 40, max: 120 }), (c, p, n) => {
        const xs = new Float64Array(n).fill(c);
        for (const series of [sma(xs, p), ema(xs, p), bollinger(xs, p).middle])
          for (const v of series.slice(p - 1)) expect(Math.abs(v - c)).toBeLessThanOrEqual(4 * p * UNIT * c);
        const b = bollinger(xs, p, 2);
        for (let i = p - 1; i < n; i++) expect(b.upper[i]! - b.lower[i]!).toBeLessThanOrEqual(8 * UNIT * c);
        expect(
          rsi(xs, p)
            .slice(p)
            .every((v) => v === 50),
        ).toBe(true);
        const s = stochastic(xs, xs, xs, p, 3, 3);
        expect(s.d.slice(p + 3).every((v) => v === 50)).toBe(true);
        expect(
          momentum(xs, p)
            .slice(p)
            .every((v) => v === 0),
        ).toBe(true);
        expect(
          rateOfChange(xs, p)
            .slice(p)
            .every((v) => v === 0),
        ).toBe(true);
        expect(maxDrawdown(xs)).toBe(0);
      }),
    );
  });
});

describe('ranges and orderings', () => {
  it('RSI and stochastic stay within 0..100, ATR within the true ranges, bands ordered', () => {
    fc.assert(
      fc.property(bars, period, ({ high, low, close }, p) => {
        for (const v of rsi(close, p).slice(p)) expect(v >= 0 && v <= 100).toBe(true);
        const s = stochastic(high, low, close, p, 3, 3);
        for (const v of [...s.k, ...s.d].filter((x) => !Number.isNaN(x)))
          expect(v >= 0 && v <= 100).toBe(true);
        const tr = Array.from(close, (_, i) =>
          i === 0
            ? high[0]! - low[0]!
            : Math.max(
                high[i]! - low[i]!,
                Math.abs(high[i]! - close[i - 1]!),
                Math.abs(low[i]! - close[i - 1]!),
              ),
        );
        const a = atr(high, low, close, p);
        for (let i = p - 1; i < close.length; i++) {
          // A Wilder average is a weighted mean of the true ranges so far.
          const seen = tr.slice(0, i + 1);
          expect(a[i]!).toBeGreaterThanOrEqual(Math.min(...seen) * (1 - 1e-12));
          expect(a[i]!).toBeLessThanOrEqual(Math.max(...seen) * (1 + 1e-12));
        }
        const b = bollinger(close, p, 2);
        for (let i = p - 1; i < close.length; i++) {
          expect(b.upper[i]!).toBeGreaterThanOrEqual(b.middle[i]!);
          expect(b.middle[i]!).toBeGreaterThanOrEqual(b.lower[i]!);
        }
      }),
    );
  });

  it('drawdowns lie in [0, 1) and their maximum is the naive largest fall', () => {
    fc.assert(
      fc.property(prices, (xs) => {
        const d = drawdownSeries(xs);
        for (const v of d) expect(v >= 0 && v < 1).toBe(true);
        let worst = 0;
        for (let i = 0; i < xs.length; i++)
          for (let j = i + 1; j < xs.length; j++) worst = Math.max(worst, (xs[i]! - xs[j]!) / xs[i]!);
        expect(maxDrawdown(xs)).toBe(worst);
        expect(Math.max(...d)).toBe(worst);
      }),
    );
  });
});

describe('agreement with direct formulas', () => {
  it('SMA and the Bollinger bands equal the exact window statistics', () => {
    fc.assert(
      fc.property(prices, period, (xs, p) => {
        fc.pre(xs.length >= p);
        const exact = exactWindowStats(xs, p);
        const mean = sma(xs, p);
        const b = bollinger(xs, p, 2);
        for (let i = p - 1; i < xs.length; i++) {
          const e = exact.mean[i]!;
          expect(Math.abs(mean[i]! - e)).toBeLessThanOrEqual(2e-12 * e);
          const slack = 4e-12 * exact.sd[i]! + 4 * UNIT * b.middle[i]!;
          expect(Math.abs(b.upper[i]! - b.middle[i]! - 2 * exact.sd[i]!)).toBeLessThanOrEqual(slack);
        }
      }),
    );
  });

  it('raw %K selects exactly the window extremes a naive scan finds', () => {
    fc.assert(
      fc.property(bars, period, ({ high, low, close }, p) => {
        const raw = stochastic(high, low, close, p, 1, 1).k;
        for (let i = p - 1; i < close.length; i++) {
          const hi = Math.max(...high.slice(i - p + 1, i + 1));
          const lo = Math.min(...low.slice(i - p + 1, i + 1));
          expect(raw[i]).toBe(hi === lo ? 50 : 100 * ((close[i]! - lo) / (hi - lo)));
        }
      }),
    );
  });

  it('MACD is ema(fast) - ema(slow), its signal ema(line, signal), its histogram line - signal', () => {
    // ema() unrolls its recurrence four bars at a time, the fused MACD does not: a few ulps apart.
    fc.assert(
      fc.property(prices, period, period, period, (xs, f, extra, g) => {
        const m = macd(xs, f, f + extra, g);
        const fast = ema(xs, f);
        const slow = ema(xs, f + extra);
        const scale = Math.max(...xs);
        const line = Float64Array.from(fast, (v, i) => v - slow[i]!);
        const signal = ema(m.macd, g);
        for (let i = 0; i < xs.length; i++) {
          expect(Number.isNaN(m.macd[i]!)).toBe(Number.isNaN(line[i]!));
          expect(Number.isNaN(m.signal[i]!)).toBe(Number.isNaN(signal[i]!));
          if (!Number.isNaN(line[i]!))
            expect(Math.abs(m.macd[i]! - line[i]!)).toBeLessThanOrEqual(1e-13 * scale);
          if (Number.isNaN(signal[i]!)) continue;
          expect(Math.abs(m.signal[i]! - signal[i]!)).toBeLessThanOrEqual(1e-13 * scale);
          expect(m.histogram[i]).toBe(m.macd[i]! - m.signal[i]!);
        }
      }),
    );
  });

  it('rate of change is momentum over the base price, in percent', () => {
    fc.assert(
      fc.property(prices, period, (xs, n) => {
        const roc = rateOfChange(xs, n);
        const mom = momentum(xs, n);
        for (let i = n; i < xs.length; i++)
          expect(Math.abs(roc[i]! - (mom[i]! / xs[i - n]!) * 100)).toBeLessThanOrEqual(
            1e-12 * Math.abs(roc[i]!),
          );
      }),
    );
  });

  it('pearson is symmetric, within [-1, 1], and ±1 for a linear function; beta recovers a slope', () => {
    // Returns in basis points: doubles near zero would include subnormals, whose squares vanish.
    const returns = fc.array(
      fc.integer({ min: -2000, max: 2000 }).map((bp) => bp / 10_000),
      { minLength: 3, maxLength: 200 },
    );
    fc.assert(
      fc.property(returns, returns, fc.double({ min: 0.1, max: 10, noNaN: true }), (a, b0, slope) => {
        const b = b0.slice(0, a.length);
        fc.pre(b.length === a.length && new Set(a).size > 1 && new Set(b).size > 1);
        const r = pearson(a, b);
        expect(r).toBe(pearson(b, a));
        expect(Math.abs(r)).toBeLessThanOrEqual(1);
        expect(
          pearson(
            a,
            a.map((x) => slope * x + 1),
          ),
        ).toBeCloseTo(1, 10);
        expect(
          pearson(
            a,
            a.map((x) => -slope * x),
          ),
        ).toBeCloseTo(-1, 10);
        expect(
          beta(
            a.map((x) => slope * x),
            a,
          ) / slope,
        ).toBeCloseTo(1, 10);
      }),
    );
  });
});

describe('scale invariance (powers of two scale every operation exactly)', () => {
  it('RSI, stochastic and Sharpe are unchanged, ATR and the bands scale, bit for bit', () => {
    fc.assert(
      fc.property(bars, period, powerOfTwo, ({ high, low, close }, p, f) => {
        const [h, l, c] = [scaled(high, f), scaled(low, f), scaled(close, f)];
        expect(Array.from(rsi(c, p))).toEqual(Array.from(rsi(close, p)));
        expect(Array.from(stochastic(h, l, c, p).d)).toEqual(Array.from(stochastic(high, low, close, p).d));
        expect(Array.from(atr(h, l, c, p))).toEqual(Array.from(scaled(atr(high, low, close, p), f)));
        expect(Array.from(bollinger(c, p).upper)).toEqual(Array.from(scaled(bollinger(close, p).upper, f)));
        expect(Object.is(sharpe(c, 252), sharpe(close, 252))).toBe(true);
      }),
    );
  });
});

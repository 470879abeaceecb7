import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alignOnDates, changes, medianSpacingDays } from './align.ts';
import { fUpperPValue, incompleteBeta, logGamma, tTwoSidedPValue } from './distributions.ts';
import { StatsError } from './errors.ts';
import { grangerBestLag, grangerCausality } from './granger.ts';
import { ols } from './ols.ts';

/** Seeded normal noise (Box-Muller over a mulberry32 stream), so the tests are reproducible. */
function noise(seed: number) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(uniform() || 1e-12)) * Math.cos(2 * Math.PI * uniform());
}

describe('distributions', () => {
  it('log-gamma matches factorials and Γ(1/2)', () => {
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(logGamma(101)).toBeCloseTo(363.73937555556347, 9);
  });

  it('incomplete beta has known closed forms', () => {
    // I_x(1, b) = 1 - (1 - x)^b ; I_x(a, 1) = x^a
    expect(incompleteBeta(0.3, 1, 4)).toBeCloseTo(1 - 0.7 ** 4, 12);
    expect(incompleteBeta(0.6, 3, 1)).toBeCloseTo(0.6 ** 3, 12);
    expect(incompleteBeta(0.5, 2.5, 2.5)).toBeCloseTo(0.5, 12);
  });

  it.each([
    [2.0, 10, 0.073388],
    [2.228139, 10, 0.05],
    [1.959964, 1e6, 0.05],
    [3.0, 5, 0.0300992],
    [0, 7, 1],
    [12.706205, 1, 0.05],
  ])('t = %f with %f df has two-sided p %f', (t, df, p) => {
    expect(tTwoSidedPValue(t, df)).toBeCloseTo(p, 6);
  });

  it.each([
    [3.0, 2, 20, 0.0724477],
    [3.4928, 2, 20, 0.05],
    [2.3, 5, 100, 0.0505],
    [4.9646, 1, 10, 0.05],
    [1, 10, 10, 0.5],
  ])('F = %f with (%i, %i) df has upper p %f', (f, d1, d2, p) => {
    expect(fUpperPValue(f, d1, d2)).toBeCloseTo(p, 3);
  });

  it('F upper tail agrees with t² for one numerator degree of freedom', () => {
    for (const [t, df] of [
      [1.3, 8],
      [2.7, 30],
      [0.4, 3],
    ] as const) {
      expect(fUpperPValue(t * t, 1, df)).toBeCloseTo(tTwoSidedPValue(t, df), 10);
    }
  });
});

describe('ols', () => {
  it('recovers an exact line with R² = 1', () => {
    const x = [1, 2, 3, 4, 5, 6];
    const r = ols(
      x.map((v) => 2 + 3 * v),
      [x],
      { names: ['x'] },
    );
    expect(r.coefficients.map((c) => c.estimate)).toEqual([expect.closeTo(2, 10), expect.closeTo(3, 10)]);
    expect(r.rSquared).toBeCloseTo(1, 12);
  });

  it('matches the normal equations computed directly, with textbook standard errors', () => {
    // Two regressors on a small fixed dataset; reference by explicit (X'X)^-1 X'y and sigma²(X'X)^-1.
    const x1 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const x2 = [2, 1, 4, 3, 6, 5, 8, 7, 10, 12];
    const y = [3.1, 3.9, 7.2, 7.8, 11.1, 11.9, 15.2, 15.8, 19.1, 22.4];
    const r = ols(y, [x1, x2], { names: ['x1', 'x2'] });
    const X = y.map((_, i) => [1, x1[i]!, x2[i]!]);
    const xtx = [0, 1, 2].map((a) => [0, 1, 2].map((b) => X.reduce((s, row) => s + row[a]! * row[b]!, 0)));
    const xty = [0, 1, 2].map((a) => X.reduce((s, row, i) => s + row[a]! * y[i]!, 0));
    const inv = invert3(xtx);
    const b = inv.map((row) => row.reduce((s, v, j) => s + v * xty[j]!, 0));
    const resid = y.map((v, i) => v - X[i]!.reduce((s, xv, j) => s + xv * b[j]!, 0));
    const sigma2 = resid.reduce((s, e) => s + e * e, 0) / (10 - 3);
    r.coefficients.forEach((c, j) => {
      expect(c.estimate).toBeCloseTo(b[j]!, 9);
      expect(c.standardError).toBeCloseTo(Math.sqrt(sigma2 * inv[j]![j]!), 9);
      expect(c.tStatistic).toBeCloseTo(b[j]! / Math.sqrt(sigma2 * inv[j]![j]!), 6);
    });
    expect(r.degreesOfFreedom).toBe(7);
  });

  it('refuses collinear regressors and too few observations, saying which', () => {
    const x = [1, 2, 3, 4, 5];
    expect(() => ols([1, 2, 3, 4, 6], [x, x.map((v) => 2 * v)], { names: ['a', 'b'] })).toThrow(
      /b is a linear combination/,
    );
    expect(() => ols([1, 2], [[1, 2]])).toThrow(StatsError);
    expect(() => ols([1, 2], [[1, 2]])).toThrow(/needs more than 2 observations, got 2/);
  });

  it('has residuals orthogonal to the regressors and R² within [0, 1]', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.double({ min: -100, max: 100, noNaN: true }),
            fc.double({ min: -100, max: 100, noNaN: true }),
          ),
          { minLength: 5, maxLength: 40 },
        ),
        (points) => {
          const x = points.map((p) => p[0]);
          const y = points.map((p) => p[1]);
          const spread = Math.max(...x) - Math.min(...x);
          fc.pre(spread > 1e-3);
          const r = ols(y, [x]);
          const [a, b] = r.coefficients.map((c) => c.estimate) as [number, number];
          const resid = y.map((v, i) => v - a - b * x[i]!);
          const dot = resid.reduce((s, e, i) => s + e * x[i]!, 0);
          const scale = Math.max(
            1,
            Math.sqrt(x.reduce((s, v) => s + v * v, 0) * resid.reduce((s, e) => s + e * e, 0)),
          );
          expect(Math.abs(dot) / scale).toBeLessThan(1e-8);
          expect(r.rSquared).toBeGreaterThanOrEqual(-1e-12);
          expect(r.rSquared).toBeLessThanOrEqual(1 + 1e-12);
          for (const c of r.coefficients)
            if (Number.isFinite(c.pValue)) expect(c.pValue).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('granger causality', () => {
  const n = 400;
  const e = noise(7);
  const x = Array.from({ length: n }, () => e());
  const y = [0, ...x.slice(0, -1).map((v) => 0.8 * v)].map((v) => v + 0.5 * e());

  it('finds that x causes y when y follows x with a lag', () => {
    const result = grangerCausality(x, y, 2);
    expect(result.pValue).toBeLessThan(0.01);
    expect(result).toMatchObject({
      conclusion: 'causes',
      dfNumerator: 2,
      dfDenominator: n - 2 - 5,
      n: n - 2,
    });
  });

  it('finds no evidence the other way round', () => {
    expect(grangerCausality(y, x, 2).pValue).toBeGreaterThan(0.05);
  });

  it('chooses a lag by AIC and refuses series too short to test', () => {
    expect(grangerBestLag(x, y, 6).lags).toBeGreaterThanOrEqual(1);
    expect(() => grangerCausality([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], 2)).toThrow(
      /needs at least 12 observations/,
    );
  });
});

describe('alignment', () => {
  it('joins series as of each anchor date and drops anchors before a series starts', () => {
    const daily = { times: [1, 2, 3, 4, 5, 6], values: [10, 11, 12, 13, 14, 15] };
    const monthly = { times: [2.5, 5.5], values: [100, 101] };
    expect(alignOnDates([daily, monthly], [2, 3, 6])).toEqual({
      times: [3, 6],
      values: [
        [12, 15],
        [100, 101],
      ],
    });
  });

  it('computes log changes for levels and differences for rates', () => {
    expect(Array.from(changes([100, 110], 'log'))).toEqual([Math.log(1.1)]);
    expect(Array.from(changes([4.5, 4.25], 'diff'))).toEqual([-0.25]);
    expect(medianSpacingDays([0, 86_400_000 * 30, 86_400_000 * 61, 86_400_000 * 91])).toBe(30);
  });
});

function invert3(m: number[][]): number[][] {
  const [[a, b, c], [d, e, f], [g, h, i]] = m as [
    [number, number, number],
    [number, number, number],
    [number, number, number],
  ];
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  return [
    [A / det, -(b * i - c * h) / det, (b * f - c * e) / det],
    [B / det, (a * i - c * g) / det, -(a * f - c * d) / det],
    [C / det, -(a * h - b * g) / det, (a * e - b * d) / det],
  ];
}

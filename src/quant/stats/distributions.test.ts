import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fCdf,
  fUpperPValue,
  logBeta,
  logGamma,
  regularizedIncompleteBeta,
  studentTCdf,
  tTwoSidedPValue,
} from './distributions.ts';
import { StatsError } from './errors.ts';

// Reference values: mpmath 1.3 (betainc, loggamma) at 40 significant digits, rounded to 17; critical
// values are the 0.95 / 0.975 / 0.99 / 0.995 quantiles printed (to 3-4 digits) in textbook tables.

/** |actual - expected| <= tolerance · |expected|. */
function expectRelative(actual: number, expected: number, tolerance: number): void {
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

describe('log-gamma and log-beta', () => {
  it('matches factorials, Γ(1/2) = √π and high-precision references', () => {
    let factorial = 1;
    for (let n = 1; n <= 20; n++) {
      factorial *= n;
      expectRelative(logGamma(n + 1), Math.log(factorial), 1e-14);
    }
    expect(logGamma(1)).toBeCloseTo(0, 14);
    expect(logGamma(0.5)).toBeCloseTo(0.5 * Math.log(Math.PI), 14);
    expectRelative(logGamma(0.1), 2.252712651734206, 1e-14);
    expectRelative(logGamma(3.7), 1.428072326665388, 1e-14);
    expectRelative(logGamma(101), 363.73937555556347, 1e-14);
    expectRelative(logGamma(1e7), 151180949.3694739, 1e-14);
  });

  it('keeps ln B(a, b) accurate where lnΓ(a) + lnΓ(b) - lnΓ(a + b) cancels', () => {
    expectRelative(logBeta(2.5, 3.5), -3.301835269962053, 1e-14);
    expectRelative(logBeta(12, 0.5), -0.6596747231378598, 1e-14);
    expectRelative(logBeta(0.5, 12), -0.6596747231378598, 1e-14);
    expectRelative(logBeta(300, 400), -479.688451037132, 1e-14);
    // A t test with 10^6 degrees of freedom: the three log-gammas are ~6e6 each, the result ~-6.
    expectRelative(logBeta(5e5, 0.5), -5.988816495777464, 1e-13);
  });

  it('refuses non-positive arguments', () => {
    expect(() => logGamma(0)).toThrow(StatsError);
    expect(() => logBeta(-1, 2)).toThrow(/a, b > 0/);
  });
});

describe('regularized incomplete beta', () => {
  it('has the closed forms of its special cases', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0.1, max: 50, noNaN: true }),
        (x, s) => {
          expect(regularizedIncompleteBeta(x, 1, s)).toBeCloseTo(-Math.expm1(s * Math.log1p(-x)), 13);
          expect(regularizedIncompleteBeta(x, s, 1)).toBeCloseTo(x ** s, 13);
          // Arcsine law, as atan2 (asin(√x) is ill-conditioned near x = 1; 1 - x is exact there).
          const arcsine = (2 / Math.PI) * Math.atan2(Math.sqrt(x), Math.sqrt(1 - x));
          expect(regularizedIncompleteBeta(x, 0.5, 0.5)).toBeCloseTo(arcsine, 13);
          // Symmetry I_x(a, b) = 1 - I_{1-x}(b, a), away from the ends where forming 1 - x rounds.
          const z = 0.01 + 0.98 * x;
          expect(regularizedIncompleteBeta(z, s, 2.5) + regularizedIncompleteBeta(1 - z, 2.5, s)).toBeCloseTo(
            1,
            13,
          );
        },
      ),
    );
    expect(regularizedIncompleteBeta(0.5, 7.25, 7.25)).toBeCloseTo(0.5, 14);
  });

  it('matches high-precision references', () => {
    expect(regularizedIncompleteBeta(0.4, 2, 3)).toBeCloseTo(0.5248, 14);
    expectRelative(regularizedIncompleteBeta(0.2, 0.5, 0.5), 0.2951672353008666, 1e-14);
    expectRelative(regularizedIncompleteBeta(0.3, 50, 60), 0.00034341151876628867, 1e-12);
    expectRelative(regularizedIncompleteBeta(0.45, 200, 300), 0.9881463456202629, 1e-13);
  });

  it('is 0 and 1 at the ends and refuses x outside [0, 1]', () => {
    expect(regularizedIncompleteBeta(0, 3, 4)).toBe(0);
    expect(regularizedIncompleteBeta(1, 3, 4)).toBe(1);
    expect(() => regularizedIncompleteBeta(1.5, 3, 4)).toThrow(/0 <= x <= 1/);
    expect(() => regularizedIncompleteBeta(0.5, 0, 4)).toThrow(StatsError);
  });
});

describe('Student t', () => {
  it.each([
    [2.0, 10, 0.07338803477074037],
    [3.0, 5, 0.030099247897462576],
    [0.5, 3, 0.651447964848151],
    [1.0, 1, 0.5],
    [2.0, 2, 0.18350341907227397],
    [1.5, 7.5, 0.17448057058646424],
    [6, 4, 0.0038825370469605103],
    [0.01, 50, 0.9920610813671429],
    [-2.0, 10, 0.07338803477074037],
    [0, 7, 1],
  ])('t = %f with %f df has two-sided p %f', (t, df, p) => {
    expect(Math.abs(tTwoSidedPValue(t, df) - p)).toBeLessThan(1e-13);
  });

  it.each([
    [12.706, 1, 0.05],
    [2.228, 10, 0.05],
    [2.042, 30, 0.05],
    [1.98, 120, 0.05],
    [2.845, 20, 0.01],
  ])('table critical value %f with %i df gives p ≈ %f', (t, df, p) => {
    expect(tTwoSidedPValue(t, df)).toBeCloseTo(p, 4);
  });

  it('keeps relative accuracy far in the tails', () => {
    expectRelative(tTwoSidedPValue(10, 30), 4.575251408229613e-11, 1e-12);
    expectRelative(tTwoSidedPValue(40, 100), 2.462107602140071e-63, 1e-11);
    expectRelative(tTwoSidedPValue(-50, 200), 5.420575479782485e-115, 1e-11);
    expect(tTwoSidedPValue(1e200, 5)).toBe(0);
    expect(tTwoSidedPValue(Number.POSITIVE_INFINITY, 5)).toBe(0);
    expect(studentTCdf(Number.NEGATIVE_INFINITY, 5)).toBe(0);
  });

  it('stays accurate with very many degrees of freedom', () => {
    expect(Math.abs(tTwoSidedPValue(1.959963984540054, 1e6) - 0.05000027729522166)).toBeLessThan(1e-12);
    expect(Math.abs(tTwoSidedPValue(2.5, 1e4) - 0.012435219550583698)).toBeLessThan(1e-14);
    // Where the continued fraction loses the most (x ≈ 1, a = 5e7), still far inside 1e-6.
    expect(Math.abs(tTwoSidedPValue(3, 1e8) - 0.0026997967280374944)).toBeLessThan(1e-10);
  });

  it('agrees with the closed forms for 1 and 2 degrees of freedom, tails included', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), (t) => {
        const a = Math.abs(t);
        // df = 1 (Cauchy): p = (2/π)·atan(1/|t|). df = 2: p = 1 - |t|/s = 2 / (s (s + |t|)), s = √(2 + t²).
        const cauchy = a === 0 ? 1 : (2 / Math.PI) * Math.atan(1 / a);
        const s = Math.sqrt(2 + a * a);
        expectRelative(tTwoSidedPValue(t, 1), cauchy, 1e-13);
        expectRelative(tTwoSidedPValue(t, 2), 2 / (s * (s + a)), 1e-13);
      }),
    );
  });

  it('has a symmetric CDF and p-values in [0, 1] that fall as |t| grows', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -100, max: 100, noNaN: true }),
        fc.double({ min: 0.5, max: 1e5, noNaN: true }),
        (t, df) => {
          const p = tTwoSidedPValue(t, df);
          expect(p).toBeGreaterThanOrEqual(0);
          expect(p).toBeLessThanOrEqual(1);
          expect(studentTCdf(t, df) + studentTCdf(-t, df)).toBeCloseTo(1, 14);
          expect(tTwoSidedPValue(Math.abs(t) + 0.5, df)).toBeLessThanOrEqual(p);
        },
      ),
    );
    expect(studentTCdf(0, 9)).toBe(0.5);
  });

  it('propagates NaN and refuses non-positive degrees of freedom', () => {
    expect(tTwoSidedPValue(Number.NaN, 5)).toBeNaN();
    expect(() => tTwoSidedPValue(1, 0)).toThrow(StatsError);
    expect(() => tTwoSidedPValue(1, Number.NaN)).toThrow(/degrees of freedom/);
  });
});

describe('F distribution', () => {
  it.each([
    [3.0, 2, 20, 0.07253815028640571],
    [2.3, 5, 100, 0.05046962528077672],
    [1, 10, 10, 0.5],
    [0.1, 4, 40, 0.9818305040674531],
    [2.5, 1, 1, 0.3590170359713761],
    [7, 6, 12, 0.0022122939398798807],
  ])('F = %f with (%i, %i) df has upper p %f', (f, d1, d2, p) => {
    expect(Math.abs(fUpperPValue(f, d1, d2) - p)).toBeLessThan(1e-13);
    expect(Math.abs(fCdf(f, d1, d2) - (1 - p))).toBeLessThan(1e-13);
  });

  it.each([
    [4.965, 1, 10, 0.05],
    [3.493, 2, 20, 0.05],
    [2.525, 4, 60, 0.05],
    [3.206, 5, 100, 0.01],
  ])('table critical value %f with (%i, %i) df gives p ≈ %f', (f, d1, d2, p) => {
    expect(fUpperPValue(f, d1, d2)).toBeCloseTo(p, 4);
  });

  it('keeps relative accuracy in both tails', () => {
    expectRelative(fUpperPValue(50, 3, 30), 8.748902589397341e-12, 1e-12);
    expectRelative(fUpperPValue(200, 10, 50), 1.0348128423872362e-36, 1e-12);
    expectRelative(fCdf(1e-6, 4, 40), 2.0999969200026564e-12, 1e-12);
    expect(fUpperPValue(Number.POSITIVE_INFINITY, 3, 9)).toBe(0);
    expect(fUpperPValue(0, 3, 9)).toBe(1);
    expect(fUpperPValue(-2, 3, 9)).toBe(1);
  });

  it('equals the closed form for two numerator degrees of freedom and t² for one', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e4, noNaN: true }), fc.integer({ min: 1, max: 500 }), (f, d2) => {
        // F(2, d2): P(F > f) = (1 + 2f/d2)^(-d2/2).
        expectRelative(fUpperPValue(f, 2, d2), Math.exp((-d2 / 2) * Math.log1p((2 * f) / d2)), 1e-12);
        expectRelative(fUpperPValue(f, 1, d2), tTwoSidedPValue(Math.sqrt(f), d2), 1e-12);
        expect(fCdf(f, 3, d2) + fUpperPValue(f, 3, d2)).toBeCloseTo(1, 14);
      }),
    );
  });
});

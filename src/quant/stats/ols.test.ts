import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARS, LONGLEY, NOINT1 } from '../../../test/support/stats-reference-data.ts';
import { tTwoSidedPValue } from './distributions.ts';
import { StatsError } from './errors.ts';
import { ols } from './ols.ts';

function expectRelative(actual: number | null, expected: number, tolerance: number): void {
  expect(actual).not.toBeNull();
  expect(Math.abs(actual! - expected)).toBeLessThanOrEqual(tolerance * Math.abs(expected));
}

/**
 * The textbook route, written as plainly as possible to serve as an independent check: form X'X
 * and X'y, invert X'X by Gauss-Jordan elimination with partial pivoting, b = (X'X)^-1 X'y,
 * se_j = sqrt(s² [(X'X)^-1]_jj). Fine on well-conditioned data, which is where it is used.
 */
function normalEquations(y: readonly number[], columns: readonly (readonly number[])[]) {
  const k = columns.length;
  const n = y.length;
  const dot = (a: readonly number[], b: readonly number[]) => a.reduce((s, v, i) => s + v * b[i]!, 0);
  const m = columns.map((a, i) => [
    ...columns.map((b) => dot(a, b)),
    ...columns.map((_, j) => (i === j ? 1 : 0)),
  ]);
  for (let c = 0; c < k; c++) {
    const pivot = m
      .slice(c)
      .reduce((best, row, i) => (Math.abs(row[c]!) > Math.abs(m[best]![c]!) ? c + i : best), c);
    [m[c], m[pivot]] = [m[pivot]!, m[c]!];
    const p = m[c]![c]!;
    m[c] = m[c]!.map((v) => v / p);
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = m[r]![c]!;
      m[r] = m[r]!.map((v, j) => v - f * m[c]![j]!);
    }
  }
  const inverse = m.map((row) => row.slice(k));
  const xty = columns.map((col) => dot(col, y));
  const b = inverse.map((row) => dot(row, xty));
  const residuals = y.map((v, i) => v - columns.reduce((s, col, j) => s + col[i]! * b[j]!, 0));
  const s2 = dot(residuals, residuals) / (n - k);
  const se = inverse.map((row, j) => Math.sqrt(s2 * row[j]!));
  return { b, se, residuals };
}

describe('ols', () => {
  it('recovers an exact line y = 2 + 3x with R² = 1', () => {
    const x = [1, 2, 3, 4, 5, 6, 7, 8];
    const fit = ols(
      x.map((v) => 2 + 3 * v),
      [x],
      { names: ['x'] },
    );
    expect(fit.coefficients.map((c) => c.name)).toEqual(['intercept', 'x']);
    expect(fit.coefficients[0]!.estimate).toBeCloseTo(2, 12);
    expect(fit.coefficients[1]!.estimate).toBeCloseTo(3, 12);
    expect(fit.rSquared).toBeCloseTo(1, 14);
    expect(fit.residualStdError).toBeLessThan(1e-12);
    expect(fit.fPValue).toBeLessThan(1e-12);
    expect(fit).toMatchObject({ n: 8, k: 2, degreesOfFreedom: 6 });
  });

  it("reproduces R's summary(lm(dist ~ speed)) on the cars data", () => {
    const fit = ols(CARS.dist, [CARS.speed], { names: ['speed'] });
    fit.coefficients.forEach((c, j) => {
      const [estimate, se, t, p] = CARS.coefficients[j]!;
      expectRelative(c.estimate, estimate, 1e-13);
      expectRelative(c.standardError, se, 1e-13);
      expectRelative(c.tStatistic, t, 1e-13);
      expectRelative(c.pValue, p, 1e-11);
    });
    expectRelative(fit.rSquared, CARS.rSquared, 1e-14);
    expectRelative(fit.adjustedRSquared, CARS.adjustedRSquared, 1e-14);
    expectRelative(fit.fStatistic, CARS.fStatistic, 1e-13);
    expectRelative(fit.fPValue, CARS.fPValue, 1e-11);
    expectRelative(fit.residualStdError, CARS.residualStdError, 1e-14);
    expect(fit.degreesOfFreedom).toBe(48);
  });

  it('agrees with the normal equations solved naively, on a quadratic fit of the cars data', () => {
    const speed = [...CARS.speed];
    const squared = speed.map((v) => v * v);
    const fit = ols(CARS.dist, [speed, squared], { names: ['speed', 'speed²'] });
    const reference = normalEquations(CARS.dist, [speed.map(() => 1), speed, squared]);
    fit.coefficients.forEach((c, j) => {
      expectRelative(c.estimate, reference.b[j]!, 1e-9);
      expectRelative(c.standardError, reference.se[j]!, 1e-9);
      expectRelative(c.tStatistic, reference.b[j]! / reference.se[j]!, 1e-9);
      expectRelative(c.pValue, tTwoSidedPValue(reference.b[j]! / reference.se[j]!, 47), 1e-8);
    });
    const rss = reference.residuals.reduce((s, e) => s + e * e, 0);
    const mean = CARS.dist.reduce((s, v) => s + v, 0) / CARS.dist.length;
    const tss = CARS.dist.reduce((s, v) => s + (v - mean) ** 2, 0);
    expectRelative(fit.rSquared, 1 - rss / tss, 1e-12);
  });

  it('matches the NIST certified values for Longley, the classic test of numerical stability', () => {
    const fit = ols(
      LONGLEY.y,
      LONGLEY.x.map((x) => [...x]),
    );
    fit.coefficients.forEach((c, j) => {
      const [estimate, se] = LONGLEY.certified[j]!;
      // About 11 correct digits; Gauss-Jordan on X'X in double precision keeps about 8 here.
      expectRelative(c.estimate, estimate, 1e-10);
      expectRelative(c.standardError, se, 1e-11);
    });
    expectRelative(fit.residualStdError, LONGLEY.residualStdError, 1e-11);
    expectRelative(fit.rSquared, LONGLEY.rSquared, 1e-13);
    expectRelative(fit.fStatistic, LONGLEY.fStatistic, 1e-10);
  });

  it('fits through the origin without an intercept, with the uncentred R² (NIST NoInt1)', () => {
    const fit = ols(NOINT1.y, [NOINT1.x], { intercept: false, names: ['x'] });
    expect(fit.coefficients).toHaveLength(1);
    expectRelative(fit.coefficients[0]!.estimate, NOINT1.estimate, 1e-13);
    expectRelative(fit.coefficients[0]!.standardError, NOINT1.standardError, 1e-12);
    expectRelative(fit.residualStdError, NOINT1.residualStdError, 1e-12);
    expectRelative(fit.rSquared, NOINT1.rSquared, 1e-14);
    expectRelative(fit.fStatistic, NOINT1.fStatistic, 1e-11);
    expect(fit.degreesOfFreedom).toBe(10);
  });

  it('reduces to the mean and its standard error with the intercept alone', () => {
    const y = [3, 5, 4, 8, 10];
    const fit = ols(y, []);
    const sd = Math.sqrt(y.reduce((s, v) => s + (v - 6) ** 2, 0) / 4);
    expect(fit.coefficients[0]!.estimate).toBeCloseTo(6, 13);
    expect(fit.coefficients[0]!.standardError).toBeCloseTo(sd / Math.sqrt(5), 13);
    expect(fit.fStatistic).toBeNull();
    expect(fit.fPValue).toBeNull();
    expect(fit.rSquared).toBe(0);
  });

  it('refuses perfectly collinear regressors, naming the one to drop', () => {
    const a = [1, 2, 3, 4, 5, 6];
    const y = [2, 1, 4, 3, 6, 7];
    const error = (regressors: number[][], names: string[]) => {
      try {
        ols(y, regressors, { names });
      } catch (e) {
        return e as StatsError;
      }
      throw new Error('expected a StatsError');
    };
    const doubled = error([a, a.map((v) => 2 * v)], ['a', 'b']);
    expect(doubled).toBeInstanceOf(StatsError);
    expect(doubled.code).toBe('SINGULAR');
    expect(doubled.message).toMatch(/^b is \(almost\) a linear combination of intercept, a/);
    expect(doubled.details).toMatchObject({ regressor: 'b', collinearWith: ['intercept', 'a'] });
    expect(error([a, a.map((v) => 10 - v)], ['a', 'c']).message).toMatch(/c is .* linear combination/);
    expect(error([a, a.map(() => 7)], ['a', 'k']).message).toMatch(/k is constant/);
    expect(error([a.map(() => 0)], ['z']).message).toMatch(/z is zero throughout/);
  });

  it('accepts strongly but not perfectly correlated regressors, and is scale-invariant', () => {
    const a = Array.from({ length: 30 }, (_, i) => Math.sin(i) + i / 10);
    const b = a.map((v, i) => v + 1e-4 * Math.cos(7 * i));
    const y = a.map((v, i) => 1 + v + 0.1 * Math.sin(3 * i));
    const fit = ols(y, [a, b]);
    expect(Number.isFinite(fit.coefficients[2]!.standardError)).toBe(true);
    // GNP in dollars instead of thousands: the same fit, the coefficient rescaled, t unchanged.
    const scaled = ols(y, [a, b.map((v) => v * 1e9)]);
    expectRelative(scaled.coefficients[2]!.estimate * 1e9, fit.coefficients[2]!.estimate, 1e-8);
    expectRelative(scaled.coefficients[2]!.tStatistic, fit.coefficients[2]!.tStatistic, 1e-8);
  });

  it('refuses too few observations, ragged or non-finite input', () => {
    expect(() => ols([1, 2], [[1, 2]])).toThrow(
      expect.objectContaining({
        code: 'INSUFFICIENT_DATA',
        message: expect.stringMatching(/more than 2 observations, got 2/),
      }),
    );
    expect(() => ols([1, 2, 3], [[1, 2]], { names: ['cpi'] })).toThrow(/cpi has 2 values but y has 3/);
    expect(() => ols([1, 2, Number.NaN, 4], [[1, 2, 3, 5]])).toThrow(
      /y has a non-finite value \(NaN\) at index 2/,
    );
    expect(() => ols([1, 2, 3, 4], [[1, 2, 3, 4]], { names: [] })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => ols([1, 2, 3], [], { intercept: false })).toThrow(/needs an intercept or a regressor/);
  });

  it('has residuals orthogonal to every regressor, R² in [0, 1] and p-values in [0, 1]', () => {
    // Zero or magnitudes from 1e-6 to 1e3 (subnormal numbers would only test the check's own arithmetic).
    const value = fc.oneof(
      fc.constant(0),
      fc.double({ min: 1e-6, max: 1e3, noNaN: true }),
      fc.double({ min: -1e3, max: -1e-6, noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }).chain((k) =>
          fc.array(fc.array(value, { minLength: k + 1, maxLength: k + 1 }), {
            minLength: k + 3,
            maxLength: 40,
          }),
        ),
        fc.boolean(),
        (rows, intercept) => {
          const y = rows.map((r) => r[0]!);
          const xs = rows[0]!.slice(1).map((_, j) => rows.map((r) => r[j + 1]!));
          let fit: ReturnType<typeof ols>;
          try {
            fit = ols(y, xs, { intercept });
          } catch (e) {
            // Generated columns can be constant or repeat each other; that must be the only refusal.
            expect((e as StatsError).code).toBe('SINGULAR');
            return;
          }
          const b = fit.coefficients.map((c) => c.estimate);
          const columns = intercept ? [y.map(() => 1), ...xs] : xs;
          const residuals = y.map((v, i) => v - columns.reduce((s, col, j) => s + col[i]! * b[j]!, 0));
          const norm = (v: readonly number[]) => Math.sqrt(v.reduce((s, e) => s + e * e, 0));
          for (const col of columns) {
            const dot = col.reduce((s, v, i) => s + v * residuals[i]!, 0);
            expect(Math.abs(dot)).toBeLessThanOrEqual(1e-9 * norm(col) * Math.max(norm(y), 1));
          }
          if (!Number.isNaN(fit.rSquared)) {
            expect(fit.rSquared).toBeGreaterThanOrEqual(0);
            expect(fit.rSquared).toBeLessThanOrEqual(1);
            expect(fit.adjustedRSquared).toBeLessThanOrEqual(fit.rSquared + 1e-15);
          }
          for (const p of [...fit.coefficients.map((c) => c.pValue), fit.fPValue ?? 0.5]) {
            if (!Number.isNaN(p)) expect(p >= 0 && p <= 1).toBe(true);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

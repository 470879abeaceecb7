import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CARS } from '../../../test/support/stats-reference-data.ts';
import { pearson, sampleStdDev } from '../indicators/statistics.ts';
import { correlationMatrix, correlationPValue, impacts, oneSdImpact } from './correlation.ts';
import { ols } from './ols.ts';

describe('correlationMatrix', () => {
  it('is symmetric with a unit diagonal and hand-checkable entries', () => {
    const x = [1, 2, 3, 4, 5];
    // w: deviations (-2, 0, -1, 2, 1) against x's (-2, -1, 0, 1, 2): 8 / sqrt(10 · 10) = 0.8.
    const w = [1, 3, 2, 5, 4];
    const m = correlationMatrix([x, x.map((v) => 2 * v + 1), x.map((v) => -v), w]);
    expect(m.map((row) => row.map((v) => Number(v.toFixed(12))))).toEqual([
      [1, 1, -1, 0.8],
      [1, 1, -1, 0.8],
      [-1, -1, 1, -0.8],
      [0.8, 0.8, -0.8, 1],
    ]);
  });

  it('leaves a series that never moves without correlations (NaN), rather than inventing 0', () => {
    const m = correlationMatrix([
      [1, 2, 3, 5],
      [7, 7, 7, 7],
      [2, 1, 4, 3],
    ]);
    expect(m[1]).toEqual([Number.NaN, Number.NaN, Number.NaN]);
    expect(m.map((row) => row[1])).toEqual([Number.NaN, Number.NaN, Number.NaN]);
    expect(m[0]![2]).toBeCloseTo(pearson([1, 2, 3, 5], [2, 1, 4, 3]), 15);
    // 0.1 has no exact binary mean: the series must still count as constant.
    expect(
      correlationMatrix([
        [0.1, 0.1, 0.1],
        [1, 3, 2],
      ])[0]![1],
    ).toBeNaN();
  });

  it('refuses ragged or too short input', () => {
    expect(() =>
      correlationMatrix([
        [1, 2, 3],
        [1, 2],
      ]),
    ).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT', message: 'series 2 has 2 values, series 1 has 3' }),
    );
    expect(() =>
      correlationMatrix([
        [1, 2],
        [2, 1],
      ]),
    ).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_DATA' }));
    expect(correlationMatrix([])).toEqual([]);
  });

  it('stays within [-1, 1] and symmetric on any data', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.double({ min: -1e3, max: 1e3, noNaN: true }), { minLength: 3, maxLength: 3 }), {
          minLength: 3,
          maxLength: 30,
        }),
        (rows) => {
          const m = correlationMatrix([0, 1, 2].map((j) => rows.map((r) => r[j]!)));
          for (let i = 0; i < 3; i++) {
            for (let j = 0; j < 3; j++) {
              if (Number.isNaN(m[i]![j]!)) continue;
              expect(Math.abs(m[i]![j]!)).toBeLessThanOrEqual(1);
              expect(m[i]![j]).toBe(m[j]![i]);
            }
          }
        },
      ),
    );
  });
});

describe('correlationPValue', () => {
  it('equals the p-value of the slope in the simple regression (cars: r² = R²)', () => {
    const r = pearson(CARS.speed, CARS.dist);
    expect(r * r).toBeCloseTo(CARS.rSquared, 14);
    const p = correlationPValue(r, CARS.speed.length);
    expect(Math.abs(p - CARS.coefficients[1][3]) / CARS.coefficients[1][3]).toBeLessThan(1e-10);
  });

  it('is 1 at r = 0, 0 at |r| = 1, NaN for NaN, and refuses nonsense', () => {
    expect(correlationPValue(0, 10)).toBe(1);
    expect(correlationPValue(1, 10)).toBe(0);
    expect(correlationPValue(-1, 10)).toBe(0);
    expect(correlationPValue(Number.NaN, 10)).toBeNaN();
    expect(() => correlationPValue(0.5, 2)).toThrow(expect.objectContaining({ code: 'INSUFFICIENT_DATA' }));
    expect(() => correlationPValue(1.2, 10)).toThrow(/lies in \[-1, 1\]/);
  });
});

describe('impact of a one-standard-deviation move', () => {
  // Monthly changes: 10-year yield in percentage points, CPI in log change; asset log returns.
  const us10y = [0.12, -0.08, 0.25, -0.3, 0.05, 0.18, -0.22, 0.1, -0.04, 0.15, -0.12, 0.02];
  const cpi = [0.003, 0.002, 0.004, 0.001, 0.003, 0.005, 0.002, 0.003, 0.004, 0.001, 0.002, 0.003];
  const noise = [0.004, -0.006, 0.002, 0.001, -0.003, 0.005, -0.002, 0.0, 0.003, -0.004, 0.002, -0.001];
  const asset = us10y.map((d, i) => 0.01 - 0.05 * d - 1.5 * cpi[i]! + noise[i]!);

  it('is the coefficient times the sample sd of the indicator change', () => {
    expect(oneSdImpact(-0.05, us10y)).toBeCloseTo(-0.05 * sampleStdDev(us10y), 15);
  });

  it('reports every regressor of a fit, skipping the intercept, in the fit units', () => {
    const fit = ols(asset, [us10y, cpi], { names: ['US10Y', 'CPI'] });
    const result = impacts(fit, [us10y, cpi]);
    expect(result.map((r) => r.indicator)).toEqual(['US10Y', 'CPI']);
    for (const [k, r] of result.entries()) {
      const c = fit.coefficients[k + 1]!;
      const sd = sampleStdDev(k === 0 ? us10y : cpi);
      expect(r).toEqual({
        indicator: c.name,
        coefficient: c.estimate,
        pValue: c.pValue,
        indicatorChangeSd: sd,
        impact: c.estimate * sd,
        impactStandardError: c.standardError * sd,
      });
    }
    // A one-sd rise in the 10-year yield (about 16 bp a month here) goes with a lower return.
    expect(result[0]!.impact).toBeLessThan(0);
  });

  it('refuses regressors that do not match the fit', () => {
    const fit = ols(asset, [us10y, cpi]);
    expect(() => impacts(fit, [us10y])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(impacts(ols(asset, [us10y], { intercept: false }), [us10y])).toHaveLength(1);
  });
});

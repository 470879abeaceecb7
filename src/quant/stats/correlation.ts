/** Correlation matrices and the economic size of regression coefficients. */
import { pearson, sampleStdDev } from '../indicators/statistics.ts';
import { tTwoSidedPValue } from './distributions.ts';
import { StatsError } from './errors.ts';
import type { OlsResult } from './ols.ts';

/**
 * Pearson correlations of every pair of equally long series: a symmetric matrix, 1 on the diagonal.
 * A series that does not vary has no correlation with anything: its row and column (its diagonal
 * entry included) are NaN, which JSON renders as null.
 */
export function correlationMatrix(series: readonly ArrayLike<number>[]): number[][] {
  const n = series[0]?.length ?? 0;
  for (const [i, s] of series.entries()) {
    if (s.length !== n)
      throw new StatsError('INVALID_INPUT', `series ${i + 1} has ${s.length} values, series 1 has ${n}`);
  }
  if (series.length > 0 && n < 3) {
    throw new StatsError('INSUFFICIENT_DATA', `correlations need at least 3 observations, got ${n}`, { n });
  }
  // Exact test for "never moves": a computed sd of a constant series can come out as a few ulps
  // rather than 0, and its "correlation" would then be noise.
  const varies = series.map(moves);
  const matrix = series.map(() => new Array<number>(series.length).fill(Number.NaN));
  for (let i = 0; i < series.length; i++) {
    if (!varies[i]) continue;
    matrix[i]![i] = 1;
    for (let j = i + 1; j < series.length; j++) {
      if (!varies[j]) continue;
      const r = pearson(series[i]!, series[j]!);
      matrix[i]![j] = r;
      matrix[j]![i] = r;
    }
  }
  return matrix;
}

function moves(values: ArrayLike<number>): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return true;
  return false;
}

/**
 * Two-sided p-value of H0: ρ = 0 for a Pearson correlation r over n pairs (bivariate normal data):
 * t = r·sqrt((n - 2) / (1 - r²)) has a Student t distribution with n - 2 degrees of freedom.
 */
export function correlationPValue(r: number, n: number): number {
  if (!Number.isInteger(n) || n < 3)
    throw new StatsError('INSUFFICIENT_DATA', `a correlation test needs at least 3 pairs, got ${n}`, { n });
  if (Number.isNaN(r)) return Number.NaN;
  if (r < -1 || r > 1) throw new StatsError('INVALID_INPUT', `a correlation lies in [-1, 1], got ${r}`);
  // (1 - r)(1 + r) rather than 1 - r², which loses the digits that matter when |r| is near 1.
  const t = r * Math.sqrt((n - 2) / ((1 - r) * (1 + r)));
  return tTwoSidedPValue(t, n - 2);
}

/**
 * Impact of a typical move of an indicator: b · sd(indicator change).
 *
 * Units: if the regression is asset log return per period on indicator change per period (a first
 * difference for rates, in their own units such as percentage points; a log change for levels),
 * then b is log return per unit of indicator change, and the result is the asset log return that
 * goes with a one-standard-deviation move of the indicator over one period, the other regressors
 * held fixed. Multiply by 100 for (log) percent; Math.expm1 gives the simple return.
 */
export function oneSdImpact(coefficient: number, indicatorChanges: ArrayLike<number>): number {
  return coefficient * sampleStdDev(indicatorChanges);
}

export interface Impact {
  readonly indicator: string;
  /** Regression coefficient b: log return per unit of indicator change. */
  readonly coefficient: number;
  readonly pValue: number;
  /** Sample standard deviation of the indicator's per-period change, in the indicator's units. */
  readonly indicatorChangeSd: number;
  /** b · sd: asset log return for a one-sd move of the indicator (see oneSdImpact). */
  readonly impact: number;
  /** se(b) · sd, treating the sd as known: the impact's sampling error from the coefficient alone. */
  readonly impactStandardError: number;
}

/**
 * One-sd impacts of every regressor of a fit, given the regressors it was fitted on (same order as
 * passed to ols; an intercept, when fitted, is skipped).
 */
export function impacts(fit: OlsResult, regressors: readonly ArrayLike<number>[]): Impact[] {
  const offset = fit.coefficients.length - regressors.length;
  if (offset !== 0 && !(offset === 1 && fit.coefficients[0]!.name === 'intercept')) {
    throw new StatsError(
      'INVALID_INPUT',
      `the fit has ${fit.coefficients.length} coefficients but ${regressors.length} regressors were given`,
    );
  }
  return regressors.map((x, i) => {
    const c = fit.coefficients[i + offset]!;
    const sd = sampleStdDev(x);
    return {
      indicator: c.name,
      coefficient: c.estimate,
      pValue: c.pValue,
      indicatorChangeSd: sd,
      impact: c.estimate * sd,
      impactStandardError: c.standardError * sd,
    };
  });
}

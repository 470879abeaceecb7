/**
 * Ordinary least squares with the classical (homoskedastic, uncorrelated errors) inference that R's
 * summary(lm) and statsmodels' OLS report. Time series of returns can violate both assumptions; the
 * standard errors are then indicative, not exact.
 */
import { fUpperPValue, tTwoSidedPValue } from './distributions.ts';
import { StatsError } from './errors.ts';
import { isRankDeficient, solveLeastSquares, sumOfSquares } from './qr.ts';

export interface OlsOptions {
  /** Fit a constant term (default true). It is reported first, named 'intercept'. */
  readonly intercept?: boolean;
  /** One name per regressor, for the coefficients and for error messages (default x1, x2, ...). */
  readonly names?: readonly string[];
}

export interface Coefficient {
  readonly name: string;
  readonly estimate: number;
  readonly standardError: number;
  readonly tStatistic: number;
  /** Two-sided, Student t with n - k degrees of freedom. */
  readonly pValue: number;
}

export interface OlsResult {
  readonly coefficients: readonly Coefficient[];
  /**
   * Share of the variation explained: around the mean with an intercept, around zero without one
   * (R's convention). NaN when y does not vary at all.
   */
  readonly rSquared: number;
  readonly adjustedRSquared: number;
  /**
   * F test that every slope is zero (against the intercept-only model, or against the zero model
   * without an intercept). Null when there are no slopes to test.
   */
  readonly fStatistic: number | null;
  readonly fPValue: number | null;
  /** sqrt(RSS / (n - k)). */
  readonly residualStdError: number;
  /** Residual sum of squares. */
  readonly rss: number;
  /** Observations. */
  readonly n: number;
  /** Estimated parameters, the intercept included. */
  readonly k: number;
  /** n - k. */
  readonly degreesOfFreedom: number;
}

/**
 * Regresses y on the given regressors (each as long as y). Coefficients by Householder QR;
 * standard errors from sigma² (X'X)^-1 with sigma² = RSS / (n - k); explained and residual sums of
 * squares read off Q'y, so R² and F involve no subtraction of nearly equal sums.
 * Throws StatsError: INVALID_INPUT (lengths, non-finite values, names), INSUFFICIENT_DATA (n <= k),
 * SINGULAR (a regressor is a linear combination of the intercept and the regressors before it).
 */
export function ols(
  y: ArrayLike<number>,
  regressors: readonly ArrayLike<number>[],
  options: OlsOptions = {},
): OlsResult {
  const intercept = options.intercept ?? true;
  const n = y.length;
  if (options.names !== undefined && options.names.length !== regressors.length) {
    throw new StatsError(
      'INVALID_INPUT',
      `${options.names.length} names given for ${regressors.length} regressors`,
    );
  }
  const regressorNames = regressors.map((_, i) => options.names?.[i] ?? `x${i + 1}`);
  const names = intercept ? ['intercept', ...regressorNames] : regressorNames;
  const k = names.length;
  if (k === 0) throw new StatsError('INVALID_INPUT', 'a regression needs an intercept or a regressor');
  for (const [i, x] of regressors.entries()) {
    if (x.length !== n) {
      throw new StatsError('INVALID_INPUT', `${regressorNames[i]} has ${x.length} values but y has ${n}`, {
        regressor: regressorNames[i],
      });
    }
  }
  if (n <= k) {
    throw new StatsError(
      'INSUFFICIENT_DATA',
      `a regression with ${k} parameters needs more than ${k} observations, got ${n}`,
      { n, k },
    );
  }
  const response = toFiniteArray(y, 'y');
  const columns = [
    ...(intercept ? [new Float64Array(n).fill(1)] : []),
    ...regressors.map((x, i) => toFiniteArray(x, regressorNames[i]!)),
  ];

  const solution = solveLeastSquares(columns, response);
  if (isRankDeficient(solution)) throw collinearityError(names, columns, solution.column, intercept);
  const { beta, varianceFactors, qty } = solution;

  const df = n - k;
  const rss = sumOfSquares(qty, k, n);
  // Q'y splits |y|² into the fit (first k entries) and the residual (the rest). With the intercept
  // as the first column, entry 0 is sqrt(n)·mean(y), so the rest is the variation around the mean.
  const explained = sumOfSquares(qty, intercept ? 1 : 0, k);
  const total = explained + rss;
  const sigma2 = rss / df;
  const coefficients = names.map((name, j): Coefficient => {
    const standardError = Math.sqrt(sigma2 * varianceFactors[j]!);
    const tStatistic = beta[j]! / standardError;
    return { name, estimate: beta[j]!, standardError, tStatistic, pValue: tTwoSidedPValue(tStatistic, df) };
  });
  const rSquared = total === 0 ? Number.NaN : explained / total;
  const slopes = k - (intercept ? 1 : 0);
  const fStatistic = slopes > 0 ? explained / slopes / sigma2 : null;
  return {
    coefficients,
    rSquared,
    adjustedRSquared: 1 - ((1 - rSquared) * (n - (intercept ? 1 : 0))) / df,
    fStatistic,
    fPValue: fStatistic === null ? null : fUpperPValue(fStatistic, slopes, df),
    residualStdError: Math.sqrt(sigma2),
    rss,
    n,
    k,
    degreesOfFreedom: df,
  };
}

function toFiniteArray(values: ArrayLike<number>, name: string): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) {
      throw new StatsError('INVALID_INPUT', `${name} has a non-finite value (${v}) at index ${i}`, {
        series: name,
        index: i,
      });
    }
    out[i] = v;
  }
  return out;
}

/** Names the collinear regressor and, in the common special cases, says why. */
function collinearityError(
  names: readonly string[],
  columns: readonly Float64Array[],
  column: number,
  intercept: boolean,
): StatsError {
  const name = names[column]!;
  const values = columns[column]!;
  const details = { regressor: name, collinearWith: names.slice(0, column) };
  if (values.every((v) => v === 0))
    return new StatsError('SINGULAR', `${name} is zero throughout, so its coefficient is undefined`, details);
  if (intercept && values.every((v) => v === values[0]))
    return new StatsError(
      'SINGULAR',
      `${name} is constant, so it cannot be told apart from the intercept (perfect collinearity)`,
      details,
    );
  return new StatsError(
    'SINGULAR',
    `${name} is (almost) a linear combination of ${names.slice(0, column).join(', ')} ` +
      '(perfect collinearity): drop it or one of those',
    details,
  );
}

import { fUpperPValue, tTwoSidedPValue } from './distributions.ts';
import { StatsError } from './errors.ts';

export interface Coefficient {
  readonly name: string;
  readonly estimate: number;
  readonly standardError: number;
  readonly tStatistic: number;
  readonly pValue: number;
}

export interface OlsResult {
  readonly coefficients: readonly Coefficient[];
  readonly rSquared: number;
  readonly adjustedRSquared: number;
  /** F test of all slopes = 0 (null without an intercept or without slopes). */
  readonly fStatistic: number | null;
  readonly fPValue: number | null;
  readonly residualStdError: number;
  readonly rss: number;
  readonly n: number;
  /** Estimated parameters, intercept included. */
  readonly k: number;
  readonly degreesOfFreedom: number;
}

/**
 * Ordinary least squares by Householder QR (no normal equations: X'X squares the condition
 * number). Standard errors from sigma^2 (R'R)^-1 with sigma^2 = RSS / (n - k); t tests two-sided.
 */
export function ols(
  y: ArrayLike<number>,
  regressors: ReadonlyArray<ArrayLike<number>>,
  options: { intercept?: boolean; names?: readonly string[] } = {},
): OlsResult {
  const intercept = options.intercept ?? true;
  const n = y.length;
  for (const [i, x] of regressors.entries()) {
    if (x.length !== n)
      throw new StatsError(
        'INVALID_INPUT',
        `regressor ${options.names?.[i] ?? i + 1} has ${x.length} values, y has ${n}`,
      );
  }
  const names = [
    ...(intercept ? ['intercept'] : []),
    ...regressors.map((_, i) => options.names?.[i] ?? `x${i + 1}`),
  ];
  const k = names.length;
  if (n <= k)
    throw new StatsError(
      'INSUFFICIENT_DATA',
      `regression of ${k} parameters needs more than ${k} observations, got ${n}`,
      { n, k },
    );
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(y[i]!) || regressors.some((x) => !Number.isFinite(x[i]!))) {
      throw new StatsError('INVALID_INPUT', `observation ${i + 1} is not a finite number`);
    }
  }
  // Column-major copy of X, transformed in place into R.
  const a = names.map((_, j) =>
    Float64Array.from({ length: n }, (_, i) =>
      intercept && j === 0 ? 1 : regressors[j - (intercept ? 1 : 0)]![i]!,
    ),
  );
  const qty = Float64Array.from({ length: n }, (_, i) => y[i]!);
  const diag = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    const col = a[j]!;
    let norm = 0;
    for (let i = j; i < n; i++) norm += col[i]! * col[i]!;
    norm = Math.sqrt(norm);
    const alpha = col[j]! > 0 ? -norm : norm;
    const v = new Float64Array(n - j);
    for (let i = j; i < n; i++) v[i - j] = col[i]!;
    v[0]! -= alpha;
    let vv = 0;
    for (let i = 0; i < v.length; i++) vv += v[i]! * v[i]!;
    diag[j] = alpha;
    if (vv === 0) continue;
    const reflect = (target: Float64Array) => {
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += v[i]! * target[i + j]!;
      const f = (2 * dot) / vv;
      for (let i = 0; i < v.length; i++) target[i + j]! -= f * v[i]!;
    };
    for (let c = j; c < k; c++) reflect(a[c]!);
    reflect(qty);
  }
  const scale = Math.max(...Array.from(diag, Math.abs));
  for (let j = 0; j < k; j++) {
    if (Math.abs(a[j]![j]!) <= 1e-10 * scale) {
      throw new StatsError(
        'SINGULAR',
        `${names[j]} is a linear combination of the other regressors (perfect collinearity)`,
        { regressor: names[j] },
      );
    }
  }
  // R is a[c][r] for r <= c. Solve R b = (Q'y)[0..k).
  const r = (row: number, col: number) => a[col]![row]!;
  const beta = new Float64Array(k);
  for (let i = k - 1; i >= 0; i--) {
    let s = qty[i]!;
    for (let j = i + 1; j < k; j++) s -= r(i, j) * beta[j]!;
    beta[i] = s / r(i, i);
  }
  let rss = 0;
  for (let i = k; i < n; i++) rss += qty[i]! * qty[i]!;
  // (R'R)^-1 = R^-1 R^-T; R^-1 is upper triangular.
  const inv = Array.from({ length: k }, () => new Float64Array(k));
  for (let col = 0; col < k; col++) {
    inv[col]![col] = 1 / r(col, col);
    for (let row = col - 1; row >= 0; row--) {
      let s = 0;
      for (let m = row + 1; m <= col; m++) s += r(row, m) * inv[m]![col]!;
      inv[row]![col] = -s / r(row, row);
    }
  }
  const df = n - k;
  const sigma2 = rss / df;
  const coefficients = names.map((name, j) => {
    let v = 0;
    for (let m = j; m < k; m++) v += inv[j]![m]! ** 2;
    const standardError = Math.sqrt(sigma2 * v);
    const tStatistic = beta[j]! / standardError;
    return { name, estimate: beta[j]!, standardError, tStatistic, pValue: tTwoSidedPValue(tStatistic, df) };
  });
  // R² against the mean with an intercept, against zero without one (the usual convention).
  let yMean = 0;
  if (intercept) {
    for (let i = 0; i < n; i++) yMean += y[i]!;
    yMean /= n;
  }
  let tss = 0;
  for (let i = 0; i < n; i++) tss += (y[i]! - yMean) ** 2;
  const rSquared = tss === 0 ? 1 : 1 - rss / tss;
  const slopes = k - (intercept ? 1 : 0);
  const fStatistic = intercept && slopes > 0 && rss > 0 ? (tss - rss) / slopes / sigma2 : null;
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

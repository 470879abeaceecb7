/**
 * Least squares by Householder QR. The normal equations (X'X) b = X'y square the condition number
 * of X, so a regression on two strongly correlated macro series (2y and 10y yields, say) would
 * lose twice as many digits as the data justify; orthogonal reflections lose only as many as the
 * problem itself.
 */

/** The triangular factor and the rotated response of one decomposition X = QR. */
export interface QrSolution {
  /** Coefficients b minimising |y - Xb|. */
  readonly beta: Float64Array;
  /** Diagonal of (X'X)^-1 = (R'R)^-1, the variance factors of the coefficients. */
  readonly varianceFactors: Float64Array;
  /** Q'y (in y's units): its first k entries carry the fit, the remaining n - k the residual. */
  readonly qty: Float64Array;
}

/** Column j lies (almost) in the span of columns 0..j-1. */
export interface RankDeficiency {
  readonly column: number;
  /** |R_jj| / |x_j|: the sine of the angle between column j and the span of the earlier ones. */
  readonly relativeResidual: number;
}

/**
 * A column whose part orthogonal to the earlier columns is below this fraction of its norm is
 * treated as collinear. 1e-7 (the default of R's lm, which uses the same column-relative test):
 * beyond it the coefficient errors, which grow like the square of the condition number times the
 * machine epsilon when residuals are large, are no longer small.
 */
export const COLLINEARITY_TOLERANCE = 1e-7;

/**
 * Solves min |y - Xb| for X given as n x k columns (n > k). Returns the rank deficiency instead of
 * a solution when a column is collinear with those before it, so the caller can name it.
 */
export function solveLeastSquares(
  columns: readonly Float64Array[],
  y: Float64Array,
): QrSolution | RankDeficiency {
  const k = columns.length;
  // Work on copies scaled to unit norm (the reflections overwrite them with R on and above the
  // diagonal): the solution only changes by the scales, the intermediates stay of order 1 whether
  // a series is in dollars (1e12) or in fractions of a percent (1e-6), and the collinearity test
  // below compares like with like.
  const scales = columns.map((c) => norm(c, 0));
  const zero = scales.indexOf(0);
  if (zero >= 0) return { column: zero, relativeResidual: 0 };
  const a = columns.map((c, j) => c.map((v) => v / scales[j]!));
  const yScale = norm(y, 0) || 1;
  const qty = y.map((v) => v / yScale);
  const diagonal = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    const col = a[j]!;
    // The column has unit norm, so the norm of its part below the diagonal (after the earlier
    // reflections) is the sine of its angle to the span of the earlier columns.
    const tailNorm = norm(col, j);
    if (tailNorm <= COLLINEARITY_TOLERANCE) return { column: j, relativeResidual: tailNorm };
    // Reflect the tail onto -sign(x_jj)·|tail|·e_j: choosing the sign opposite to x_jj avoids the
    // cancellation in v_0 = x_jj - alpha.
    const alpha = col[j]! > 0 ? -tailNorm : tailNorm;
    const v = col.slice(j);
    v[0]! -= alpha;
    const vv = 2 * tailNorm * (tailNorm + Math.abs(col[j]!));
    diagonal[j] = alpha;
    for (let c = j + 1; c < k; c++) reflect(a[c]!, v, vv, j);
    reflect(qty, v, vv, j);
  }
  // R(row, col) = a[col][row] for row < col; its diagonal was kept apart above.
  const r = (row: number, col: number) => (row === col ? diagonal[row]! : a[col]![row]!);
  const scaledBeta = new Float64Array(k);
  for (let i = k - 1; i >= 0; i--) {
    let s = qty[i]!;
    for (let j = i + 1; j < k; j++) s -= r(i, j) * scaledBeta[j]!;
    scaledBeta[i] = s / r(i, i);
  }
  const beta = scaledBeta.map((b, j) => (b * yScale) / scales[j]!);
  // (R'R)^-1 = R^-1 R^-T, so its diagonal is the row sums of squares of R^-1 (upper triangular),
  // built column by column by back substitution.
  const rInverse = Array.from({ length: k }, () => new Float64Array(k));
  for (let col = 0; col < k; col++) {
    rInverse[col]![col] = 1 / r(col, col);
    for (let row = col - 1; row >= 0; row--) {
      let s = 0;
      for (let m = row + 1; m <= col; m++) s += r(row, m) * rInverse[m]![col]!;
      rInverse[row]![col] = -s / r(row, row);
    }
  }
  const varianceFactors = new Float64Array(k);
  for (let j = 0; j < k; j++) {
    let s = 0;
    for (let m = j; m < k; m++) s += rInverse[j]![m]! ** 2;
    varianceFactors[j] = s / scales[j]! ** 2;
  }
  return { beta, varianceFactors, qty: qty.map((v) => v * yScale) };
}

export function isRankDeficient(result: QrSolution | RankDeficiency): result is RankDeficiency {
  return 'column' in result;
}

/** target[from..] -= (2 v·target[from..] / v·v) v: one Householder reflection. */
function reflect(target: Float64Array, v: Float64Array, vv: number, from: number): void {
  let dot = 0;
  for (let i = 0; i < v.length; i++) dot += v[i]! * target[i + from]!;
  const f = (2 * dot) / vv;
  for (let i = 0; i < v.length; i++) target[i + from]! -= f * v[i]!;
}

/** Euclidean norm of x[from..], scaled by the largest entry so squares cannot overflow. */
function norm(x: Float64Array, from: number): number {
  let scale = 0;
  for (let i = from; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]!));
  if (scale === 0 || !Number.isFinite(scale)) return scale;
  let s = 0;
  for (let i = from; i < x.length; i++) s += (x[i]! / scale) ** 2;
  return scale * Math.sqrt(s);
}

/** Sum of squares of x[from..to). */
export function sumOfSquares(x: Float64Array, from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += x[i]! * x[i]!;
  return s;
}

/** Return and risk statistics on price series, with their conventions stated. */

/** ln(p[i] / p[i-1]); length n - 1. */
export function logReturns(prices: ArrayLike<number>): Float64Array {
  const out = new Float64Array(Math.max(0, prices.length - 1));
  for (let i = 1; i < prices.length; i++) out[i - 1] = Math.log(prices[i]! / prices[i - 1]!);
  return out;
}

export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}

/** Sample standard deviation (n - 1 denominator). */
export function sampleStdDev(values: ArrayLike<number>): number {
  if (values.length < 2) return Number.NaN;
  const m = mean(values);
  let sq = 0;
  for (let i = 0; i < values.length; i++) sq += (values[i]! - m) ** 2;
  return Math.sqrt(sq / (values.length - 1));
}

/**
 * Annualised volatility: sample standard deviation of log returns times sqrt(periods per year)
 * (252 trading days for listed instruments, 365 for crypto, which trades every day).
 */
export function annualizedVolatility(prices: ArrayLike<number>, periodsPerYear: number): number {
  return sampleStdDev(logReturns(prices)) * Math.sqrt(periodsPerYear);
}

/** Pearson correlation of two equally long series. */
export function pearson(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new RangeError(`series lengths differ: ${a.length} vs ${b.length}`);
  if (a.length < 2) return Number.NaN;
  const ma = mean(a);
  const mb = mean(b);
  let cov = 0;
  let va = 0;
  let vb = 0;
  for (let i = 0; i < a.length; i++) {
    const da = a[i]! - ma;
    const db = b[i]! - mb;
    cov += da * db;
    va += da * da;
    vb += db * db;
  }
  return va === 0 || vb === 0 ? Number.NaN : cov / Math.sqrt(va * vb);
}

/** Beta of asset returns against market returns: cov(a, m) / var(m) (same n - 1 convention). */
export function beta(assetReturns: ArrayLike<number>, marketReturns: ArrayLike<number>): number {
  if (assetReturns.length !== marketReturns.length) throw new RangeError('series lengths differ');
  const ma = mean(assetReturns);
  const mm = mean(marketReturns);
  let cov = 0;
  let vm = 0;
  for (let i = 0; i < assetReturns.length; i++) {
    cov += (assetReturns[i]! - ma) * (marketReturns[i]! - mm);
    vm += (marketReturns[i]! - mm) ** 2;
  }
  return vm === 0 ? Number.NaN : cov / vm;
}

/** Largest peak-to-trough fall, as a positive fraction (0.25 = -25 %). */
export function maxDrawdown(prices: ArrayLike<number>): number {
  let peak = Number.NEGATIVE_INFINITY;
  let worst = 0;
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i]!;
    if (p > peak) peak = p;
    else worst = Math.max(worst, (peak - p) / peak);
  }
  return worst;
}

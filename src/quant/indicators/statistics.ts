/** Return and risk statistics on price series, with their conventions stated. */

/** ln(p[i] / p[i-1]); length n - 1. Prices must be positive. */
export function logReturns(prices: ArrayLike<number>): Float64Array {
  const out = new Float64Array(Math.max(0, prices.length - 1));
  for (let i = 1; i < prices.length; i++) out[i - 1] = Math.log(prices[i]! / prices[i - 1]!);
  return out;
}

/** Arithmetic mean; NaN for an empty series. */
export function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s / values.length;
}

/**
 * Sample standard deviation (n - 1 denominator), by the corrected two-pass algorithm: the sum of
 * the deviations, zero in exact arithmetic, removes the first-order error of the computed mean.
 * NaN with fewer than two values.
 */
export function sampleStdDev(values: ArrayLike<number>): number {
  const n = values.length;
  if (n < 2) return Number.NaN;
  const m = mean(values);
  let sq = 0;
  let dev = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i]! - m;
    sq += d * d;
    dev += d;
  }
  return Math.sqrt(Math.max(0, sq - (dev * dev) / n) / (n - 1));
}

/**
 * Annualised volatility: sample standard deviation of log returns times sqrt(periods per year)
 * (by trading calendar: see quant/periods.ts).
 */
export function annualizedVolatility(prices: ArrayLike<number>, periodsPerYear: number): number {
  return sampleStdDev(logReturns(prices)) * Math.sqrt(periodsPerYear);
}

/**
 * Pearson correlation of two equally long series (two-pass: deviations from the means, not raw
 * sums of products). NaN with fewer than two pairs or when either series is constant.
 */
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
  if (va === 0 || vb === 0) return Number.NaN;
  // Rounding can carry a perfect correlation a few ulps past ±1.
  return Math.min(1, Math.max(-1, cov / Math.sqrt(va * vb)));
}

/**
 * Beta of asset returns against market returns: cov(a, m) / var(m). The n - 1 denominators of both
 * cancel, so the ratio of the sums is taken directly. NaN when the market does not vary.
 */
export function beta(assetReturns: ArrayLike<number>, marketReturns: ArrayLike<number>): number {
  if (assetReturns.length !== marketReturns.length)
    throw new RangeError(`series lengths differ: ${assetReturns.length} vs ${marketReturns.length}`);
  const ma = mean(assetReturns);
  const mm = mean(marketReturns);
  let cov = 0;
  let vm = 0;
  for (let i = 0; i < assetReturns.length; i++) {
    const dm = marketReturns[i]! - mm;
    cov += (assetReturns[i]! - ma) * dm;
    vm += dm * dm;
  }
  return vm === 0 ? Number.NaN : cov / vm;
}

/**
 * Drawdown at every point: the fall from the highest price so far (the current one included), as a
 * positive fraction (0.25 = 25 % below the running peak; 0 at a new high). Same length as the
 * input, no warm-up. Prices must be positive.
 */
export function drawdownSeries(prices: ArrayLike<number>): Float64Array {
  const out = new Float64Array(prices.length);
  let peak = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < prices.length; i++) {
    const p = prices[i]!;
    if (p > peak) peak = p;
    out[i] = (peak - p) / peak;
  }
  return out;
}

/**
 * Largest peak-to-trough fall, as a positive fraction (0.25 = -25 %): the maximum of
 * drawdownSeries, computed without materialising it. 0 for an empty or never-falling series.
 */
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

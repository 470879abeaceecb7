import { fUpperPValue } from './distributions.ts';
import { StatsError } from './errors.ts';
import { ols } from './ols.ts';

export interface GrangerResult {
  readonly lags: number;
  readonly fStatistic: number;
  readonly pValue: number;
  readonly dfNumerator: number;
  readonly dfDenominator: number;
  /** Observations used after dropping the first `lags`. */
  readonly n: number;
  readonly rssRestricted: number;
  readonly rssUnrestricted: number;
  /** At the 5 % level. */
  readonly conclusion: 'causes' | 'no evidence';
}

/**
 * Granger causality: do past values of `cause` improve the prediction of `effect` beyond its own
 * past? Restricted: effect_t ~ 1 + effect_{t-1..t-p}; unrestricted adds cause_{t-1..t-p};
 * F = ((RSS_r - RSS_u) / p) / (RSS_u / (n - 2p - 1)). Inputs should be stationary (returns or
 * changes, not levels).
 */
export function grangerCausality(
  cause: ArrayLike<number>,
  effect: ArrayLike<number>,
  lags: number,
): GrangerResult {
  if (!Number.isInteger(lags) || lags < 1)
    throw new StatsError('INVALID_INPUT', `lags must be a positive whole number, got ${lags}`);
  if (cause.length !== effect.length) {
    throw new StatsError('INVALID_INPUT', `series lengths differ: ${cause.length} vs ${effect.length}`);
  }
  const n = effect.length - lags;
  const dfDenominator = n - 2 * lags - 1;
  if (dfDenominator < 5) {
    throw new StatsError(
      'INSUFFICIENT_DATA',
      `a Granger test with ${lags} lags needs at least ${3 * lags + 6} observations, got ${effect.length}`,
      {
        lags,
        observations: effect.length,
      },
    );
  }
  const y = Float64Array.from({ length: n }, (_, t) => effect[t + lags]!);
  const lagged = (series: ArrayLike<number>, lag: number) =>
    Float64Array.from({ length: n }, (_, t) => series[t + lags - lag]!);
  const own = Array.from({ length: lags }, (_, i) => lagged(effect, i + 1));
  const other = Array.from({ length: lags }, (_, i) => lagged(cause, i + 1));
  const restricted = ols(y, own);
  const unrestricted = ols(y, [...own, ...other]);
  const fStatistic = (restricted.rss - unrestricted.rss) / lags / (unrestricted.rss / dfDenominator);
  const pValue = fUpperPValue(fStatistic, lags, dfDenominator);
  return {
    lags,
    fStatistic,
    pValue,
    dfNumerator: lags,
    dfDenominator,
    n,
    rssRestricted: restricted.rss,
    rssUnrestricted: unrestricted.rss,
    conclusion: pValue < 0.05 ? 'causes' : 'no evidence',
  };
}

/** Picks the lag count (1..maxLag) minimising the AIC of the unrestricted model, then tests it. */
export function grangerBestLag(
  cause: ArrayLike<number>,
  effect: ArrayLike<number>,
  maxLag: number,
): GrangerResult & { readonly aic: number } {
  let best: (GrangerResult & { aic: number }) | undefined;
  for (let p = 1; p <= maxLag; p++) {
    if (effect.length - p - 2 * p - 1 < 5) break;
    const result = grangerCausality(cause, effect, p);
    // Compare on the same sample size: the AIC per observation of the unrestricted model.
    const aic = Math.log(result.rssUnrestricted / result.n) + (2 * (2 * p + 1)) / result.n;
    if (!best || aic < best.aic) best = { ...result, aic };
  }
  if (!best)
    throw new StatsError('INSUFFICIENT_DATA', `too few observations (${effect.length}) for a Granger test`);
  return best;
}

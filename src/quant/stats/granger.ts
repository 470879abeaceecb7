/**
 * Granger causality: do past values of one series improve the prediction of another beyond that
 * series' own past? "Causes" here means predictive precedence, not economic causation. Both series
 * should be stationary (returns or changes, not price or index levels), or the F test rejects far
 * too often.
 */
import { fUpperPValue } from './distributions.ts';
import { StatsError } from './errors.ts';
import { ols } from './ols.ts';

export interface GrangerResult {
  readonly lags: number;
  readonly fStatistic: number;
  readonly pValue: number;
  /** = lags: the number of restrictions tested. */
  readonly dfNumerator: number;
  /** n - 2·lags - 1: the residual degrees of freedom of the unrestricted model. */
  readonly dfDenominator: number;
  /** Observations in both regressions: the series length minus `lags`. */
  readonly n: number;
  readonly rssRestricted: number;
  readonly rssUnrestricted: number;
  /** At the 5 % level (GRANGER_ALPHA). */
  readonly conclusion: 'causes' | 'no evidence';
}

export interface GrangerLagSelection extends GrangerResult {
  /** AIC of the unrestricted model for every lag count tried, all on one common sample. */
  readonly aicByLag: readonly { readonly lags: number; readonly aic: number }[];
}

/** Labels for the lagged regressors in results and error messages. */
export interface GrangerNames {
  readonly cause?: string;
  readonly effect?: string;
}

export const GRANGER_ALPHA = 0.05;

/**
 * Residual degrees of freedom the unrestricted model must keep. The F test is only asymptotically
 * valid with lagged dependent variables; ten spare degrees of freedom keep it from being read off a
 * handful of points.
 */
export const GRANGER_MIN_RESIDUAL_DF = 10;

/**
 * Tests whether lags 1..p of `cause` help predict `effect`:
 * restricted   effect_t = c + Σ a_i effect_{t-i} + e_t
 * unrestricted effect_t = c + Σ a_i effect_{t-i} + Σ b_i cause_{t-i} + e_t,   i = 1..p
 * F = ((RSS_r - RSS_u) / p) / (RSS_u / (n - 2p - 1)), upper tail of F(p, n - 2p - 1), where n is
 * the series length minus p (the first p points only serve as lags).
 */
export function grangerCausality(
  cause: ArrayLike<number>,
  effect: ArrayLike<number>,
  lags: number,
  names: GrangerNames = {},
): GrangerResult {
  checkInputs(cause, effect, lags, 'lags');
  const total = effect.length;
  const n = total - lags;
  const dfDenominator = n - 2 * lags - 1;
  if (dfDenominator < GRANGER_MIN_RESIDUAL_DF) {
    throw new StatsError(
      'INSUFFICIENT_DATA',
      `a Granger test with ${lags} lag${lags === 1 ? '' : 's'} needs at least ` +
        `${minimumLength(lags)} observations, got ${total}`,
      { lags, observations: total, required: minimumLength(lags) },
    );
  }
  const model = laggedModel(cause, effect, lags, lags, names);
  const restricted = ols(model.y, model.own, { names: model.ownNames });
  const unrestricted = ols(model.y, [...model.own, ...model.other], {
    names: [...model.ownNames, ...model.otherNames],
  });
  // Lagged regressors nest, so RSS_r >= RSS_u in exact arithmetic; rounding must not make F < 0.
  const improvement = Math.max(0, restricted.rss - unrestricted.rss);
  const fStatistic = improvement / lags / (unrestricted.rss / dfDenominator);
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
    conclusion: pValue < GRANGER_ALPHA ? 'causes' : 'no evidence',
  };
}

/**
 * Chooses the lag count in 1..maxLag minimising the AIC of the unrestricted model, then runs the
 * test with it. Every candidate is fitted on the same observations (those after the largest lag
 * tried): AICs of models fitted to different samples are not comparable. maxLag is lowered to what
 * the data can support; too short a series for even one lag throws INSUFFICIENT_DATA.
 */
export function grangerBestLag(
  cause: ArrayLike<number>,
  effect: ArrayLike<number>,
  maxLag: number,
  names: GrangerNames = {},
): GrangerLagSelection {
  checkInputs(cause, effect, maxLag, 'maxLag');
  const total = effect.length;
  // Largest P with (total - P) - (2P + 1) >= GRANGER_MIN_RESIDUAL_DF.
  const feasible = Math.min(maxLag, Math.floor((total - 1 - GRANGER_MIN_RESIDUAL_DF) / 3));
  if (feasible < 1) {
    throw new StatsError(
      'INSUFFICIENT_DATA',
      `a Granger test needs at least ${minimumLength(1)} observations, got ${total}`,
      { observations: total, required: minimumLength(1) },
    );
  }
  const aicByLag: { lags: number; aic: number }[] = [];
  for (let p = 1; p <= feasible; p++) {
    const model = laggedModel(cause, effect, p, feasible, names);
    const fit = ols(model.y, [...model.own, ...model.other], {
      names: [...model.ownNames, ...model.otherNames],
    });
    // Gaussian AIC up to a constant shared by all candidates: n ln(RSS / n) + 2k.
    aicByLag.push({ lags: p, aic: fit.n * Math.log(fit.rss / fit.n) + 2 * fit.k });
  }
  const best = aicByLag.reduce((a, b) => (b.aic < a.aic ? b : a));
  return { ...grangerCausality(cause, effect, best.lags, names), aicByLag };
}

/** Shortest series a test with `lags` lags accepts. */
function minimumLength(lags: number): number {
  return 3 * lags + 1 + GRANGER_MIN_RESIDUAL_DF;
}

function checkInputs(cause: ArrayLike<number>, effect: ArrayLike<number>, lags: number, what: string): void {
  if (!Number.isInteger(lags) || lags < 1)
    throw new StatsError('INVALID_INPUT', `${what} must be a whole number of at least 1, got ${lags}`);
  if (cause.length !== effect.length) {
    throw new StatsError(
      'INVALID_INPUT',
      `cause and effect must be aligned, but have ${cause.length} and ${effect.length} values`,
    );
  }
  // Checked here, on the caller's indices, rather than by ols on the shifted lag columns.
  for (const [name, series] of [
    ['cause', cause],
    ['effect', effect],
  ] as const) {
    for (let i = 0; i < series.length; i++) {
      if (!Number.isFinite(series[i]!))
        throw new StatsError('INVALID_INPUT', `${name} has a non-finite value (${series[i]}) at index ${i}`, {
          series: name,
          index: i,
        });
    }
  }
}

/**
 * Response effect_t for t = start..end-1 and the lagged columns series_{t-1..t-lags}. `start` may
 * exceed `lags` so that models with fewer lags share a sample with larger ones.
 */
function laggedModel(
  cause: ArrayLike<number>,
  effect: ArrayLike<number>,
  lags: number,
  start: number,
  names: GrangerNames,
) {
  const n = effect.length - start;
  const column = (series: ArrayLike<number>, lag: number) =>
    Float64Array.from({ length: n }, (_, t) => series[start + t - lag]!);
  const lagNumbers = Array.from({ length: lags }, (_, i) => i + 1);
  const effectName = names.effect ?? 'effect';
  const causeName = names.cause ?? 'cause';
  return {
    y: Float64Array.from({ length: n }, (_, t) => effect[start + t]!),
    own: lagNumbers.map((lag) => column(effect, lag)),
    other: lagNumbers.map((lag) => column(cause, lag)),
    ownNames: lagNumbers.map((lag) => `${effectName}(t-${lag})`),
    otherNames: lagNumbers.map((lag) => `${causeName}(t-${lag})`),
  };
}

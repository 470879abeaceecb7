/**
 * Econometrics (used by the FK-DSL MACRO statement): OLS, Granger causality, correlation, impact sizes,
 * t and F distributions, and alignment of mixed-frequency series. Pure functions; every refusal is
 * a StatsError with a code saying why.
 */
export {
  type AlignedSeries,
  alignOnDates,
  type ChangeKind,
  changes,
  medianSpacingDays,
  type TimedSeries,
} from './align.ts';
export { correlationMatrix, correlationPValue, type Impact, impacts, oneSdImpact } from './correlation.ts';
export {
  fCdf,
  fUpperPValue,
  logBeta,
  logGamma,
  regularizedIncompleteBeta,
  studentTCdf,
  tTwoSidedPValue,
} from './distributions.ts';
export { StatsError, type StatsErrorCode } from './errors.ts';
export {
  GRANGER_ALPHA,
  GRANGER_MIN_RESIDUAL_DF,
  type GrangerLagSelection,
  type GrangerNames,
  type GrangerResult,
  grangerBestLag,
  grangerCausality,
} from './granger.ts';
export { type Coefficient, type OlsOptions, type OlsResult, ols } from './ols.ts';
export { COLLINEARITY_TOLERANCE } from './qr.ts';

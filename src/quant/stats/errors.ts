/**
 * Why a statistical computation cannot be done on the data given:
 * - INSUFFICIENT_DATA: too few observations for the number of parameters or lags;
 * - SINGULAR: a regressor is (numerically) a linear combination of the others, so its coefficient
 *   is not identified;
 * - INVALID_INPUT: lengths differ, values are not finite, a parameter is out of range;
 * - NO_CONVERGENCE: an iterative approximation did not reach its tolerance (a value we cannot
 *   vouch for is not returned).
 */
export type StatsErrorCode = 'INSUFFICIENT_DATA' | 'SINGULAR' | 'INVALID_INPUT' | 'NO_CONVERGENCE';

/**
 * A plain Error with a code saying why: quant is a leaf and knows no surface. Whoever exposes a
 * computation to clients (the FK-DSL) turns it into its own domain error, keeping code and details.
 */
export class StatsError extends Error {
  constructor(
    readonly code: StatsErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = 'StatsError';
  }
}

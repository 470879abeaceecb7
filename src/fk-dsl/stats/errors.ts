import { AppError } from '../../platform/errors.ts';

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
 * A domain error (an AppError, so every surface maps it with its code and details). Status 400 like
 * FkDslQueryError: the query asks for something the data in its window cannot support.
 */
export class StatsError extends AppError {
  declare readonly code: StatsErrorCode;

  constructor(code: StatsErrorCode, message: string, details?: Record<string, unknown>) {
    super(code, message, 400, details);
  }
}

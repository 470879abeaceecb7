import { AppError } from '../../platform/errors.ts';

/** A statistical computation that cannot be done on the data given (too short, collinear...). */
export class StatsError extends AppError {
  constructor(
    readonly reason: 'INSUFFICIENT_DATA' | 'SINGULAR' | 'INVALID_INPUT',
    message: string,
    details?: Record<string, unknown>,
  ) {
    super('FKDSL_STATS_ERROR', message, 422, { reason, ...details });
  }
}

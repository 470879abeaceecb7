import { describe, expect, it } from 'vitest';
import { AppError } from '../platform/errors.ts';
import { StatsError, type StatsErrorCode } from '../quant/stats/errors.ts';
import { FKDSL_ERRORS, FkDslStatsError, toDomainError } from './errors.ts';

describe('statistics refusals as FK-DSL errors', () => {
  it('keep the code, message and details of the StatsError', () => {
    const error = toDomainError(new StatsError('SINGULAR', 'CPI is zero throughout', { regressor: 'CPI' }));
    expect(error).toBeInstanceOf(FkDslStatsError);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      code: 'SINGULAR',
      message: 'CPI is zero throughout',
      details: { regressor: 'CPI' },
    });
  });

  it('are client errors (400) for every code', () => {
    const codes: StatsErrorCode[] = ['INSUFFICIENT_DATA', 'SINGULAR', 'INVALID_INPUT', 'NO_CONVERGENCE'];
    for (const code of codes) expect(FKDSL_ERRORS[code].status).toBe(400);
  });

  it('leave every other error as it is', () => {
    const other = new RangeError('bad period');
    expect(toDomainError(other)).toBe(other);
  });
});

import { AppError, type ErrorCodeTable } from '../platform/errors.ts';
import { StatsError, type StatsErrorCode } from '../quant/stats/errors.ts';

/** The FK-DSL error codes and what they mean on every surface. */
export const FKDSL_ERRORS = {
  FKDSL_SYNTAX_ERROR: {
    status: 400,
    description: 'The query does not parse; `details` has line, column, expected, found and a caret snippet.',
  },
  FKDSL_QUERY_ERROR: {
    status: 400,
    description:
      'A well-formed query asks for something impossible (a limit, an argument out of range, an unknown universe, a window, an estimated cost over FKDSL_MAX_COST).',
  },
  FKDSL_DEADLINE_EXCEEDED: {
    status: 504,
    description:
      'Evaluation ran past FKDSL_DEADLINE_MS; statements not finished by then report this code. Narrow the query or retry later.',
  },
  // MACRO statistics the data in the window cannot support (quant's StatsError codes, as before).
  INSUFFICIENT_DATA: {
    status: 400,
    description: 'Too few observations for the number of parameters or lags (MACRO); widen the window.',
  },
  SINGULAR: {
    status: 400,
    description: 'A regressor is (numerically) a combination of the others, so its coefficient is undefined.',
  },
  INVALID_INPUT: {
    status: 400,
    description:
      'A statistic got unusable input (lengths differ, non-finite values, a parameter out of range).',
  },
  NO_CONVERGENCE: {
    status: 400,
    description: 'An iterative approximation did not reach its tolerance; no value is returned.',
  },
  TOO_MANY_TASKS: {
    status: 429,
    description:
      'The client already has FKDSL_MAX_PENDING_TASKS_PER_CLIENT background tasks queued or running (`details.limit`); submit again when one finishes.',
  },
  RESULT_TOO_LARGE: {
    status: 422,
    description:
      "A background task's result was over FKDSL_MAX_RESULT_BYTES, so the task failed rather than store part of it; narrow the query.",
  },
  INSTANCE_LOST: {
    status: 503,
    description:
      'The instance running a background task stopped; the task was queued again, or failed after FKDSL_TASK_MAX_ATTEMPTS starts.',
  },
} as const satisfies ErrorCodeTable;

/** A query that cannot be parsed: where, what was expected, what was found, and a caret snippet. */
export class FkDslSyntaxError extends AppError {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly expected: string,
    readonly found: string,
    source: string,
  ) {
    const snippet = caretSnippet(source, line, column);
    super(
      'FKDSL_SYNTAX_ERROR',
      `line ${line}, column ${column}: expected ${expected}, found ${found}\n${snippet}`,
      {
        line,
        column,
        expected,
        found,
        snippet,
      },
    );
  }
}

/** A well-formed query that asks for something impossible (limits, unknown universe, bad window). */
export class FkDslQueryError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('FKDSL_QUERY_ERROR', message, details);
  }
}

/** Evaluation ran out of time: the statement (and every one after it) was not finished. */
export class FkDslDeadlineError extends AppError {
  constructor(deadlineMs: number) {
    super('FKDSL_DEADLINE_EXCEEDED', `not finished within FKDSL_DEADLINE_MS (${deadlineMs} ms)`, {
      limit: 'FKDSL_DEADLINE_MS',
      deadlineMs,
    });
  }
}

/**
 * A statistical computation the query asked for cannot be done on its data. Carries the code and
 * details of quant's StatsError unchanged, so clients see the same code as before quant was a leaf.
 */
export class FkDslStatsError extends AppError {
  declare readonly code: StatsErrorCode;

  constructor(error: StatsError) {
    super(error.code, error.message, error.details);
  }
}

/** Errors of the pure maths become FK-DSL domain errors; anything else passes unchanged. */
export function toDomainError(error: unknown): unknown {
  return error instanceof StatsError ? new FkDslStatsError(error) : error;
}

export function caretSnippet(source: string, line: number, column: number): string {
  const text = source.split(/\r?\n/)[line - 1] ?? '';
  return `  ${text}\n  ${' '.repeat(Math.max(0, column - 1))}^`;
}

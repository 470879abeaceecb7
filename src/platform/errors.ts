/**
 * Domain errors with stable codes. Each surface maps them once: GraphQL `extensions.code`, the REST
 * status table below, MCP `isError` tool results. Anything else is unexpected and is masked.
 */
export class AppError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input that names the offending field; 400 (422 is used by REST routes for body schema errors). */
export class ValidationError extends AppError {
  constructor(
    readonly field: string,
    problem: string,
    details?: Record<string, unknown>,
  ) {
    super('BAD_USER_INPUT', `${field}: ${problem}`, 400, { field, ...details });
  }
}

export class NotFoundError extends AppError {
  constructor(what: string, id: string) {
    super('NOT_FOUND', `${what} ${JSON.stringify(id)} was not found`, 404, { [what]: id });
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

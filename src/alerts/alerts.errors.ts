import { AppError } from '../platform/errors.ts';

export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

/** The body does not fit the schema (422 on REST, `details.issues` lists every problem). */
export class InvalidAlertError extends AppError {
  constructor(issues: readonly FieldIssue[]) {
    const first = issues[0];
    super(
      'INVALID_ARGUMENTS',
      first
        ? `invalid alert: ${first.field}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`
        : 'invalid alert',
      { issues, ...(first ? { field: first.field } : {}) },
    );
  }
}

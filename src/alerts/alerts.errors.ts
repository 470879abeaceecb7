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

/** The owner has as many alerts as ALERTS_MAX_PER_OWNER allows (429 on REST). */
export class TooManyAlertsError extends AppError {
  constructor(limit: number) {
    super(
      'TOO_MANY_ALERTS',
      `this owner has ${limit} alerts, the most it may have (ALERTS_MAX_PER_OWNER); delete one to create another`,
      { limit, setting: 'ALERTS_MAX_PER_OWNER' },
    );
  }
}

import { AppError } from '../platform/errors.ts';

export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

/** The body does not fit the schema (422 on REST, `details.issues` lists every problem). */
export class InvalidAlertError extends AppError {
  constructor(issues: readonly FieldIssue[], what: 'alert' | 'silence' = 'alert') {
    const first = issues[0];
    super(
      'INVALID_ARGUMENTS',
      first
        ? `invalid ${what}: ${first.field}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`
        : `invalid ${what}`,
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

/** The owner has MAX_SILENCES_PER_OWNER silences that have not ended (429 on REST). */
export class TooManySilencesError extends AppError {
  constructor(limit: number) {
    super(
      'TOO_MANY_SILENCES',
      `this owner has ${limit} silences that have not ended, the most it may have; expire or delete one to create another`,
      { limit },
    );
  }
}

/** The alert has no firing with this id (404 on REST). */
export class FiringNotFoundError extends AppError {
  constructor(firingId: string) {
    super('FIRING_NOT_FOUND', `the alert has no firing ${JSON.stringify(firingId)}`, { firing: firingId });
  }
}

/**
 * The firing cannot be acknowledged or resolved (409 on REST): it belongs to no episode (a
 * test-send, a silenced firing), or its episode has resolved (acknowledging only).
 */
export class EpisodeConflictError extends AppError {
  constructor(code: 'FIRING_HAS_NO_EPISODE' | 'EPISODE_RESOLVED', firingId: string) {
    super(
      code,
      code === 'FIRING_HAS_NO_EPISODE'
        ? `firing ${JSON.stringify(firingId)} belongs to no episode (a test-send or a silenced firing): there is nothing to acknowledge or resolve`
        : `the episode of firing ${JSON.stringify(firingId)} has resolved; the next firing of its condition opens a new one`,
      { firing: firingId },
    );
  }
}

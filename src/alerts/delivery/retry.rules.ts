/**
 * Where an attempt leaves its delivery: delivered, failed for good, or retrying after a backoff
 * that doubles from 5 s up to 15 minutes (with jitter), or after what the receiver's Retry-After
 * asked (capped at an hour); a retry past ALERT_DELIVERY_MAX_ATTEMPTS fails the delivery.
 */
import type { AttemptOutcome } from './delivery.model.ts';

export const BASE_BACKOFF_MS = 5_000;
export const MAX_BACKOFF_MS = 15 * 60_000;
export const MAX_RETRY_AFTER_MS = 60 * 60_000;
const MAX_ERROR_CHARS = 1_000;

/** Where an attempt leaves its delivery. */
export interface AttemptVerdict {
  readonly status: 'delivered' | 'retrying' | 'failed';
  /** When the next attempt is due; null unless retrying. */
  readonly retryAt: Date | null;
  /** The error to record (bounded), null when delivered. */
  readonly error: string | null;
}

/** Delay before attempt `attempt + 1` after `attempt` failed (1-based). */
export function backoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined && retryAfterMs > 0) return Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  const base = Math.min(BASE_BACKOFF_MS * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  // ±20 %: receivers that came back are not hit by every sender at the same instant.
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * The delivery's state after attempt `attempt` gave `outcome` at `now`: delivered; failed (for good,
 * or a retry past the last attempt); or retrying after the backoff.
 */
export function verdictOf(
  outcome: AttemptOutcome,
  attempt: number,
  { maxAttempts, now, random }: { maxAttempts: number; now: Date; random?: (() => number) | undefined },
): AttemptVerdict {
  if (outcome.status === 'delivered') return { status: 'delivered', retryAt: null, error: null };
  if (outcome.status === 'failed') return { status: 'failed', retryAt: null, error: truncate(outcome.error) };
  if (attempt >= maxAttempts) {
    return {
      status: 'failed',
      retryAt: null,
      error: truncate(`${outcome.error} (gave up after ${attempt} attempts)`),
    };
  }
  const wait = backoffMs(attempt, outcome.retryAfterMs, random);
  return { status: 'retrying', retryAt: new Date(now.getTime() + wait), error: truncate(outcome.error) };
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}

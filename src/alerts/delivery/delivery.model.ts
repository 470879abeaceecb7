/**
 * Deliveries as the alerts domain records them: one delivery per method per firing, retried as
 * attempts until it is delivered or fails for good; each attempt is kept.
 */
import type { Alert, DeliveryMethod } from '../alert.model.ts';
import type { AlertEvent } from '../alert-event.model.ts';

/** How one attempt ended: delivered, worth another attempt, or failed for good. */
export const ATTEMPT_STATUSES = ['delivered', 'retry', 'failed'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

/** How one attempt ended, as a channel reports it. */
export type AttemptOutcome =
  | { readonly status: 'delivered'; readonly responseCode: number | null; readonly latencyMs: number }
  | {
      readonly status: 'retry';
      readonly responseCode: number | null;
      readonly latencyMs: number;
      readonly error: string;
      /** How long the receiver asked us to wait. */
      readonly retryAfterMs?: number;
    }
  | {
      readonly status: 'failed';
      readonly responseCode: number | null;
      readonly latencyMs: number;
      readonly error: string;
    };

/** One attempt at one delivery, as the runner asks a deliverer for it. */
export interface AttemptRequest {
  readonly deliveryId: string;
  /** From 1. */
  readonly attempt: number;
  readonly method: DeliveryMethod;
  readonly alert: Alert;
  readonly event: AlertEvent;
  /** A test-send's sample (messages say the alert did not fire). */
  readonly test: boolean;
  /** Aborted when the instance stops: the attempt ends at once and is not recorded. */
  readonly signal?: AbortSignal;
}

/** Sends one attempt by one method (the channels in this folder); never throws for a failed delivery. */
export type Deliverer = (request: AttemptRequest) => Promise<AttemptOutcome>;

/** One attempt of the delivery record. */
export interface DeliveryAttempt {
  /** One per method per firing; the same on every retry (the webhook's X-Vigil-Delivery). */
  readonly deliveryId: string;
  /** From 1. */
  readonly attempt: number;
  readonly method: DeliveryMethod;
  readonly status: AttemptStatus;
  /** HTTP status or SMTP reply code; null when no answer came. */
  readonly responseCode: number | null;
  readonly latencyMs: number;
  /** Why it failed; null when delivered. */
  readonly error: string | null;
  readonly attemptedAt: Date;
}

/** The outcome of a test-send by one method (recorded as a delivery of one attempt). */
export interface TestSendResult {
  readonly method: DeliveryMethod;
  readonly deliveryId: string;
  readonly status: AttemptStatus;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

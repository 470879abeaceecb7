/**
 * Deliveries as the alerts domain records them: one delivery per target per firing (a chat id, an
 * email recipient, the webhook), retried as attempts until it is delivered or fails for good; each
 * attempt is kept. A target that accepted is never sent to again for that firing.
 */
import type { WatchdogName } from '../../watchdogs/watchdog-event.ts';
import type { Alert, DeliveryMethod } from '../alert.model.ts';
import type { AlertEvent, AlertEventType } from '../alert-event.model.ts';
import type { Notice } from '../episode.model.ts';

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
      /** Nothing was sent: no connection was free in time (says nothing of the destination). */
      readonly notSent?: true;
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
  /**
   * The chat id, recipient or webhook URL; null for a delivery stored before deliveries were per
   * target (it goes to every target of its method).
   */
  readonly target: string | null;
  readonly alert: Alert;
  readonly event: AlertEvent;
  /** A test-send's sample (messages say the alert did not fire). */
  readonly test: boolean;
  /** What the delivery says: the event, a group's events, a resolution or an acknowledgement. */
  readonly notice: Notice;
  /** Aborted when the instance stops: the attempt ends at once and is not recorded. */
  readonly signal?: AbortSignal;
}

/** Sends one attempt by one method (the channels in this folder); never throws for a failed delivery. */
export type Deliverer = (request: AttemptRequest) => Promise<AttemptOutcome>;

/** The event a delivery carries, as its record names it. */
export interface DeliveredEvent {
  readonly id: string;
  readonly type: AlertEventType;
  /** Null for the alerts' own triggers (thresholds, conditions). */
  readonly watchdog: WatchdogName | null;
}

/** One attempt of the delivery record. */
export interface DeliveryAttempt {
  /** One per target per firing; the same on every retry (the webhook's X-Vigil-Delivery). */
  readonly deliveryId: string;
  /** From 1. */
  readonly attempt: number;
  readonly method: DeliveryMethod;
  /** The chat id, recipient or webhook URL; null on deliveries stored before they were per target. */
  readonly target: string | null;
  /** The event delivered; null when its firing is gone. */
  readonly event: DeliveredEvent | null;
  readonly status: AttemptStatus;
  /** HTTP status or SMTP reply code; null when no answer came. */
  readonly responseCode: number | null;
  readonly latencyMs: number;
  /** Why it failed; null when delivered. */
  readonly error: string | null;
  readonly attemptedAt: Date;
}

/** The outcome of a test-send to one target (recorded as a delivery of one attempt). */
export interface TestSendResult {
  readonly method: DeliveryMethod;
  /** The chat id, recipient or webhook URL; null when the method has no configuration. */
  readonly target: string | null;
  readonly deliveryId: string;
  readonly status: AttemptStatus;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
}

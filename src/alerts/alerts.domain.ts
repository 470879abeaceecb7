/**
 * The alerts domain as the surfaces and the module see it: the store (AlertService), firing on
 * watchdog events, delivery attempts, and test-sends.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { AlertService } from './alert.service.ts';
import { alertDeliveries, alertDeliveryAttempts, alertFirings } from './alerts.sql.ts';
import type { ConditionEvaluator } from './conditions.ts';
import { deliverJob } from './delivery.jobs.ts';
import { recoverDeliveries } from './delivery.recovery.ts';
import type { AttemptOutcome, Deliverer, DeliveryRunner } from './delivery.runner.ts';
import type { AlertEvent, AlertFiring } from './firing.ts';
import type { ThresholdEvaluator } from './thresholds.ts';

export interface TestSendResult {
  readonly method: string;
  readonly delivery_id: string;
  readonly status: AttemptOutcome['status'];
  readonly response_code: number | null;
  readonly latency_ms: number;
  readonly error: string | null;
}

/** A watchdog event feed: the only thing alerts need of the watchdogs. */
export type EventSource = (listener: (event: AlertEvent) => void | Promise<void>) => () => void;

export interface AlertsDomainOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly store: AlertService;
  readonly firing: AlertFiring;
  readonly runner: DeliveryRunner;
  readonly deliver: Deliverer;
  /** The deliverer's kept HTTP connections, closed once the running jobs have ended. */
  readonly connections?: { close(): Promise<void> };
  readonly events: EventSource;
  readonly thresholds: ThresholdEvaluator;
  readonly conditions: ConditionEvaluator;
}

export class AlertsDomain {
  readonly #o: AlertsDomainOptions;
  #stop: (() => void) | undefined;

  constructor(options: AlertsDomainOptions) {
    this.#o = options;
  }

  get store(): AlertService {
    return this.#o.store;
  }

  /** Listens to watchdog events (every instance does; the firing table makes each fire once). */
  async start(): Promise<void> {
    await this.#o.jobs.ensureQueue(deliverJob);
    await this.recoverDeliveries();
    this.#stop ??= this.#o.events(async (event) => {
      await this.#o.firing.onWatchdogEvent(event);
    });
  }

  stop(): void {
    this.#stop?.();
    this.#stop = undefined;
    this.#o.runner.stop();
  }

  /** After the running jobs ended: the kept connections to receivers are closed. */
  async release(): Promise<void> {
    await this.#o.connections?.close();
  }

  /** One round of the scheduled triggers: price and volume thresholds, due custom conditions (the minute job). */
  async evaluateScheduled(): Promise<number> {
    const [thresholds, conditions] = await Promise.all([
      this.#o.thresholds.evaluate(),
      this.#o.conditions.evaluate(),
      this.recoverDeliveries(),
    ]);
    return thresholds + conditions;
  }

  /**
   * Re-sends the jobs of deliveries whose attempt was cut short (its worker died: the claim went
   * stale) or whose due retry was never taken; runs at start and with every minute job.
   */
  recoverDeliveries(): Promise<number> {
    return recoverDeliveries(this.#o.runner, this.#o);
  }

  runDelivery(deliveryId: string) {
    return this.#o.runner.run(deliveryId);
  }

  /**
   * Delivers a sample event through each of the alert's methods now, even when the alert is
   * disabled and whatever its cooldown, and answers with one result per method. The attempts are
   * recorded like any other (a firing with status `test`), and not retried.
   */
  async testSend(principal: Principal, id: string): Promise<TestSendResult[]> {
    const alert = await this.#o.store.row(principal, id);
    const now = this.#o.clock.now();
    const event: AlertEvent = {
      event_id: `test-${randomUUID()}`,
      type: 'price_anomaly',
      severity: 'high',
      description: `Test notification of alert "${alert.name}" from Vigil: no market event happened.`,
      asset: { symbol: 'TEST', asset_type: 'equity' },
      timestamp: now.toISOString(),
      watchdog: 'price_anomaly',
      data: { test: true },
      metadata: { test: true },
    };
    const firingId = randomUUID();
    await this.#o.database.db.insert(alertFirings).values({
      id: firingId,
      owner: alert.owner,
      alertId: alert.id,
      eventId: event.event_id,
      status: 'test',
      event: event as Record<string, unknown>,
      firedAt: now,
    });
    return Promise.all(
      alert.deliveryMethods.map(async (method) => {
        const deliveryId = randomUUID();
        const started = this.#o.clock.now();
        const outcome = await this.#o.deliver({ deliveryId, attempt: 1, method, alert, event, test: true });
        const error = 'error' in outcome ? outcome.error : null;
        const done = this.#o.clock.now();
        await this.#o.database.db.transaction(async (tx) => {
          await tx.insert(alertDeliveries).values({
            id: deliveryId,
            firingId,
            owner: alert.owner,
            alertId: alert.id,
            method,
            status: outcome.status === 'delivered' ? 'delivered' : 'failed',
            attempts: 1,
            lastError: error,
            createdAt: started,
            updatedAt: done,
          });
          await tx.insert(alertDeliveryAttempts).values({
            deliveryId,
            attempt: 1,
            owner: alert.owner,
            alertId: alert.id,
            method,
            status: outcome.status,
            responseCode: outcome.responseCode,
            latencyMs: Math.max(0, Math.round(outcome.latencyMs)),
            error,
            attemptedAt: started,
          });
        });
        return {
          method,
          delivery_id: deliveryId,
          status: outcome.status,
          response_code: outcome.responseCode,
          latency_ms: Math.round(outcome.latencyMs),
          error: 'error' in outcome ? outcome.error : null,
        };
      }),
    );
  }
}

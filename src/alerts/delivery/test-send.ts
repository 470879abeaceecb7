/**
 * Test-sends: a sample event delivered to each target of each of an alert's methods now, even when
 * the alert is disabled and whatever its cooldown. The attempts are recorded like any other (a
 * firing with status `test`, one delivery of one attempt per target), and not retried.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Alert } from '../alert.model.ts';
import type { AlertEvent } from '../alert-event.model.ts';
import { incidentKeyOf } from '../episode.model.ts';
import { insertTestFiring } from '../firing.repository.ts';
import type { Deliverer, TestSendResult } from './delivery.model.ts';
import { insertFinishedDelivery } from './delivery.repository.ts';
import { type DeliveryUnit, deliveryUnitsOf } from './targets.ts';

export interface TestSendOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly deliver: Deliverer;
}

/** The sample event: clearly a test, about no real instrument. */
export function sampleEvent(alert: Alert, now: Date): AlertEvent {
  return {
    id: `test-${randomUUID()}`,
    type: 'price_anomaly',
    severity: 'high',
    description: `Test notification of alert "${alert.name}" from Vigil: no market event happened.`,
    asset: { symbol: 'TEST', assetType: 'equity' },
    occurredAt: now,
    watchdog: 'price_anomaly',
    data: { test: true },
    sample: true,
  };
}

/** Delivers the sample to every target of each of the alert's methods at once; one result per target. */
export async function testSend(o: TestSendOptions, alert: Alert): Promise<TestSendResult[]> {
  const now = o.clock.now();
  const event = sampleEvent(alert, now);
  const firingId = randomUUID();
  await insertTestFiring(o.database.db, { id: firingId, alert, event, at: now });
  return Promise.all(deliveryUnitsOf(alert).map((unit) => sendOne(o, alert, event, firingId, unit)));
}

async function sendOne(
  o: TestSendOptions,
  alert: Alert,
  event: AlertEvent,
  firingId: string,
  { method, target }: DeliveryUnit,
): Promise<TestSendResult> {
  const deliveryId = randomUUID();
  const started = o.clock.now();
  const notice = { kind: 'event', incidentKey: incidentKeyOf(alert, event) } as const;
  const outcome = await o.deliver({
    deliveryId,
    attempt: 1,
    method,
    target,
    alert,
    event,
    test: true,
    notice,
  });
  const error = 'error' in outcome ? outcome.error : null;
  const ended = o.clock.now();
  await o.database.db.transaction((tx) =>
    insertFinishedDelivery(tx, {
      id: deliveryId,
      firingId,
      alert,
      method,
      target,
      outcome: outcome.status,
      responseCode: outcome.responseCode,
      latencyMs: outcome.latencyMs,
      error,
      startedAt: started,
      endedAt: ended,
    }),
  );
  return {
    method,
    target,
    deliveryId,
    status: outcome.status,
    responseCode: outcome.responseCode,
    latencyMs: Math.round(outcome.latencyMs),
    error,
  };
}

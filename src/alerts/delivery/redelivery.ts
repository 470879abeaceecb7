/**
 * Redelivery: a `failed` delivery put back on demand, one (by its id) or all of an alert's. It
 * keeps its id (the X-Vigil-Delivery header) and its earlier attempts; it goes back to `pending`
 * and through the same job, runner and gates as any delivery (delivery.runner.ts), numbering its
 * attempts on from the last one, with ALERT_DELIVERY_MAX_ATTEMPTS more of them. A delivery whose
 * target the alert no longer has (removed since) is not sent again: the answer says so. Test-sends
 * are not redelivered (a new test-send is the way to send one again).
 */

import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import type { Jobs } from '../../platform/jobs/jobs.ts';
import type { Alert, DeliveryMethod } from '../alert.model.ts';
import { deliverJob } from './delivery.jobs.ts';
import { deliveriesToRedeliver, requeueDeliveries, type StoredDelivery } from './redelivery.repository.ts';
import { targetsOf } from './targets.ts';

export interface RedeliveryOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
}

/** One delivery of a redelivery's answer. */
export interface RedeliveredDelivery {
  readonly deliveryId: string;
  readonly method: DeliveryMethod;
  readonly target: string | null;
  /** Attempts it made before this redelivery (its next attempt is this plus one). */
  readonly attempts: number;
  /** Why it was not put back; null when it was. */
  readonly skipped: string | null;
}

export interface Redelivery {
  readonly alertId: string;
  /** Put back (skipped null) and left as they were (skipped says why), oldest first. */
  readonly deliveries: readonly RedeliveredDelivery[];
}

/** Why a delivery of `alert` cannot be redelivered now; null when it can. */
function refusal(alert: Alert, d: StoredDelivery): string | null {
  if (d.test) return 'it is a test-send’s (send a new test instead)';
  if (d.status !== 'failed') return `its status is ${d.status}; only a failed delivery can be redelivered`;
  if (!alert.deliveryMethods.includes(d.method)) return `the alert no longer delivers by ${d.method}`;
  if (d.target !== null && !targetsOf(alert, d.method).includes(d.target))
    return `the alert no longer has this ${d.method} target`;
  return null;
}

/**
 * Puts back the failed delivery `deliveryId` of `alert` (refused, naming it, unless it is failed
 * and its target still the alert's), or every failed one; the requeue and the jobs are one
 * transaction. NOT_FOUND for a delivery id the alert does not have.
 */
export async function redeliver(
  o: RedeliveryOptions,
  alert: Alert,
  deliveryId: string | undefined,
): Promise<Redelivery> {
  const db = o.database.db;
  const found = await deliveriesToRedeliver(db, { owner: alert.owner, id: alert.id }, deliveryId);
  if (deliveryId !== undefined) {
    const [one] = found;
    if (!one) throw new NotFoundError('delivery', deliveryId);
    const why = refusal(alert, one);
    if (why !== null)
      throw new ValidationError(
        'delivery_id',
        `delivery ${JSON.stringify(one.id)} cannot be redelivered: ${why}`,
        {
          delivery_id: one.id,
          status: one.status,
        },
      );
  }
  const candidates = found.filter((d) => !d.test);
  const eligible = candidates.filter((d) => refusal(alert, d) === null).map((d) => d.id);
  const put = await db.transaction(async (tx) => {
    const ids = await requeueDeliveries(tx, eligible, o.clock.now());
    if (ids.length > 0)
      await o.jobs.sendMany(
        deliverJob,
        ids.map((id) => ({ deliveryId: id })),
        { tx },
      );
    return new Set(ids);
  });
  // Committed: this instance's workers take them now rather than at their next poll.
  if (put.size > 0) o.jobs.wake(deliverJob);
  return {
    alertId: alert.id,
    deliveries: candidates.map((d) => ({
      deliveryId: d.id,
      method: d.method,
      target: d.target,
      attempts: d.attempts,
      skipped: put.has(d.id)
        ? null
        : (refusal(alert, d) ?? 'it was redelivered meanwhile by another request'),
    })),
  };
}

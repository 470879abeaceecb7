/**
 * Redelivery's statements: the failed deliveries of an alert (or one delivery of it, whatever its
 * status, so a refusal can name it), and putting deliveries back in the queue. A delivery put back
 * keeps its id and its attempts; its `created_at` becomes the time it was put back, which starts
 * its new round of attempts (see `roundStartSql`) and its age as the queue and the 24-hour hold
 * measure it.
 */
import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/database.ts';
import type { AlertKey, DeliveryMethod } from '../alert.model.ts';
import { alertDeliveries, alertDeliveryAttempts, alertFirings, type DeliveryStatus } from '../alerts.sql.ts';

/** A delivery as redelivery sees it. */
export interface StoredDelivery {
  readonly id: string;
  readonly method: DeliveryMethod;
  readonly target: string | null;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  /** Its firing was a test-send's (test-sends are not retried). */
  readonly test: boolean;
}

/** One delivery of the alert (null when it has none of that id), or every failed one, oldest first. */
export async function deliveriesToRedeliver(
  db: Executor,
  alert: AlertKey,
  deliveryId: string | undefined,
): Promise<StoredDelivery[]> {
  const d = alertDeliveries;
  const rows = await db
    .select({
      id: d.id,
      method: d.method,
      target: d.target,
      status: d.status,
      attempts: d.attempts,
      firingStatus: alertFirings.status,
    })
    .from(d)
    .leftJoin(alertFirings, eq(alertFirings.id, d.firingId))
    .where(
      and(
        eq(d.owner, alert.owner),
        eq(d.alertId, alert.id),
        deliveryId === undefined ? eq(d.status, 'failed') : eq(d.id, deliveryId),
      ),
    )
    .orderBy(d.createdAt, d.id);
  return rows.map((r) => ({
    id: r.id,
    method: r.method,
    target: r.target,
    status: r.status,
    attempts: r.attempts,
    test: r.firingStatus === 'test',
  }));
}

/**
 * Puts failed deliveries back as `pending`, due now, their round of attempts starting now; only
 * those still `failed` (a concurrent redelivery took the others). Returns the ids put back.
 */
export async function requeueDeliveries(db: Executor, ids: readonly string[], now: Date): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .update(alertDeliveries)
    .set({ status: 'pending', createdAt: now, updatedAt: now, nextAttemptAt: null, claimedAt: null })
    .where(and(inArray(alertDeliveries.id, [...ids]), eq(alertDeliveries.status, 'failed')))
    .returning({ id: alertDeliveries.id });
  return rows.map((r) => r.id);
}

/**
 * The attempts a delivery made before its current round: the last attempt made before it was
 * (re)queued (0 for one never redelivered). `delivery` is the delivery's row in the statement.
 */
export function roundStartSql(id: SQL, createdAt: SQL): SQL<number> {
  return sql<number>`(select coalesce(max(${alertDeliveryAttempts.attempt}), 0)::int
    from ${alertDeliveryAttempts}
    where ${alertDeliveryAttempts.deliveryId} = ${id} and ${alertDeliveryAttempts.attemptedAt} < ${createdAt})`;
}

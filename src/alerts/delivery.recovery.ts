import { and, eq, isNull, lt, or } from 'drizzle-orm';
import { alertDeliveries } from './alerts.sql.ts';
import { deliverJob } from './delivery.jobs.ts';
import type { DeliveryRunner, DeliveryRunnerOptions } from './delivery.runner.ts';

/**
 * The sweep that resumes deliveries whose attempt or job was lost with its instance (run every
 * minute and at start): a claim older than an attempt can last, a due retry or a new delivery whose
 * job nobody took.
 */
/** Deliveries recovered per sweep at most (the rest wait for the next minute). */
const RECOVER_BATCH = 500;

export async function recoverDeliveries(
  runner: DeliveryRunner,
  o: Pick<DeliveryRunnerOptions, 'database' | 'jobs' | 'clock' | 'logger'>,
): Promise<number> {
  const now = o.clock.now().getTime();
  const stale = new Date(now - runner.staleClaimMs);
  // A due retry whose job has not run a minute after its time was lost with its instance.
  const lost = new Date(now - LOST_JOB_MS);
  const rows = await o.database.db
    .select({ id: alertDeliveries.id })
    .from(alertDeliveries)
    .where(
      or(
        and(eq(alertDeliveries.status, 'sending'), lt(alertDeliveries.claimedAt, stale)),
        and(eq(alertDeliveries.status, 'retrying'), lt(alertDeliveries.nextAttemptAt, lost)),
        and(
          eq(alertDeliveries.status, 'pending'),
          isNull(alertDeliveries.nextAttemptAt),
          lt(alertDeliveries.createdAt, lost),
        ),
      ),
    )
    .limit(RECOVER_BATCH);
  for (const { id } of rows) await o.jobs.send(deliverJob, { deliveryId: id });
  if (rows.length > 0) o.logger.info({ deliveries: rows.length }, 'alert deliveries resumed');
  return rows.length;
}

/** A due delivery whose job has not taken it this long after it was due is re-sent. */
export const LOST_JOB_MS = 2 * 60_000;

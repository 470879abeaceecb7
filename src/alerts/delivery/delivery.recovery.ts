import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Jobs } from '../../platform/jobs/jobs.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import { deliverJob } from './delivery.jobs.ts';
import { deliveriesToResume } from './delivery.repository.ts';
import type { DeliveryRunner } from './delivery.runner.ts';

/** Deliveries recovered per sweep at most (the rest wait for the next minute). */
const RECOVER_BATCH = 500;

/** A due delivery whose job has not taken it this long after it was due is re-sent. */
export const LOST_JOB_MS = 2 * 60_000;

export interface RecoveryOptions {
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Clock;
  readonly logger: Logger;
}

/**
 * The sweep that resumes deliveries whose attempt or job was lost with its instance (run every
 * minute and at start): a claim older than an attempt can last, a due retry or a new delivery whose
 * job nobody took. An attempt whose acceptance was noted (acceptance-journal.ts) is recorded instead.
 */
export async function recoverDeliveries(
  runner: Pick<DeliveryRunner, 'staleClaimMs' | 'replayAcceptances'>,
  o: RecoveryOptions,
): Promise<number> {
  // First the acceptances a killed instance noted and did not record: those are not sent again.
  const accepted = await runner.replayAcceptances();
  if (accepted > 0)
    o.logger.info({ deliveries: accepted }, 'alert deliveries accepted before a stop recorded');
  const now = o.clock.now().getTime();
  const ids = await deliveriesToResume(o.database.db, {
    staleBefore: new Date(now - runner.staleClaimMs),
    // A due retry whose job has not run a minute after its time was lost with its instance.
    lostBefore: new Date(now - LOST_JOB_MS),
    limit: RECOVER_BATCH,
  });
  for (const deliveryId of ids) await o.jobs.send(deliverJob, { deliveryId });
  if (ids.length > 0) o.logger.info({ deliveries: ids.length }, 'alert deliveries resumed');
  return ids.length;
}

import { z } from 'zod';
import { defineJob } from '../../platform/jobs/job.ts';

/** Delivery attempts one instance runs at once (the queue's worker slots): they mostly wait on the network. */
export const DELIVERY_CONCURRENCY = 64;

/**
 * One attempt at one delivery. Vigil schedules its own retries (so a receiver's Retry-After is
 * honoured): a failed attempt that may succeed later sends the next job with a start time. pg-boss's
 * own retries only cover a worker that died mid-attempt (the job expires and runs again).
 */
export const deliverJob = defineJob({
  name: 'alerts.deliver',
  schema: z.object({ deliveryId: z.uuid() }),
  options: { retryLimit: 5, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 120 },
});

/** Every minute: price, volume and custom-condition triggers are evaluated. */
export const evaluateJob = defineJob({
  name: 'alerts.evaluate',
  schema: z.object({}),
  options: { retryLimit: 0, policy: 'singleton' },
});

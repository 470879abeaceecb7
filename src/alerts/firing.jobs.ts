import { z } from 'zod';
import { defineJob, stableJobId } from '../platform/jobs/job.ts';

/**
 * The firing of one stored watchdog event: every matching alert fires for it (firing.ts). Sent in
 * the transaction that stores the event, so an event that commits always has its firing job; a
 * handler that fails (a lock timeout, a lost connection) is retried after 1-2 s, 2-4 s, 4-8 s ...
 * (pg-boss's backoff with jitter; 12 retries, one to two and a half hours in all), and a job taken by
 * an instance that died runs again once it expires. The (alert, event) firing row is unique, so a
 * job run twice fires nothing twice.
 */
export const fireJob = defineJob({
  name: 'alerts.fire',
  schema: z.object({ eventId: z.string().min(1).max(64) }),
  options: { retryLimit: 12, retryDelaySeconds: 1, retryBackoff: true, expireInSeconds: 60 },
});

/**
 * The firing job's id for an event, the same on every instance: the job sent with the event and the
 * one an instance that heard the event sends are one job (pg-boss stores an id once).
 */
export function fireJobId(eventId: string): string {
  return stableJobId(`alerts.fire:${eventId}`);
}

import { z } from 'zod';
import { defineJob, stableJobId } from '../platform/jobs/job.ts';

/**
 * A group's notification, due at `startAfter` (its `flush_at`). Sent in the transaction that sets
 * the time, with an id made of the group and the time: instances that set the same time send one
 * job, and a job whose time was moved finds the group not yet due and leaves it to the later one.
 * The minute sweep sends what a lost job left due (groups.service.ts).
 */
export const flushGroupJob = defineJob({
  name: 'alerts.flush-group',
  schema: z.object({ groupId: z.string().min(1).max(64) }),
  options: { retryLimit: 8, retryDelaySeconds: 1, retryBackoff: true, expireInSeconds: 60 },
});

export function flushGroupJobId(groupId: string, at: Date): string {
  return stableJobId(`alerts.flush-group:${groupId}:${at.getTime()}`);
}

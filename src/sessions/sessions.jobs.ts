import { z } from 'zod';
import { defineJob } from '../platform/jobs/job.ts';

/**
 * Every minute: the sessions' upkeep tasks that are due (archive expired sessions, delete old
 * archived ones, compute daily metrics; see session.upkeep.ts for their intervals).
 */
export const upkeepJob = defineJob({
  name: 'sessions.upkeep',
  schema: z.object({}),
  options: { retryLimit: 0, policy: 'singleton' },
});

import { z } from 'zod';
import { defineJob } from '../platform/jobs/job.ts';

/**
 * One turn of the task scheduler, sent with each task in the same transaction: whoever runs it
 * runs the queued task that is fairest to run next (`taskId` names the task it was sent for, for
 * tracing). Retried when a turn fails (say, the database was unreachable); a task whose instance
 * dies is requeued by the heartbeat recovery (see TaskQueue), long before this job would expire.
 */
export const executeJob = defineJob({
  name: 'fkdsl.execute',
  schema: z.object({ taskId: z.uuid() }),
  options: { retryLimit: 2, retryDelaySeconds: 5, retryBackoff: true, expireInSeconds: 15 * 60 },
});

/** Daily: deletes finished tasks older than FKDSL_TASK_RETENTION_DAYS. Cron only enqueues this. */
export const cleanupJob = defineJob({
  name: 'fkdsl.cleanup',
  schema: z.object({}),
  options: { retryLimit: 1, policy: 'singleton' },
});

import { z } from 'zod';
import { defineJob } from '../platform/jobs/job.ts';

/** Runs one submitted FK-DSL task; retried if the process dies mid-run (the task row is idempotent). */
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

import type PgBoss from 'pg-boss';
import type { JobDefinition } from './job.ts';

/**
 * Creates a job's queue with its options. Instances starting together create the same queues at
 * once, and pg-boss's creation (a partition and its indexes) can then deadlock or collide in
 * Postgres; the loser retries, and finds the queue made.
 */
export async function createQueue(boss: PgBoss, job: JobDefinition, attempt = 1): Promise<void> {
  try {
    await createQueueOnce(boss, job);
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    if (attempt >= 5 || (code !== '40P01' && code !== '23505' && code !== '42P07')) throw error;
    await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
    if (await boss.getQueue(job.name)) return;
    await createQueue(boss, job, attempt + 1);
  }
}

function createQueueOnce(boss: PgBoss, job: JobDefinition): Promise<void> {
  const o = job.options ?? {};
  return boss.createQueue(job.name, {
    name: job.name,
    policy: o.policy ?? 'standard',
    ...(o.retryLimit !== undefined ? { retryLimit: o.retryLimit } : {}),
    ...(o.retryDelaySeconds !== undefined ? { retryDelay: o.retryDelaySeconds } : {}),
    ...(o.retryBackoff !== undefined ? { retryBackoff: o.retryBackoff } : {}),
    ...(o.expireInSeconds !== undefined ? { expireInSeconds: o.expireInSeconds } : {}),
  });
}

/** A job definition's options as pg-boss send options (every send of the job starts from these). */
export function sendDefaults(job: JobDefinition): PgBoss.SendOptions {
  const o = job.options ?? {};
  return {
    ...(o.retryLimit !== undefined ? { retryLimit: o.retryLimit } : {}),
    ...(o.retryDelaySeconds !== undefined ? { retryDelay: o.retryDelaySeconds } : {}),
    ...(o.retryBackoff !== undefined ? { retryBackoff: o.retryBackoff } : {}),
    ...(o.expireInSeconds !== undefined ? { expireInSeconds: o.expireInSeconds } : {}),
    ...(o.retentionDays !== undefined ? { retentionDays: o.retentionDays } : {}),
  };
}

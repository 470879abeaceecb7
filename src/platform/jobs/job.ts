import { createHash } from 'node:crypto';
import type { z } from 'zod';

/** What a job is: a queue name, the schema of its payload, and its delivery options. */
export interface JobDefinition<Schema extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly schema: Schema;
  /** Defaults for every send of this job (retries, backoff, expiry, retention). */
  readonly options?: JobOptions;
}

export interface JobOptions {
  readonly retryLimit?: number;
  readonly retryDelaySeconds?: number;
  readonly retryBackoff?: boolean;
  readonly expireInSeconds?: number;
  readonly retentionDays?: number;
  /** pg-boss queue policy: `singleton` allows one active job at a time, `short` one queued. */
  readonly policy?: 'standard' | 'short' | 'singleton' | 'stately';
}

export type JobInput<J extends JobDefinition> = z.input<J['schema']>;
export type JobData<J extends JobDefinition> = z.output<J['schema']>;

export function defineJob<Schema extends z.ZodType>(
  definition: JobDefinition<Schema>,
): JobDefinition<Schema> {
  if (!/^[a-z][a-z0-9._-]*$/.test(definition.name)) {
    throw new Error(
      `job name ${JSON.stringify(definition.name)} must be lower-case letters, digits, '.', '_' or '-'`,
    );
  }
  return Object.freeze(definition);
}

export class InvalidJobPayloadError extends Error {
  constructor(
    readonly job: string,
    readonly issues: readonly string[],
  ) {
    super(`invalid payload for job ${job}: ${issues.join('; ')}`);
    this.name = 'InvalidJobPayloadError';
  }
}

/**
 * A job id made from `text`, the same on every instance: jobs sent for one thing by several
 * instances are one job (pg-boss stores an id once). Shaped as a version-4 UUID (pg-boss keeps ids
 * in a uuid column).
 */
export function stableJobId(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  const variant = ((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

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

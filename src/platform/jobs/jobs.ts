import PgBoss from 'pg-boss';
import type { z } from 'zod';
import type { DatabaseHandle, Executor } from '../db/database.ts';
import type { Logger } from '../observability/logger.ts';
import { pgliteBossDb, transactionBossDb } from './executors.ts';
import { InvalidJobPayloadError, type JobData, type JobDefinition, type JobInput } from './job.ts';
import { PreparedStatements } from './prepared-statements.ts';
import { QueueWorker } from './queue-worker.ts';
import { createQueue, sendDefaults } from './queues.ts';

export interface JobsOptions {
  /** Postgres schema that holds pg-boss's tables. */
  readonly schema?: string;
  /** How often the cron monitor looks for due schedules (pg-boss default 30 s; 1..45). */
  readonly cronMonitorIntervalSeconds?: number;
  /** How often due schedules are turned into jobs (pg-boss default 5 s). */
  readonly cronWorkerIntervalSeconds?: number;
  readonly logger: Logger;
}

export interface SendOptions {
  /** Enqueue inside this transaction: the job exists only if the transaction commits. */
  readonly tx?: Executor;
  readonly startAfter?: Date | number;
  readonly singletonKey?: string;
  readonly singletonSeconds?: number;
  readonly id?: string;
}

export interface WorkOptions {
  /**
   * Jobs of this queue that run at once in this process (default 1). One fetch takes as many jobs
   * as there are free slots; see queue-worker.ts.
   */
  readonly concurrency?: number;
  /** How often an idle queue is asked for jobs sent by other instances (default 2 s). */
  readonly pollingIntervalSeconds?: number;
}

export interface JobContext {
  readonly id: string;
  readonly name: string;
}

export type JobHandler<J extends JobDefinition> = (data: JobData<J>, job: JobContext) => Promise<unknown>;

/**
 * The typed job kit over pg-boss: payloads are validated when sent and again when run (a job may
 * outlive the code that enqueued it), queues are created on first use, and cron only enqueues.
 */
export class Jobs {
  readonly #boss: PgBoss;
  readonly #logger: Logger;
  readonly #queues = new Map<string, Promise<void>>();
  readonly #workers = new Map<string, QueueWorker[]>();
  /** pg-boss's statements prepared on the embedded database's one connection (undefined on Postgres). */
  readonly #prepared: PreparedStatements | undefined;
  #state: 'created' | 'started' | 'stopping' | 'stopped' = 'created';

  constructor(handle: DatabaseHandle, options: JobsOptions) {
    this.#prepared = handle.mode === 'pglite' ? new PreparedStatements() : undefined;
    // pg-boss asserts on keys that are present but undefined, so only set what was given.
    const common: PgBoss.ConstructorOptions = { schema: options.schema ?? 'pgboss' };
    if (options.cronMonitorIntervalSeconds !== undefined) {
      common.cronMonitorIntervalSeconds = options.cronMonitorIntervalSeconds;
    }
    if (options.cronWorkerIntervalSeconds !== undefined) {
      common.cronWorkerIntervalSeconds = options.cronWorkerIntervalSeconds;
    }
    this.#boss =
      handle.mode === 'postgres'
        ? new PgBoss({
            ...common,
            connectionString: handle.url,
            max: 4,
            application_name: 'vigil-jobs',
            // Handed to its pg pool: the same bounds as the app's own connections.
            ...({
              statement_timeout: handle.timeouts.statementMs,
              lock_timeout: handle.timeouts.lockMs,
              connectionTimeoutMillis: handle.timeouts.connectMs,
            } as object),
          })
        : new PgBoss({ ...common, db: pgliteBossDb(handle.pglite, this.#prepared) });
    this.#logger = options.logger.child({ component: 'jobs' });
    this.#boss.on('error', (error) => this.#logger.warn({ err: error }, 'job engine error'));
  }

  get state() {
    return this.#state;
  }

  async start(): Promise<void> {
    await this.#boss.start();
    this.#state = 'started';
  }

  /** Round trip through the job engine's own connection (its pool on Postgres). */
  async ping(): Promise<void> {
    if (this.#state !== 'started') throw new Error(`job engine is ${this.#state}`);
    await this.#boss.getDb().executeSql('select 1', []);
  }

  async send<J extends JobDefinition>(
    job: J,
    input: JobInput<J>,
    options: SendOptions = {},
  ): Promise<string | null> {
    const data = parsePayload(job, input);
    const { tx, startAfter, ...rest } = options;
    this.#refuseWithoutQueue(job, tx);
    await this.#ensureQueue(job);
    const id = await this.#boss.send(job.name, data as object, {
      ...sendDefaults(job),
      ...rest,
      ...(startAfter !== undefined ? { startAfter } : {}),
      ...(tx ? { db: transactionBossDb(tx, this.#prepared) } : {}),
    });
    if (!tx && startAfter === undefined && id) this.wake(job);
    return id;
  }

  /**
   * Enqueues many jobs of one kind in one statement (in `tx` when given: they exist only if it
   * commits). Queue defaults apply (retries, expiry); no singletons or start times.
   */
  async sendMany<J extends JobDefinition>(
    job: J,
    inputs: readonly JobInput<J>[],
    options: { readonly tx?: Executor } = {},
  ): Promise<void> {
    if (inputs.length === 0) return;
    const { tx } = options;
    this.#refuseWithoutQueue(job, tx);
    await this.#ensureQueue(job);
    const { retentionDays: _r, ...defaults } = sendDefaults(job) as Record<string, unknown>;
    await this.#boss.insert(
      inputs.map((input) => ({ name: job.name, data: parsePayload(job, input) as object, ...defaults })),
      tx ? { db: transactionBossDb(tx, this.#prepared) } : {},
    );
    if (!tx) this.wake(job);
  }

  async work<J extends JobDefinition>(
    job: J,
    handler: JobHandler<J>,
    options: WorkOptions = {},
  ): Promise<void> {
    await this.#ensureQueue(job);
    if (this.#state === 'stopping' || this.#state === 'stopped') return;
    const worker = new QueueWorker({
      queue: job.name,
      slots: Math.max(1, options.concurrency ?? 1),
      pollingMs: 1_000 * (options.pollingIntervalSeconds ?? 2),
      engine: this.#boss,
      run: (raw) => this.#runOne(job, handler, raw),
      onError: (error, detail) =>
        this.#logger.warn({ err: error, ...detail }, detail.job ? 'job failed' : 'job queue error'),
    });
    this.#workers.set(job.name, [...(this.#workers.get(job.name) ?? []), worker]);
    worker.start();
  }

  /**
   * Tells this process's workers on `job`'s queue that jobs are waiting (call it once jobs sent in
   * a transaction are committed), so they fetch now rather than at their next poll. Workers of
   * other instances still find them at their next poll.
   */
  wake(job: JobDefinition): void {
    if (this.#state !== 'started') return;
    for (const worker of this.#workers.get(job.name) ?? []) worker.wake();
  }

  async #runOne<J extends JobDefinition>(
    job: J,
    handler: JobHandler<J>,
    raw: PgBoss.Job<unknown>,
  ): Promise<unknown> {
    let data: JobData<J>;
    try {
      data = parsePayload(job, raw.data);
    } catch (error) {
      // Retrying cannot make a malformed payload valid; it fails loudly and lands in `failed`.
      this.#logger.error({ err: error, job: job.name, id: raw.id }, 'job payload failed validation');
      throw error;
    }
    return handler(data, { id: raw.id, name: raw.name });
  }

  /** Registers (or replaces) a cron schedule; when due it enqueues `data` as a job. */
  async schedule<J extends JobDefinition>(
    job: J,
    cron: string,
    input: JobInput<J>,
    tz = 'UTC',
  ): Promise<void> {
    const data = parsePayload(job, input);
    await this.#ensureQueue(job);
    await this.#boss.schedule(job.name, cron, data as object, { ...sendDefaults(job), tz });
  }

  async unschedule(job: JobDefinition): Promise<void> {
    await this.#boss.unschedule(job.name);
  }

  /** pg-boss state of one job (`created`, `retry`, `active`, `completed`, `cancelled`, `failed`). */
  async jobState(job: JobDefinition, id: string): Promise<string | null> {
    const found = await this.#boss.getJobById(job.name, id, { includeArchive: true });
    return found?.state ?? null;
  }

  async queueSize(job: JobDefinition): Promise<number> {
    await this.#ensureQueue(job);
    return this.#boss.getQueueSize(job.name);
  }

  /**
   * Jobs waiting to run (created or retrying) in every queue this process knows, for metrics.
   * Empty unless started: a scrape during start or stop asks the database nothing.
   */
  async queueDepths(): Promise<Map<string, number>> {
    if (this.#state !== 'started') return new Map();
    const names = [...this.#queues.keys()].sort();
    const sizes = await Promise.allSettled(names.map((name) => this.#boss.getQueueSize(name)));
    const depths = new Map<string, number>();
    sizes.forEach((size, i) => {
      if (size.status === 'fulfilled') depths.set(names[i]!, size.value);
    });
    return depths;
  }

  /** Stops fetching, waits up to `timeoutMs` for running handlers, then releases connections. */
  async stop(timeoutMs: number): Promise<void> {
    if (this.#state !== 'started') {
      this.#state = 'stopped';
      return;
    }
    this.#state = 'stopping';
    const started = Date.now();
    const workers = [...this.#workers.values()].flat();
    this.#workers.clear();
    await Promise.all(workers.map((w) => w.stop(timeoutMs)));
    await this.#boss.stop({
      graceful: true,
      wait: true,
      close: true,
      timeout: Math.max(1_000, timeoutMs - (Date.now() - started)),
    });
    this.#state = 'stopped';
  }

  /** Creates the job's queue now (the app does this at start for every module's jobs). */
  ensureQueue(job: JobDefinition): Promise<void> {
    return this.#ensureQueue(job);
  }

  /**
   * Makes sure every one of `jobs` has its queue, in one read when they all exist (every start but
   * the first): the app does this before it is ready, so a job can be sent in a transaction from
   * the first request on.
   */
  async ensureQueues(jobs: readonly JobDefinition[]): Promise<void> {
    const existing = new Set((await this.#boss.getQueues()).map((queue) => queue.name));
    await Promise.all(
      jobs.map((job) => {
        if (existing.has(job.name) && !this.#queues.has(job.name))
          this.#queues.set(job.name, Promise.resolve());
        return this.#ensureQueue(job);
      }),
    );
  }

  /**
   * Creating a queue takes a connection of its own; on PGlite (one connection) that waits for the
   * caller's open transaction, which waits for this send. Queues come first, at start.
   */
  #refuseWithoutQueue(job: JobDefinition, tx: Executor | undefined): void {
    if (tx && !this.#queues.has(job.name)) {
      throw new Error(
        `job ${job.name} has no queue yet: register it (work, schedule or ensureQueue) before sending it in a transaction`,
      );
    }
  }

  #ensureQueue(job: JobDefinition): Promise<void> {
    let pending = this.#queues.get(job.name);
    if (!pending) {
      pending = createQueue(this.#boss, job).catch((error: unknown) => {
        this.#queues.delete(job.name);
        throw error;
      });
      this.#queues.set(job.name, pending);
    }
    return pending;
  }
}

function parsePayload<J extends JobDefinition>(job: J, input: unknown): z.output<J['schema']> {
  const result = job.schema.safeParse(input);
  if (!result.success) {
    throw new InvalidJobPayloadError(
      job.name,
      result.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`),
    );
  }
  return result.data as z.output<J['schema']>;
}

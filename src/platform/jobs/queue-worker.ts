import type PgBoss from 'pg-boss';
import { StatementBatcher } from './statement-batcher.ts';

/**
 * This process's worker for one queue: up to `slots` jobs run at once, one per slot. It fetches when
 * a slot is free and there may be jobs: at start, when woken (a job was sent here), at each polling
 * interval (jobs sent by other instances), and again at once after a fetch that filled every free
 * slot (there may be more). A fetch that came back short means the queue was empty: the worker
 * then waits for a wake or its next poll.
 *
 * Why not pg-boss's own workers: a pg-boss worker fetches a batch and fetches again only once the
 * whole batch has ended, so one slow job idles the slots of its batch-mates; and every worker
 * fetches on its own, while pg-boss's fetch reads every waiting job of the queue to order them (with
 * 2,000 alert deliveries waiting, sixteen workers fetching four jobs each spent most of the embedded
 * database's time sorting the same backlog). Here one fetch takes as many jobs as there are free
 * slots, a slot is free again as soon as its job ends, and the jobs that end together are completed
 * in one statement.
 *
 * A job runs at most its `expireInSeconds`: past that it is failed (and retried by its queue's
 * policy) and its slot freed, as pg-boss does. Stopping waits for running jobs, then fails those
 * still running so that they are retried.
 */
export interface QueueEngine {
  fetch(name: string, options: { batchSize: number }): Promise<PgBoss.Job<unknown>[] | null>;
  complete(name: string, ids: string[]): Promise<unknown>;
  fail(name: string, ids: string[], data: object): Promise<unknown>;
}

export interface QueueWorkerOptions {
  readonly queue: string;
  readonly slots: number;
  readonly pollingMs: number;
  readonly engine: QueueEngine;
  /** Runs one job; a rejection fails it. */
  readonly run: (job: PgBoss.Job<unknown>) => Promise<unknown>;
  /** A failed job or a failed fetch or completion (the worker carries on). */
  readonly onError: (error: unknown, detail: { queue: string; job?: string }) => void;
}

/**
 * While a backlog waits (the last fetch filled every free slot), a fetch waits for a quarter of the
 * slots to be free, or this long after the first one was: a fetch reads the whole backlog to order
 * it, and one fetch per job ending made each job pay for a whole fetch (on the embedded database,
 * under load, a queue could settle at one job per fetch and a fifth of its speed).
 */
const GATHER_MS = 25;
/** pg-boss's own default expiry, for a job that came without one. */
const DEFAULT_EXPIRY_SECONDS = 15 * 60;
/** Completions written in one statement at most. */
const COMPLETE_BATCH = 100;

export class QueueWorker {
  readonly #o: QueueWorkerOptions;
  readonly #slots: number;
  readonly #running = new Set<string>();
  /** Completions and failures being written. */
  readonly #writes = new Set<Promise<unknown>>();
  readonly #completions: StatementBatcher<string, undefined>;
  #wanted = true;
  /** The last fetch filled every free slot: more jobs are probably waiting. */
  #backlog = false;
  #gather: ReturnType<typeof setTimeout> | undefined;
  #gathered = false;
  #fetching: Promise<void> | undefined;
  #poll: ReturnType<typeof setInterval> | undefined;
  #stopping = false;
  #pumpSoon: ReturnType<typeof setImmediate> | undefined;
  #whenIdle: (() => void) | undefined;

  constructor(options: QueueWorkerOptions) {
    this.#o = options;
    this.#slots = Math.max(1, Math.floor(options.slots));
    this.#completions = new StatementBatcher(
      async (ids) => {
        await options.engine.complete(options.queue, [...ids]);
        return ids.map(() => undefined);
      },
      { max: COMPLETE_BATCH },
    );
  }

  /** Jobs running now. */
  get running(): number {
    return this.#running.size;
  }

  start(): void {
    this.#poll = setInterval(() => this.wake(), Math.max(100, this.#o.pollingMs));
    this.#pump();
  }

  /** There may be jobs: fetch as soon as a slot is free. */
  wake(): void {
    this.#wanted = true;
    this.#pump();
  }

  /**
   * Stops fetching and waits up to `timeoutMs` for the running jobs; those still running then are
   * failed (their queue's retries take them up again).
   */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#poll);
    clearImmediate(this.#pumpSoon);
    clearTimeout(this.#gather);
    await this.#fetching;
    if (this.#running.size > 0) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((resolve) => {
          this.#whenIdle = resolve;
        }),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    }
    await Promise.all([...this.#writes]);
    await this.#completions.idle();
    const left = [...this.#running];
    if (left.length > 0) {
      await this.#o.engine
        .fail(this.#o.queue, left, { message: 'the instance stopped while the job ran' })
        .catch((error: unknown) => this.#o.onError(error, { queue: this.#o.queue }));
    }
  }

  /** Fetches once the callbacks ready now have run: slots freed together are filled by one fetch. */
  #pump(): void {
    this.#pumpSoon ??= setImmediate(() => {
      this.#pumpSoon = undefined;
      this.#fetchIfWanted();
    });
  }

  #fetchIfWanted(): void {
    if (this.#stopping || this.#fetching || !this.#wanted) return;
    const free = this.#slots - this.#running.size;
    if (free <= 0) return;
    if (this.#backlog && free < Math.ceil(this.#slots / 4) && !this.#gathered) {
      this.#gather ??= setTimeout(() => {
        this.#gather = undefined;
        this.#gathered = true;
        this.#pump();
      }, GATHER_MS);
      return;
    }
    clearTimeout(this.#gather);
    this.#gather = undefined;
    this.#gathered = false;
    this.#fetching = this.#fetch(free).finally(() => {
      this.#fetching = undefined;
      this.#pump();
    });
  }

  async #fetch(free: number): Promise<void> {
    // A wake while this fetch runs may be for a job it does not see: it sets this again.
    this.#wanted = false;
    let jobs: PgBoss.Job<unknown>[] = [];
    try {
      jobs = (await this.#o.engine.fetch(this.#o.queue, { batchSize: free })) ?? [];
    } catch (error) {
      this.#o.onError(error, { queue: this.#o.queue });
    }
    // As many as asked: there may be more. Fewer: the queue was empty when it was read.
    this.#backlog = jobs.length >= free;
    if (this.#backlog) this.#wanted = true;
    for (const job of jobs) this.#start(job);
  }

  #start(job: PgBoss.Job<unknown>): void {
    this.#running.add(job.id);
    // pg-boss reads it as a numeric, which drivers may answer as text.
    const seconds = Number((job as { expireInSeconds?: unknown }).expireInSeconds);
    const expireMs = 1_000 * (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_EXPIRY_SECONDS);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the job ran longer than its ${expireMs / 1000} s`)),
        expireMs,
      );
    });
    const ended = (error: unknown) => {
      clearTimeout(timer);
      this.#running.delete(job.id);
      if (this.#running.size === 0) this.#whenIdle?.();
      // The slot is free at once; the job's completion is written with the others that end now.
      const written =
        error === undefined
          ? this.#completions.run(job.id)
          : this.#o.engine.fail(this.#o.queue, [job.id], {
              message: (error as Error)?.message || String(error),
            });
      this.#track(written.catch((e: unknown) => this.#o.onError(e, { queue: this.#o.queue, job: job.id })));
      if (error !== undefined) this.#o.onError(error, { queue: this.#o.queue, job: job.id });
      this.#pump();
    };
    Promise.race([this.#o.run(job), expired]).then(
      () => ended(undefined),
      (error: unknown) => ended(error ?? new Error('the job failed')),
    );
  }

  #track(write: Promise<unknown>): void {
    const tracked = write.finally(() => this.#writes.delete(tracked));
    this.#writes.add(tracked);
  }
}

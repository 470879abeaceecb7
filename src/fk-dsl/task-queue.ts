import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { mayAccessOwnedBy, type Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { Database } from '../platform/db/database.ts';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { executeJob } from './fk-dsl.jobs.ts';
import {
  claimTask,
  countPendingTasks,
  deleteTasksFinishedBefore,
  failLostTasks,
  findTask,
  finishTask,
  insertTask,
  lockClient,
  nextQueuedTaskId,
  requeueLostTasks,
  type TaskError,
  type TaskOutcome,
  type TaskRow,
} from './tasks.repository.ts';

/** Which instances are alive; the server-info domain's service answers this from heartbeats. */
export interface InstanceRegistry {
  /** This process. */
  readonly instanceId: string;
  /** Instances that heartbeated recently (this one included). */
  liveInstanceIds(): Promise<readonly string[]>;
  /** Calls `listener` after each heartbeat of this instance; returns the unsubscribe. */
  onHeartbeat(listener: () => Promise<void>): () => void;
}

export type TaskSettings = Pick<
  Config['fkDsl'],
  'maxPendingTasksPerClient' | 'maxResultBytes' | 'taskMaxAttempts' | 'taskRetentionDays'
>;

export interface TaskQueueDeps {
  readonly db: Database;
  readonly jobs: Pick<Jobs, 'send'>;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: TaskSettings;
  readonly instances: InstanceRegistry;
  /** Evaluates a query for the client that submitted it; its result is what the task stores. */
  readonly run: (query: string, clientId: string) => Promise<unknown>;
  /** What a failed run tells the client (domain errors keep their message, others are masked). */
  readonly publicError: (error: unknown) => TaskError;
}

/** A client already has as many unfinished tasks as it may. */
export class TooManyTasksError extends AppError {
  constructor(limit: number) {
    super(
      'TOO_MANY_TASKS',
      `this client has ${limit} background tasks queued or running, the most it may have ` +
        '(FKDSL_MAX_PENDING_TASKS_PER_CLIENT); poll fkDslTask until one finishes, then submit again',
      { limit, setting: 'FKDSL_MAX_PENDING_TASKS_PER_CLIENT' },
    );
  }
}

/** A claim lost to another worker means that worker made progress; this many in a row is not plausible. */
const CLAIM_TRIES = 50;

/**
 * FK-DSL background tasks: rows in the database, each with one `fkdsl.execute` job written in the
 * same transaction. A job does not run the task it was sent for: it is a turn, and whoever gets a
 * turn runs the task the fair pick names (see nextQueuedTaskId), so a client with a long backlog
 * cannot make another client's single task wait behind all of it. There is always at least one
 * job per queued task, so every task gets its turn; a spare turn finds nothing and ends.
 */
/** A task this instance claimed moments ago may not be in its running set yet: not stranded. */
const OWN_CLAIM_GRACE_MS = 60_000;

export class TaskQueue {
  #recovering: Promise<void> | undefined;
  /** Tasks this instance is running now (claimed, outcome not stored yet). */
  readonly #running = new Set<string>();
  #unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: TaskQueueDeps) {}

  /** `clientId` is what the task's limits count under; `owner` the principal that may read it. */
  async submit(query: string, clientId: string, owner: string): Promise<TaskRow> {
    const { db, jobs, clock, settings } = this.deps;
    const id = randomUUID();
    const createdAt = clock.now();
    await db.transaction(async (tx) => {
      await lockClient(tx, clientId);
      const pending = await countPendingTasks(tx, clientId);
      if (pending >= settings.maxPendingTasksPerClient) {
        throw new TooManyTasksError(settings.maxPendingTasksPerClient);
      }
      await insertTask(tx, { id, query, clientId, owner, createdAt });
      await jobs.send(executeJob, { taskId: id }, { tx });
    });
    return (await findTask(db, id))!;
  }

  /**
   * The task, for its owner or an admin. Anyone else is told it was not found, exactly as for an id
   * that does not exist, so ids reveal nothing about other callers' work.
   */
  async task(id: string, viewer: Principal): Promise<TaskRow> {
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
      throw new ValidationError('taskId', 'must be a task id (UUID)');
    }
    const task = await findTask(this.deps.db, id);
    if (!task || !mayAccessOwnedBy(viewer, task.owner)) throw new NotFoundError('task', id);
    return task;
  }

  /** One turn: claims the fairest queued task, runs it and stores its outcome. */
  async runNext(): Promise<TaskRow | undefined> {
    const task = await this.#claim();
    if (!task) return undefined;
    this.#running.add(task.id);
    try {
      const outcome = await this.#outcome(task);
      const { db, clock, instances, logger } = this.deps;
      if (!(await finishTask(db, task.id, instances.instanceId, outcome, clock.now()))) {
        logger.warn(
          { taskId: task.id },
          'FK-DSL task was recovered by another instance; this outcome is dropped',
        );
      }
    } finally {
      // Whatever happened, this instance no longer runs it: if its outcome was not stored, the
      // next recovery (start or heartbeat) requeues it instead of leaving it `running` forever.
      this.#running.delete(task.id);
    }
    return task;
  }

  /**
   * Tasks left `running` by an instance that stopped (killed, crashed, lost its database) go back
   * to the queue, or fail with INSTANCE_LOST once they were started FKDSL_TASK_MAX_ATTEMPTS times
   * (a query that kills its instance must not take down one instance after another).
   */
  recoverLostTasks(): Promise<void> {
    this.#recovering ??= this.#recover().finally(() => {
      this.#recovering = undefined;
    });
    return this.#recovering;
  }

  /** Recovers now, then after every heartbeat of this instance. */
  async startRecovery(): Promise<void> {
    this.stopRecovery();
    await this.recoverLostTasks().catch((error: unknown) =>
      this.deps.logger.warn({ err: error }, 'FK-DSL task recovery failed; retried at the next heartbeat'),
    );
    this.#unsubscribe = this.deps.instances.onHeartbeat(() => this.recoverLostTasks());
  }

  stopRecovery(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Deletes finished tasks older than FKDSL_TASK_RETENTION_DAYS (the daily cleanup job). */
  async deleteExpiredTasks(): Promise<number> {
    const { db, clock, settings, logger } = this.deps;
    const before = new Date(clock.now().getTime() - settings.taskRetentionDays * 86_400_000);
    const removed = await deleteTasksFinishedBefore(db, before);
    if (removed) logger.info({ removed }, 'old FK-DSL tasks deleted');
    return removed;
  }

  async #claim(): Promise<TaskRow | undefined> {
    const { db, clock, instances } = this.deps;
    for (let i = 0; i < CLAIM_TRIES; i++) {
      const id = await nextQueuedTaskId(db);
      if (!id) return undefined;
      const task = await claimTask(db, id, instances.instanceId, clock.now());
      if (task) return task;
    }
    // The job is retried, so its turn is not lost.
    throw new Error(`no queued FK-DSL task could be claimed in ${CLAIM_TRIES} tries`);
  }

  async #outcome(task: TaskRow): Promise<TaskOutcome> {
    const { run, publicError, settings } = this.deps;
    let result: unknown;
    try {
      // Tasks stored before clients were recorded share one anonymous share.
      result = await run(task.query, task.clientId ?? 'unknown');
    } catch (error) {
      return { status: 'failed', error: publicError(error) };
    }
    const bytes = Buffer.byteLength(JSON.stringify(result) ?? '');
    if (bytes > settings.maxResultBytes) {
      // Never a cut result that looks complete: the task fails and says why.
      return {
        status: 'failed',
        error: {
          code: 'RESULT_TOO_LARGE',
          message:
            `the result is ${bytes} bytes, over the ${settings.maxResultBytes} bytes a task may store ` +
            '(FKDSL_MAX_RESULT_BYTES); ask for fewer symbols or statements, or add a LIMIT',
        },
      };
    }
    return { status: 'completed', result };
  }

  async #recover(): Promise<void> {
    const { db, jobs, clock, logger, instances, settings } = this.deps;
    const live = [...new Set([instances.instanceId, ...(await instances.liveInstanceIds())])];
    const max = settings.taskMaxAttempts;
    const self = {
      instanceId: instances.instanceId,
      running: [...this.#running],
      startedBefore: new Date(clock.now().getTime() - OWN_CLAIM_GRACE_MS),
    };
    const { requeued, failed } = await db.transaction(async (tx) => {
      const failed = await failLostTasks(
        tx,
        live,
        self,
        max,
        {
          code: 'INSTANCE_LOST',
          message: `the instance running this task stopped each of the ${max} times it was started (FKDSL_TASK_MAX_ATTEMPTS); it is not run again`,
        },
        clock.now(),
      );
      const requeued = await requeueLostTasks(tx, live, self, max, {
        code: 'INSTANCE_LOST',
        message: 'the instance running this task stopped; it is queued to run again',
      });
      for (const taskId of requeued) await jobs.send(executeJob, { taskId }, { tx });
      return { requeued, failed };
    });
    if (requeued.length || failed.length) {
      logger.warn({ requeued, failed }, 'FK-DSL tasks of stopped instances recovered');
    }
  }
}

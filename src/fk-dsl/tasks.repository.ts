import { and, eq, gte, inArray, isNull, lt, notInArray, or, sql } from 'drizzle-orm';
import { lockForTransaction } from '../platform/db/advisory-lock.ts';
import type { Executor } from '../platform/db/database.ts';
import { queryRows } from '../platform/db/raw.ts';
import { fkDslTasks } from './tasks.sql.ts';

export type TaskRow = typeof fkDslTasks.$inferSelect;
export type TaskError = { code: string; message: string };
export type TaskOutcome = { status: 'completed'; result: unknown } | { status: 'failed'; error: TaskError };

const PENDING = ['queued', 'running'] as const;

export async function insertTask(
  db: Executor,
  row: Pick<TaskRow, 'id' | 'query' | 'createdAt' | 'clientId' | 'owner'>,
): Promise<void> {
  await db.insert(fkDslTasks).values({ ...row, status: 'queued' });
}

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(fkDslTasks).where(eq(fkDslTasks.id, id));
  return row;
}

/**
 * Serialises submissions of one client until the transaction ends, so that a burst of concurrent
 * submissions cannot all pass the count before any of them is inserted.
 */
export async function lockClient(tx: Executor, clientId: string): Promise<void> {
  await lockForTransaction(tx, 'fk_dsl_tasks', clientId);
}

export async function countPendingTasks(db: Executor, clientId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(fkDslTasks)
    .where(and(eq(fkDslTasks.clientId, clientId), inArray(fkDslTasks.status, PENDING)));
  return Number(row?.n ?? 0);
}

/**
 * The queued task to run next, fairly between clients: first the client with the fewest tasks
 * running now, then the one whose last task started longest ago (never: first), then the oldest
 * submission. One client's backlog therefore waits its turn instead of making everyone wait behind it.
 */
export async function nextQueuedTaskId(db: Executor): Promise<string | undefined> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select q.id from (
          select distinct on (client_id) id, client_id, created_at
          from fk_dsl_tasks
          where status = 'queued'
          order by client_id, created_at, id
        ) q
        order by
          (select count(*) from fk_dsl_tasks r where r.client_id = q.client_id and r.status = 'running'),
          (select max(s.started_at) from fk_dsl_tasks s where s.client_id = q.client_id) nulls first,
          q.created_at, q.id
        limit 1`,
  );
  return rows[0]?.id;
}

/** queued -> running on this instance; undefined when another worker took it first. */
export async function claimTask(
  db: Executor,
  id: string,
  instanceId: string,
  at: Date,
): Promise<TaskRow | undefined> {
  const [row] = await db
    .update(fkDslTasks)
    .set({ status: 'running', startedAt: at, instanceId, attempts: sql`${fkDslTasks.attempts} + 1` })
    .where(and(eq(fkDslTasks.id, id), eq(fkDslTasks.status, 'queued')))
    .returning();
  return row;
}

/**
 * Records the outcome, only while this instance still owns the run: a task recovered from an
 * instance thought dead and run elsewhere keeps the newer run's outcome. False when not owned.
 */
export async function finishTask(
  db: Executor,
  id: string,
  instanceId: string,
  outcome: TaskOutcome,
  at: Date,
): Promise<boolean> {
  const rows = await db
    .update(fkDslTasks)
    .set(
      outcome.status === 'completed'
        ? { status: 'completed', result: outcome.result, error: null, finishedAt: at }
        : { status: 'failed', result: null, error: outcome.error, finishedAt: at },
    )
    .where(
      and(eq(fkDslTasks.id, id), eq(fkDslTasks.status, 'running'), eq(fkDslTasks.instanceId, instanceId)),
    )
    .returning({ id: fkDslTasks.id });
  return rows.length > 0;
}

/** This instance and the tasks it is running right now. */
export interface Self {
  readonly instanceId: string;
  readonly running: readonly string[];
  /** Own rows started after this are left alone: their claim may not have reached `running` yet. */
  readonly startedBefore: Date;
}

/**
 * Running tasks whose instance is not among `liveInstanceIds` (or unknown: rows from before it was
 * kept), and this instance's own `running` rows that it is not running (a run whose outcome could
 * not be stored, say while the database was away).
 */
const lostWhere = (liveInstanceIds: readonly string[], self: Self) =>
  and(
    eq(fkDslTasks.status, 'running'),
    or(
      isNull(fkDslTasks.instanceId),
      notInArray(fkDslTasks.instanceId, [...liveInstanceIds]),
      and(
        eq(fkDslTasks.instanceId, self.instanceId),
        notInArray(fkDslTasks.id, [...self.running]),
        lt(fkDslTasks.startedAt, self.startedBefore),
      ),
    ),
  );

/** Lost tasks that may run again go back to the queue, noting why; returns their ids. */
export async function requeueLostTasks(
  db: Executor,
  liveInstanceIds: readonly string[],
  self: Self,
  maxAttempts: number,
  note: TaskError,
): Promise<string[]> {
  // One statement: an instance recovering at the same moment finds the rows requeued already.
  const rows = await db
    .update(fkDslTasks)
    .set({ status: 'queued', instanceId: null, startedAt: null, error: note })
    .where(and(lostWhere(liveInstanceIds, self), lt(fkDslTasks.attempts, maxAttempts)))
    .returning({ id: fkDslTasks.id });
  return rows.map((r) => r.id);
}

/** Lost tasks that used up their attempts fail with `error`; returns their ids. */
export async function failLostTasks(
  db: Executor,
  liveInstanceIds: readonly string[],
  self: Self,
  maxAttempts: number,
  error: TaskError,
  at: Date,
): Promise<string[]> {
  const rows = await db
    .update(fkDslTasks)
    .set({ status: 'failed', error, finishedAt: at })
    .where(and(lostWhere(liveInstanceIds, self), gte(fkDslTasks.attempts, maxAttempts)))
    .returning({ id: fkDslTasks.id });
  return rows.map((r) => r.id);
}

export async function deleteTasksFinishedBefore(db: Executor, before: Date): Promise<number> {
  const rows = await db
    .delete(fkDslTasks)
    .where(lt(fkDslTasks.finishedAt, before))
    .returning({ id: fkDslTasks.id });
  return rows.length;
}

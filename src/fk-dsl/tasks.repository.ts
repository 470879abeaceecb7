import { and, eq, lt } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { fkDslTasks } from './tasks.sql.ts';

export type TaskRow = typeof fkDslTasks.$inferSelect;

export async function insertTask(
  db: Executor,
  row: Pick<TaskRow, 'id' | 'query' | 'createdAt'>,
): Promise<void> {
  await db.insert(fkDslTasks).values({ ...row, status: 'queued' });
}

export async function findTask(db: Executor, id: string): Promise<TaskRow | undefined> {
  const [row] = await db.select().from(fkDslTasks).where(eq(fkDslTasks.id, id));
  return row;
}

/** queued -> running; false when another worker (or an earlier attempt) finished it already. */
export async function markRunning(db: Executor, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(fkDslTasks)
    .set({ status: 'running', startedAt: at })
    .where(and(eq(fkDslTasks.id, id), eq(fkDslTasks.status, 'queued')))
    .returning({ id: fkDslTasks.id });
  if (rows.length > 0) return true;
  // A retry after a crash mid-run finds it 'running': take it over.
  const [row] = await db.select({ status: fkDslTasks.status }).from(fkDslTasks).where(eq(fkDslTasks.id, id));
  return row?.status === 'running';
}

export async function finishTask(
  db: Executor,
  id: string,
  outcome:
    | { status: 'completed'; result: unknown }
    | { status: 'failed'; error: { code: string; message: string } },
  at: Date,
): Promise<void> {
  await db
    .update(fkDslTasks)
    .set({ ...outcome, finishedAt: at })
    .where(eq(fkDslTasks.id, id));
}

export async function deleteTasksFinishedBefore(db: Executor, before: Date): Promise<number> {
  const rows = await db
    .delete(fkDslTasks)
    .where(lt(fkDslTasks.finishedAt, before))
    .returning({ id: fkDslTasks.id });
  return rows.length;
}

import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Asynchronous FK-DSL executions. A task is written together with its job (one transaction), so
 * it survives restarts and any instance can report its status.
 */
export const fkDslTasks = pgTable(
  'fk_dsl_tasks',
  {
    id: uuid('id').primaryKey(),
    query: text('query').notNull(),
    /** queued -> running -> completed | failed; running -> queued again when its instance died. */
    status: text('status').$type<'queued' | 'running' | 'completed' | 'failed'>().notNull(),
    result: jsonb('result'),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
    /** Who submitted it (the caller's client id): per-client caps and fair scheduling. Null before it was kept. */
    clientId: text('client_id'),
    /**
     * The principal that submitted it (an API key's id, `admin`, `local` or `anonymous`): only it,
     * or an admin, can see the task. Null for tasks kept before owners were recorded (admins only).
     */
    owner: text('owner'),
    /** The instance running it, so a crashed instance's tasks can be found and recovered. */
    instanceId: text('instance_id'),
    /** Times it was started; a task whose instance keeps dying is failed instead of run forever. */
    attempts: integer('attempts').notNull().default(0),
  },
  (t) => [
    index('fk_dsl_tasks_finished_idx').on(t.finishedAt),
    // Unfinished tasks only: per-client counts, the scheduler's pick and recovery stay small scans.
    index('fk_dsl_tasks_pending_idx')
      .on(t.clientId, t.createdAt)
      .where(sql`${t.status} in ('queued', 'running')`),
    index('fk_dsl_tasks_client_started_idx').on(t.clientId, t.startedAt),
  ],
);

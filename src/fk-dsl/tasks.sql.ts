import { index, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Asynchronous FK-DSL executions. A task is written together with its job (one transaction), so
 * it survives restarts and any instance can report its status.
 */
export const fkDslTasks = pgTable(
  'fk_dsl_tasks',
  {
    id: uuid('id').primaryKey(),
    query: text('query').notNull(),
    /** queued -> running -> completed | failed */
    status: text('status').$type<'queued' | 'running' | 'completed' | 'failed'>().notNull(),
    result: jsonb('result'),
    error: jsonb('error').$type<{ code: string; message: string }>(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('fk_dsl_tasks_finished_idx').on(t.finishedAt)],
);

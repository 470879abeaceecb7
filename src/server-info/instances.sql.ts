import { index, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Every running Vigil process registers itself and heartbeats here, so any instance can say how
 * many peers share the database (and a crashed peer ages out instead of lingering).
 */
export const serviceInstances = pgTable(
  'service_instances',
  {
    id: uuid('id').primaryKey(),
    hostname: text('hostname').notNull(),
    pid: integer('pid').notNull(),
    version: text('version').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('service_instances_last_seen_idx').on(t.lastSeenAt)],
);

import { boolean, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { RearmState } from './detectors/rearm.ts';
import type { WatchdogName } from './registry.ts';

/**
 * One row per watchdog, shared by every instance: whether it is enabled (an operator's choice,
 * persisted), its health counters, and its re-arm memory. A check's findings, its events and this
 * row are written in one transaction that holds the row's lock, so two instances never emit the
 * same condition twice and the counters never lose an update.
 */
export const watchdogStates = pgTable('watchdog_states', {
  name: text('name').$type<WatchdogName>().primaryKey(),
  enabled: boolean('enabled').notNull().default(true),
  /** When it was last enabled or restarted (counters count from here). */
  since: timestamp('since', { withTimezone: true, mode: 'date' }).notNull(),
  updatedBy: text('updated_by'),
  /** Bumped by a restart: a check that began before it does not write its results. */
  generation: integer('generation').notNull().default(0),
  rearm: jsonb('rearm').$type<RearmState>().notNull(),
  checks: integer('checks').notNull().default(0),
  events: integer('events').notNull().default(0),
  errors: integer('errors').notNull().default(0),
  consecutiveFailures: integer('consecutive_failures').notNull().default(0),
  lastCheckAt: timestamp('last_check_at', { withTimezone: true, mode: 'date' }),
  lastCheckMs: integer('last_check_ms'),
  lastEventAt: timestamp('last_event_at', { withTimezone: true, mode: 'date' }),
  lastChecked: integer('last_checked').notNull().default(0),
  lastGaps: integer('last_gaps').notNull().default(0),
  lastError: text('last_error'),
});

import { index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { Severity } from './detectors/finding.ts';
import type { EventType, WatchdogName } from './registry.ts';

/** What an event is about, beyond its symbol (null for market-wide events such as an outage). */
export interface EventAsset {
  readonly symbol: string;
  /** `equity`, `crypto`, `fx`, ... */
  readonly assetType: string;
  readonly name?: string;
  readonly market?: string;
  readonly exchange?: string;
  readonly currency?: string;
  /** For pair findings (a correlation break): the two symbols. */
  readonly pair?: readonly [string, string];
}

/**
 * Every event a watchdog emitted, kept for the retention period. The id is time-sortable (see
 * event-id.ts), so "newest first" and cursors need no second column; `occurred_at` is what time
 * filters and retention read.
 */
export const watchdogEvents = pgTable(
  'watchdog_events',
  {
    id: text('id').primaryKey(),
    watchdog: text('watchdog').$type<WatchdogName>().notNull(),
    eventType: text('event_type').$type<EventType>().notNull(),
    severity: text('severity').$type<Severity>().notNull(),
    symbol: text('symbol'),
    asset: jsonb('asset').$type<EventAsset>(),
    description: text('description').notNull(),
    /** The measured values and the thresholds they were compared with (the detector's payload). */
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    occurredAt: timestamp('occurred_at', { withTimezone: true, mode: 'date' }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    index('watchdog_events_occurred_idx').on(t.occurredAt.desc()),
    // Each filter column with the id, so a filtered page is read in id order from its index.
    index('watchdog_events_severity_idx').on(t.severity, t.id.desc()),
    index('watchdog_events_type_idx').on(t.eventType, t.id.desc()),
    index('watchdog_events_symbol_idx').on(t.symbol, t.id.desc()),
    index('watchdog_events_watchdog_idx').on(t.watchdog, t.id.desc()),
  ],
);

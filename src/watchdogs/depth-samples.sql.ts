import { doublePrecision, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Order-book depth recorded by the liquidity watchdog: its baseline (the trailing average a live
 * book is compared with). One sample per book per spacing step, keyed by the step's start, so the
 * table stays bounded (window / spacing rows per book) and two instances cannot double a sample;
 * samples older than the window are deleted.
 */
export const watchdogDepthSamples = pgTable(
  'watchdog_depth_samples',
  {
    symbol: text('symbol').notNull(),
    venue: text('venue').notNull(),
    sampledAt: timestamp('sampled_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** Quote-currency value within the detector's band around mid (depthWithinBand). */
    depth: doublePrecision('depth').notNull(),
  },
  (t) => [primaryKey({ columns: [t.symbol, t.venue, t.sampledAt] })],
);

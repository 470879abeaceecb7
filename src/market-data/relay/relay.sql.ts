import { jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Price feeds shared by the instances on one Postgres database (feed-coordinator.ts): who polls or
 * streams each feed upstream, and who wants it.
 */

/** The instances that take part: each heartbeats; the live ones share the feeds fairly. */
export const priceRelayInstances = pgTable('price_relay_instances', {
  instance: text('instance').primaryKey(),
  seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/** One lease per feed: its owner polls or streams it upstream and relays its ticks, until `expires_at`. */
export const priceFeedLeases = pgTable('price_feed_leases', {
  feedKey: text('feed_key').primaryKey(),
  owner: text('owner').notNull(),
  acquiredAt: timestamp('acquired_at', { withTimezone: true, mode: 'date' }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/** Which instance wants which feed (it has subscribers of it), as of `seen_at`. */
export const priceFeedInterest = pgTable(
  'price_feed_interest',
  {
    feedKey: text('feed_key').notNull(),
    instance: text('instance').notNull(),
    /** The instrument, for an owner that has no subscriber of it itself. */
    instrument: jsonb('instrument').$type<Record<string, unknown>>().notNull(),
    seenAt: timestamp('seen_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.feedKey, t.instance] })],
);

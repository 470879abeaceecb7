import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Answers one instance fetched upstream, for the other instances on the same Postgres database
 * (shared-cache.ts). Postgres only: the embedded database serves one process, whose own cache is
 * enough. Times are the database's, so the instances' clocks never have to agree on an age.
 */
export const marketDataSharedCache = pgTable(
  'market_data_shared_cache',
  {
    /** Format, provider configuration and the local cache's key (shared-cache.rules.ts). */
    key: text('key').primaryKey(),
    /** The answer and its lineage as JSON (shared-cache.codec.ts). */
    payload: text('payload').notNull(),
    /** Bytes of key and payload, for the table's byte bound. */
    bytes: integer('bytes').notNull(),
    /** Lifetime the writer gave the answer (ttl.ts), from `written_at`. */
    ttlMs: integer('ttl_ms').notNull(),
    /** When the answer was obtained upstream, in database time. */
    writtenAt: timestamp('written_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('market_data_shared_cache_expires_idx').on(t.expiresAt)],
);

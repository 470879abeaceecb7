import { index, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import type { Scope } from '../platform/access/principal.ts';

/**
 * API keys. Only the SHA-256 of a key is kept (see api-key.ts), never the key: a copy of the
 * database lets nobody call Vigil. Revoked keys stay, so a listing shows who had access and when.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    /** The public 8 characters after `vgl_`, to recognise a key without its secret. */
    prefix: text('prefix').notNull().unique('api_keys_prefix_key'),
    /** SHA-256 of the whole key (hex): what a presented key is looked up by. */
    hash: text('hash').notNull().unique('api_keys_hash_key'),
    /** The scopes as granted; the implied lower ones are added when the key is verified. */
    scopes: text('scopes').array().$type<Scope[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** The principal that created it (an API key's id, `admin`, `local` or `anonymous`). */
    createdBy: text('created_by').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** Updated at most once a minute per key, off the request path. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('api_keys_created_idx').on(t.createdAt)],
);

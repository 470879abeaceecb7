import { and, desc, eq, gte, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '../platform/db/database.ts';
import { apiKeys } from './api-keys.sql.ts';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** A key as anyone may see it: everything but its hash (the secret is never stored at all). */
export type ApiKeyRecord = Omit<ApiKeyRow, 'hash'>;

/** The columns of a record, so no query that answers a caller ever reads the hash. */
const RECORD = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  createdAt: apiKeys.createdAt,
  createdBy: apiKeys.createdBy,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<ApiKeyRecord> {
  const [record] = await db.insert(apiKeys).values(row).returning(RECORD);
  return record!;
}

/** The key a presented secret hashes to (what verification needs; never returned to a caller). */
export async function findApiKeyByHash(db: Executor, hash: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await db.select(RECORD).from(apiKeys).where(eq(apiKeys.hash, hash));
  return row;
}

export async function findApiKey(db: Executor, id: string): Promise<ApiKeyRecord | undefined> {
  const [row] = await db.select(RECORD).from(apiKeys).where(eq(apiKeys.id, id));
  return row;
}

/** Every key, newest first. */
export async function listApiKeys(db: Executor): Promise<ApiKeyRecord[]> {
  return db.select(RECORD).from(apiKeys).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** Sets `revoked_at` unless it is set already; undefined when there was nothing to revoke. */
export async function revokeApiKey(db: Executor, id: string, at: Date): Promise<ApiKeyRecord | undefined> {
  const [row] = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning(RECORD);
  return row;
}

/**
 * Records a use. Never moves `last_used_at` backwards, so instances whose clocks or writes
 * interleave leave the latest use.
 */
export async function touchApiKey(db: Executor, id: string, at: Date): Promise<void> {
  await db
    .update(apiKeys)
    .set({ lastUsedAt: at })
    .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, at))));
}

/** The public prefix of every key (to tell a possible key from a guess without a lookup). */
export async function listApiKeyPrefixes(db: Executor): Promise<string[]> {
  const rows = await db.select({ prefix: apiKeys.prefix }).from(apiKeys);
  return rows.map((row) => row.prefix);
}

/** Ids of keys revoked at or after `since`. */
export async function listRevokedSince(db: Executor, since: Date): Promise<string[]> {
  const rows = await db.select({ id: apiKeys.id }).from(apiKeys).where(gte(apiKeys.revokedAt, since));
  return rows.map((row) => row.id);
}

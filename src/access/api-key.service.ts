import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { KeyCheck } from '../platform/access/authenticator.ts';
import {
  effectiveScopes,
  type Principal,
  requireScope,
  SCOPES,
  type Scope,
} from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import { type DatabaseHandle, notify } from '../platform/db/database.ts';
import { sqlState } from '../platform/db/db-errors.ts';
import { NotFoundError, ValidationError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { API_KEY_PREFIX_LENGTH, API_KEY_TAG, generateApiKey, looksLikeApiKey, sha256 } from './api-key.ts';
import {
  type ApiKeyRecord,
  findApiKey,
  findApiKeyByHash,
  insertApiKey,
  listApiKeyPrefixes,
  listApiKeys,
  listRevokedSince,
  revokeApiKey,
  touchApiKey,
} from './api-keys.repository.ts';

export type { ApiKeyRecord } from './api-keys.repository.ts';

/** NOTIFY channel on which a revocation reaches every instance sharing the database. */
export const API_KEYS_CHANNEL = 'vigil_api_keys';
export const MAX_KEY_NAME_LENGTH = 100;
/** `last_used_at` is a hint for people, not an audit log: one write a minute per key is plenty. */
const TOUCH_INTERVAL_MS = 60_000;
/** Revocations already announced to this instance's listeners (a local revoke comes back by LISTEN). */
const MAX_REMEMBERED_REVOCATIONS = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApiKeyServiceOptions {
  readonly database: DatabaseHandle;
  readonly clock: Clock;
  readonly logger: Logger;
  /** ADMIN_API_KEY: a bootstrap key with every scope, never stored. */
  readonly adminApiKey?: string | undefined;
  /** How long a found key is trusted without asking the database again (missed NOTIFYs heal by then). */
  readonly cacheTtlMs?: number;
  readonly maxCached?: number;
}

export interface CreateApiKeyInput {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: Date | null | undefined;
}

export interface CreatedApiKey {
  readonly key: ApiKeyRecord;
  /** The whole key, returned once: only its hash is kept. */
  readonly secret: string;
}

/** A found key as verification needs it, with its answer built once (a cached verify allocates nothing). */
interface CachedKey {
  readonly id: string;
  readonly cachedUntil: number;
  readonly revoked: boolean;
  readonly expiresAtMs: number;
  readonly valid: KeyCheck;
  lastUsedMs: number;
}

const INVALID: KeyCheck = { ok: false, reason: 'invalid' };
const REVOKED: KeyCheck = { ok: false, reason: 'revoked' };
const EXPIRED: KeyCheck = { ok: false, reason: 'expired' };
const BOOTSTRAP: KeyCheck = {
  ok: true,
  principal: { kind: 'bootstrap', id: 'admin', name: 'ADMIN_API_KEY', scopes: effectiveScopes(['admin']) },
};

/**
 * API keys: issued by admins, stored hashed, verified on every request. Verification is cached
 * briefly per key, and a revocation reaches every instance at once through Postgres NOTIFY; the
 * cache's time-to-live bounds how long a NOTIFY missed during a reconnect can leave a key working.
 */
export class ApiKeyService {
  readonly #database: DatabaseHandle;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #adminDigest: Buffer | undefined;
  readonly #cacheTtlMs: number;
  readonly #maxCached: number;
  /** Public prefixes of every key (revoked ones too): what a genuine key can look like. */
  readonly #prefixes = new Set<string>();
  /** By hash, oldest first. Only keys found in the database enter, so guesses cannot fill it. */
  readonly #cache = new Map<string, CachedKey>();
  readonly #loading = new Map<string, Promise<CachedKey | undefined>>();
  /** Bumped by every revocation: a lookup that overlapped one does not cache what it read. */
  #epoch = 0;
  readonly #announced = new Set<string>();
  readonly #listeners = new Set<(keyId: string) => void>();
  readonly #touches = new Set<Promise<void>>();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: ApiKeyServiceOptions) {
    this.#database = options.database;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#adminDigest = options.adminApiKey ? sha256(options.adminApiKey) : undefined;
    this.#cacheTtlMs = options.cacheTtlMs ?? 10_000;
    this.#maxCached = options.maxCached ?? 10_000;
  }

  /** Keys held in the verification cache now. */
  get cacheSize(): number {
    return this.#cache.size;
  }

  /** What a presented secret is: ADMIN_API_KEY, a valid key's principal, or why it is refused. */
  async verify(secret: string): Promise<KeyCheck> {
    // Digests have one length whatever was presented, so the comparison takes constant time.
    const digest = sha256(secret);
    if (this.#adminDigest && timingSafeEqual(digest, this.#adminDigest)) return BOOTSTRAP;
    if (!looksLikeApiKey(secret)) return INVALID;
    const hash = digest.toString('hex');
    const now = this.#clock.now().getTime();
    let entry = this.#cache.get(hash);
    if (!entry || entry.cachedUntil <= now) {
      entry = await this.#lookUp(hash, now);
      if (!entry) return INVALID;
    }
    if (entry.revoked) return REVOKED;
    if (now >= entry.expiresAtMs) return EXPIRED;
    if (now - entry.lastUsedMs >= TOUCH_INTERVAL_MS) this.#touch(entry, now);
    return entry.valid;
  }

  /**
   * Whether `secret` may be a real key, from memory alone: ADMIN_API_KEY, a key verified recently,
   * or a well-formed key whose public prefix is a real key's. Lets real keys through from an
   * address locked out by others' failed guesses, while random guesses still get no lookup.
   */
  mayBeGenuine(secret: string): boolean {
    if (
      looksLikeApiKey(secret) &&
      this.#prefixes.has(secret.slice(API_KEY_TAG.length, API_KEY_TAG.length + API_KEY_PREFIX_LENGTH))
    ) {
      return true;
    }
    const digest = sha256(secret);
    if (this.#adminDigest && timingSafeEqual(digest, this.#adminDigest)) return true;
    const entry = this.#cache.get(digest.toString('hex'));
    const now = this.#clock.now().getTime();
    return entry !== undefined && entry.cachedUntil > now && !entry.revoked && now < entry.expiresAtMs;
  }

  async create(input: CreateApiKeyInput, by: Principal): Promise<CreatedApiKey> {
    requireScope(by, 'admin', 'createApiKey');
    const name = checkName(input.name);
    const scopes = checkScopes(input.scopes);
    const now = this.#clock.now();
    const expiresAt = checkExpiry(input.expiresAt, now);
    for (let attempt = 1; ; attempt++) {
      const { secret, prefix, hash } = generateApiKey();
      try {
        const key = await insertApiKey(this.#database.db, {
          id: randomUUID(),
          name,
          prefix,
          hash,
          scopes,
          createdAt: now,
          createdBy: by.id,
          expiresAt,
          lastUsedAt: null,
          revokedAt: null,
        });
        this.#logger.info({ keyId: key.id, name, scopes, by: by.id }, 'API key created');
        this.#prefixes.add(prefix);
        await notify(this.#database.db, API_KEYS_CHANNEL, JSON.stringify({ created: prefix })).catch(
          (error: unknown) => this.#logger.warn({ err: error }, 'could not announce a new API key'),
        );
        return { key, secret };
      } catch (error) {
        // Two keys drawing the same public prefix is rare but possible; a new draw settles it.
        if (sqlState(error) !== '23505' || attempt >= 3) throw error;
      }
    }
  }

  /** Every key, newest first; the secret is never kept and the hash never leaves. */
  async list(by: Principal): Promise<ApiKeyRecord[]> {
    requireScope(by, 'admin', 'apiKeys');
    return listApiKeys(this.#database.db);
  }

  /** Revokes a key for good, on every instance; revoking it again changes nothing. */
  async revoke(id: string, by: Principal): Promise<ApiKeyRecord> {
    requireScope(by, 'admin', 'revokeApiKey');
    if (!UUID.test(id)) throw new NotFoundError('apiKey', id.length > 64 ? `${id.slice(0, 64)}…` : id);
    const now = this.#clock.now();
    const { record, revokedNow } = await this.#database.db.transaction(async (tx) => {
      const revoked = await revokeApiKey(tx, id, now);
      if (revoked) {
        await notify(tx, API_KEYS_CHANNEL, JSON.stringify({ revoked: revoked.id }));
        return { record: revoked, revokedNow: true };
      }
      return { record: await findApiKey(tx, id), revokedNow: false };
    });
    if (!record) throw new NotFoundError('apiKey', id);
    if (revokedNow) {
      this.#logger.info({ keyId: record.id, by: by.id }, 'API key revoked');
      this.#revoked(record.id);
    }
    return record;
  }

  /**
   * `listener` hears every revocation, made here or on another instance, once per key (to end
   * what a revoked key holds open). Returns the unsubscribe.
   */
  onRevoked(listener: (keyId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Listens for keys created and revoked by other instances. Each time listening (re)starts after
   * the first, what may have been missed meanwhile is caught up: the cache is dropped and the
   * revocations since the previous start are announced (their open connections end).
   */
  async start(): Promise<void> {
    if (this.#unlisten) return;
    for (const prefix of await listApiKeyPrefixes(this.#database.db)) this.#prefixes.add(prefix);
    let listeningSince: Date | undefined;
    this.#unlisten = await this.#database.listen(
      API_KEYS_CHANNEL,
      (payload) => this.#heard(payload),
      () => {
        const previous = listeningSince;
        listeningSince = this.#clock.now();
        if (previous) void this.#catchUp(previous);
      },
    );
  }

  async #catchUp(since: Date): Promise<void> {
    this.#epoch++;
    this.#cache.clear();
    try {
      for (const prefix of await listApiKeyPrefixes(this.#database.db)) this.#prefixes.add(prefix);
      // A minute of slack for clocks: announcing a revocation twice is harmless.
      const ids = await listRevokedSince(this.#database.db, new Date(since.getTime() - 60_000));
      for (const id of ids) this.#revoked(id);
      this.#logger.info({ revoked: ids.length }, 'API key notifications resumed; caught up');
    } catch (error) {
      this.#logger.warn({ err: error }, 'could not catch up on API key changes after a reconnect');
    }
  }

  /** Stops listening and waits for the `last_used_at` writes under way. */
  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.().catch((error: unknown) => this.#logger.warn({ err: error }, 'could not unlisten'));
    await Promise.allSettled([...this.#touches]);
  }

  /** One database lookup per hash at a time: a burst of requests with one key waits for the same answer. */
  #lookUp(hash: string, now: number): Promise<CachedKey | undefined> {
    let loading = this.#loading.get(hash);
    if (!loading) {
      loading = this.#load(hash, now).finally(() => this.#loading.delete(hash));
      this.#loading.set(hash, loading);
    }
    return loading;
  }

  async #load(hash: string, now: number): Promise<CachedKey | undefined> {
    const epoch = this.#epoch;
    const row = await findApiKeyByHash(this.#database.db, hash);
    if (!row) return undefined;
    const entry: CachedKey = {
      id: row.id,
      cachedUntil: now + this.#cacheTtlMs,
      revoked: row.revokedAt !== null,
      expiresAtMs: row.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY,
      valid: {
        ok: true,
        principal: {
          kind: 'key',
          id: row.id,
          name: row.name,
          scopes: effectiveScopes(row.scopes),
          expiresAt: row.expiresAt,
        },
      },
      lastUsedMs: row.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY,
    };
    // A revocation heard while this row was read may be newer than the row: answer, but do not keep.
    if (epoch === this.#epoch) {
      this.#cache.delete(hash);
      if (this.#cache.size >= this.#maxCached) this.#cache.delete(this.#cache.keys().next().value!);
      this.#cache.set(hash, entry);
    }
    return entry;
  }

  #touch(entry: CachedKey, now: number): void {
    entry.lastUsedMs = now;
    const write = touchApiKey(this.#database.db, entry.id, new Date(now))
      .catch((error: unknown) =>
        this.#logger.debug({ err: error, keyId: entry.id }, 'could not record the use of an API key'),
      )
      .finally(() => this.#touches.delete(write));
    this.#touches.add(write);
  }

  #heard(payload: string): void {
    let id: unknown;
    let created: unknown;
    try {
      const message = JSON.parse(payload) as { revoked?: unknown; created?: unknown } | null;
      id = message?.revoked;
      created = message?.created;
    } catch {
      id = undefined;
    }
    if (typeof created === 'string' && created.length === API_KEY_PREFIX_LENGTH) {
      this.#prefixes.add(created);
      return;
    }
    if (typeof id !== 'string' || id.length === 0) {
      this.#logger.warn({ payload: payload.slice(0, 200) }, 'ignored a malformed API key notification');
      return;
    }
    this.#revoked(id);
  }

  #revoked(id: string): void {
    this.#epoch++;
    // A scan, but only on a revocation (rare), which keeps the cache one map keyed by hash.
    for (const [hash, entry] of this.#cache) if (entry.id === id) this.#cache.delete(hash);
    if (this.#announced.has(id)) return;
    if (this.#announced.size >= MAX_REMEMBERED_REVOCATIONS) {
      this.#announced.delete(this.#announced.values().next().value!);
    }
    this.#announced.add(id);
    for (const listener of this.#listeners) {
      try {
        listener(id);
      } catch (error) {
        this.#logger.warn({ err: error, keyId: id }, 'an API key revocation listener failed');
      }
    }
  }
}

function checkName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw new ValidationError('name', 'must not be empty');
  if ([...name].length > MAX_KEY_NAME_LENGTH) {
    throw new ValidationError('name', `must be at most ${MAX_KEY_NAME_LENGTH} characters`);
  }
  if (/[\p{Cc}\p{Cf}]/u.test(name)) {
    throw new ValidationError('name', 'must not contain control or invisible formatting characters');
  }
  return name;
}

function checkScopes(raw: readonly string[]): Scope[] {
  if (raw.length === 0) {
    throw new ValidationError('scopes', `at least one scope is needed (${SCOPES.join(', ')})`);
  }
  const scopes: Scope[] = [];
  for (const scope of raw) {
    if (!(SCOPES as readonly string[]).includes(scope)) {
      const shown = JSON.stringify(scope.length > 20 ? `${scope.slice(0, 20)}…` : scope);
      throw new ValidationError('scopes', `unknown scope ${shown}: use ${SCOPES.join(', ')}`);
    }
    if (!scopes.includes(scope as Scope)) scopes.push(scope as Scope);
  }
  return scopes;
}

function checkExpiry(expiresAt: Date | null | undefined, now: Date): Date | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  if (Number.isNaN(expiresAt.getTime())) throw new ValidationError('expiresAt', 'must be a valid date');
  if (expiresAt.getTime() <= now.getTime()) throw new ValidationError('expiresAt', 'must be in the future');
  return expiresAt;
}

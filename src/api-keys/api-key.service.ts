import { randomUUID, timingSafeEqual } from 'node:crypto';
import type { KeyCheck } from '../platform/access/authenticator.ts';
import { effectiveScopes, type Principal, requireScope } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import { type DatabaseHandle, notify } from '../platform/db/database.ts';
import { sqlState } from '../platform/db/db-errors.ts';
import { NotFoundError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import {
  API_KEYS_CHANNEL,
  checkExpiry,
  checkName,
  checkScopes,
  isKeyId,
  noticeText,
  readNotice,
} from './api-key.rules.ts';
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
import { RevocationAnnouncer } from './revocations.ts';
import { type VerifiedKey, VerifiedKeys } from './verified-keys.ts';

export { API_KEYS_CHANNEL } from './api-key.rules.ts';
export type { ApiKeyRecord } from './api-keys.repository.ts';

/** `last_used_at` is a hint for people, not an audit log: one write a minute per key is plenty. */
const TOUCH_INTERVAL_MS = 60_000;

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
  /** Public prefixes of every key (revoked ones too): what a genuine key can look like. */
  readonly #prefixes = new Set<string>();
  readonly #keys: VerifiedKeys;
  readonly #revocations: RevocationAnnouncer;
  readonly #touches = new Set<Promise<void>>();
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: ApiKeyServiceOptions) {
    this.#database = options.database;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#adminDigest = options.adminApiKey ? sha256(options.adminApiKey) : undefined;
    this.#keys = new VerifiedKeys(
      (hash) => findApiKeyByHash(this.#database.db, hash),
      options.cacheTtlMs ?? 10_000,
      options.maxCached ?? 10_000,
    );
    this.#revocations = new RevocationAnnouncer(options.logger);
  }

  /** Keys held in the verification cache now. */
  get cacheSize(): number {
    return this.#keys.size;
  }

  /** What a presented secret is: ADMIN_API_KEY, a valid key's principal, or why it is refused. */
  async verify(secret: string): Promise<KeyCheck> {
    // Digests have one length whatever was presented, so the comparison takes constant time.
    const digest = sha256(secret);
    if (this.#adminDigest && timingSafeEqual(digest, this.#adminDigest)) return BOOTSTRAP;
    if (!looksLikeApiKey(secret)) return INVALID;
    const hash = digest.toString('hex');
    const now = this.#clock.now().getTime();
    const entry = this.#keys.fresh(hash, now) ?? (await this.#keys.lookUp(hash, now));
    if (!entry) return INVALID;
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
    const now = this.#clock.now().getTime();
    const entry = this.#keys.fresh(digest.toString('hex'), now);
    return entry !== undefined && !entry.revoked && now < entry.expiresAtMs;
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
        await notify(this.#database.db, API_KEYS_CHANNEL, noticeText({ created: prefix })).catch(
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
    if (!isKeyId(id)) throw new NotFoundError('apiKey', id.length > 64 ? `${id.slice(0, 64)}…` : id);
    const now = this.#clock.now();
    const { record, revokedNow } = await this.#database.db.transaction(async (tx) => {
      const revoked = await revokeApiKey(tx, id, now);
      if (revoked) {
        await notify(tx, API_KEYS_CHANNEL, noticeText({ revoked: revoked.id }));
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
    return this.#revocations.listen(listener);
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
    this.#keys.clear();
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

  #touch(entry: VerifiedKey, now: number): void {
    entry.lastUsedMs = now;
    const write = touchApiKey(this.#database.db, entry.id, new Date(now))
      .catch((error: unknown) =>
        this.#logger.debug({ err: error, keyId: entry.id }, 'could not record the use of an API key'),
      )
      .finally(() => this.#touches.delete(write));
    this.#touches.add(write);
  }

  #heard(payload: string): void {
    const notice = readNotice(payload);
    if (notice === undefined) {
      this.#logger.warn({ payload: payload.slice(0, 200) }, 'ignored a malformed API key notification');
    } else if ('created' in notice) {
      this.#prefixes.add(notice.created);
    } else {
      this.#revoked(notice.revoked);
    }
  }

  #revoked(id: string): void {
    this.#keys.forget(id);
    this.#revocations.announce(id);
  }
}

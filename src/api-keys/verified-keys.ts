import type { KeyCheck } from '../platform/access/authenticator.ts';
import { effectiveScopes } from '../platform/access/principal.ts';
import type { ApiKeyRecord } from './api-keys.repository.ts';

/** A found key as verification needs it, with its answer built once (a cached verify allocates nothing). */
export interface VerifiedKey {
  readonly id: string;
  readonly cachedUntil: number;
  readonly revoked: boolean;
  readonly expiresAtMs: number;
  readonly valid: KeyCheck;
  lastUsedMs: number;
}

/**
 * Keys found in the database, by hash, each trusted for `ttlMs` before it is read again. Only keys
 * that exist enter, so guesses cannot fill it; past `maxKeys` the oldest entry leaves. One lookup
 * per hash runs at a time: a burst of requests with one key waits for the same answer. A lookup
 * that overlapped a revocation (or a `clear`) answers but is not kept, since what it read may
 * predate the revocation.
 */
export class VerifiedKeys {
  /** Oldest first. */
  readonly #keys = new Map<string, VerifiedKey>();
  readonly #loading = new Map<string, Promise<VerifiedKey | undefined>>();
  /** Bumped by every revocation and clear. */
  #epoch = 0;

  constructor(
    private readonly find: (hash: string) => Promise<ApiKeyRecord | undefined>,
    private readonly ttlMs: number,
    private readonly maxKeys: number,
  ) {}

  get size(): number {
    return this.#keys.size;
  }

  /** The key with this hash, when it is held and still trusted at `now`. */
  fresh(hash: string, now: number): VerifiedKey | undefined {
    const entry = this.#keys.get(hash);
    return entry !== undefined && entry.cachedUntil > now ? entry : undefined;
  }

  /** Reads the key with this hash from the database (undefined: no such key). */
  lookUp(hash: string, now: number): Promise<VerifiedKey | undefined> {
    let loading = this.#loading.get(hash);
    if (!loading) {
      loading = this.#load(hash, now).finally(() => this.#loading.delete(hash));
      this.#loading.set(hash, loading);
    }
    return loading;
  }

  /** Drops the key with this id (revoked). A scan, but revocations are rare and the map stays keyed by hash. */
  forget(id: string): void {
    this.#epoch++;
    for (const [hash, entry] of this.#keys) if (entry.id === id) this.#keys.delete(hash);
  }

  clear(): void {
    this.#epoch++;
    this.#keys.clear();
  }

  async #load(hash: string, now: number): Promise<VerifiedKey | undefined> {
    const epoch = this.#epoch;
    const row = await this.find(hash);
    if (!row) return undefined;
    const entry: VerifiedKey = {
      id: row.id,
      cachedUntil: now + this.ttlMs,
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
    if (epoch === this.#epoch) {
      this.#keys.delete(hash);
      if (this.#keys.size >= this.maxKeys) this.#keys.delete(this.#keys.keys().next().value!);
      this.#keys.set(hash, entry);
    }
    return entry;
  }
}

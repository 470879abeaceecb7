import { estimateBytes } from './size.ts';

/**
 * In-process cache with request coalescing: concurrent requests for the same key share one
 * upstream call, and every answer says whether it came from the cache (sessions count hits).
 * Entries expire by a per-value TTL and are bounded in bytes (estimated) and in count: the least
 * recently used go first, and an answer larger than the whole budget is served but not kept, so no
 * sequence of requests can make the cache grow past its bound.
 */
export interface Cached<T> {
  readonly value: T;
  readonly hit: boolean;
  /** Age of the cached answer (0 for a fresh load). */
  readonly ageMs: number;
  readonly ttlMs: number;
}

export interface CacheOptions {
  /** Upper bound of the estimated size of every entry together. */
  readonly maxBytes?: number;
  readonly maxEntries?: number;
  /** Estimated heap size of a value (see size.ts). */
  readonly sizeOf?: (value: unknown) => number;
}

export interface LoadOptions {
  /**
   * Runs only when this call is about to start an upstream load (not on a hit, not when joining
   * a load under way); throwing refuses this caller alone, before anything is shared.
   */
  readonly beforeLoad?: () => void;
}

interface Entry {
  readonly value: unknown;
  readonly storedAt: number;
  readonly ttlMs: number;
  readonly bytes: number;
}

export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;
export const DEFAULT_CACHE_MAX_ENTRIES = 20_000;
/** Expired entries anywhere in the LRU order are dropped at most this often. */
const SWEEP_INTERVAL_MS = 60_000;

export class MarketDataCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<Entry>>();
  readonly #maxBytes: number;
  readonly #maxEntries: number;
  readonly #sizeOf: (value: unknown) => number;
  #bytes = 0;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #oversized = 0;
  #sweptAt: number;

  constructor(
    private readonly now: () => number,
    options: CacheOptions = {},
  ) {
    this.#maxBytes = options.maxBytes ?? DEFAULT_CACHE_MAX_BYTES;
    this.#maxEntries = options.maxEntries ?? DEFAULT_CACHE_MAX_ENTRIES;
    this.#sizeOf = options.sizeOf ?? estimateBytes;
    this.#sweptAt = now();
  }

  async getOrLoad<T>(
    key: string,
    load: () => Promise<T>,
    ttl: (value: T) => number,
    options: LoadOptions = {},
  ): Promise<Cached<T>> {
    const now = this.now();
    const entry = this.#entries.get(key);
    if (entry && now - entry.storedAt < entry.ttlMs) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#hits++;
      return { value: entry.value as T, hit: true, ageMs: now - entry.storedAt, ttlMs: entry.ttlMs };
    }
    // An expired entry stays until the load replaces it (lastKnown reads it meanwhile).
    let pending = this.#inFlight.get(key);
    const joined = pending !== undefined;
    if (!pending) {
      options.beforeLoad?.();
      this.#misses++;
      pending = load().then((value) => {
        const stored: Entry = {
          value,
          storedAt: this.now(),
          ttlMs: Math.max(0, ttl(value)),
          bytes: key.length * 2 + this.#sizeOf(value),
        };
        if (stored.ttlMs > 0) this.#store(key, stored);
        return stored;
      });
      this.#inFlight.set(key, pending);
      const clear = () => this.#inFlight.delete(key);
      pending.then(clear, clear);
    } else {
      this.#hits++;
    }
    const loaded = await pending;
    // A request that joined an in-flight load was answered without its own upstream call.
    return {
      value: loaded.value as T,
      hit: joined,
      ageMs: joined ? this.now() - loaded.storedAt : 0,
      ttlMs: loaded.ttlMs,
    };
  }

  /**
   * The value kept under `key` whatever its age: fresh, or expired and not yet replaced, swept or
   * evicted (an expired entry stays until a load replaces it or the sweep drops it). Loads nothing
   * and counts neither a hit nor a miss: for a reader that needs to know what the answer said (a
   * symbol's name, that it has a price), not what it says now.
   */
  lastKnown(key: string): unknown {
    return this.#entries.get(key)?.value;
  }

  /** Whether `key` would be answered without a load: a fresh entry, or a load already under way. */
  has(key: string): boolean {
    const entry = this.#entries.get(key);
    return (entry !== undefined && this.now() - entry.storedAt < entry.ttlMs) || this.#inFlight.has(key);
  }

  /**
   * Keeps a value obtained elsewhere (another instance's answer, shared-cache.ts) as if it had been
   * stored `ageMs` ago with lifetime `ttlMs`: it expires when it would have where it was fetched.
   */
  put(key: string, value: unknown, ttlMs: number, ageMs: number): void {
    const storedAt = this.now() - Math.max(0, ageMs);
    if (ttlMs <= ageMs) return;
    this.#store(key, { value, storedAt, ttlMs, bytes: key.length * 2 + this.#sizeOf(value) });
  }

  stats() {
    return {
      entries: this.#entries.size,
      bytes: this.#bytes,
      maxBytes: this.#maxBytes,
      inFlight: this.#inFlight.size,
      hits: this.#hits,
      misses: this.#misses,
      evictions: this.#evictions,
      /** Answers served but not kept because each alone was over the byte bound. */
      oversized: this.#oversized,
    };
  }

  #store(key: string, entry: Entry): void {
    const previous = this.#entries.get(key);
    if (previous) this.#delete(key, previous);
    if (entry.bytes > this.#maxBytes) {
      this.#oversized++;
      return;
    }
    this.#sweepExpired(entry.storedAt);
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    while (this.#bytes > this.#maxBytes || this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.entries().next().value;
      if (oldest === undefined) break;
      this.#delete(oldest[0], oldest[1]);
      this.#evictions++;
    }
  }

  #sweepExpired(now: number): void {
    if (now - this.#sweptAt < SWEEP_INTERVAL_MS) return;
    this.#sweptAt = now;
    for (const [key, entry] of this.#entries) {
      if (now - entry.storedAt >= entry.ttlMs) this.#delete(key, entry);
    }
  }

  #delete(key: string, entry: Entry): void {
    if (this.#entries.get(key) !== entry) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}

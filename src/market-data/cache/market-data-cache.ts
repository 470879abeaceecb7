/**
 * In-process cache with request coalescing: concurrent requests for the same key share one
 * upstream call, and every answer says whether it came from the cache (sessions count hits).
 * Entries expire by a per-value TTL; the least recently used entries go first when full.
 */
export interface Cached<T> {
  readonly value: T;
  readonly hit: boolean;
  /** Age of the cached answer (0 for a fresh load). */
  readonly ageMs: number;
  readonly ttlMs: number;
}

interface Entry {
  readonly value: unknown;
  readonly storedAt: number;
  readonly ttlMs: number;
}

export class MarketDataCache {
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<Entry>>();
  #hits = 0;
  #misses = 0;

  constructor(
    private readonly now: () => number,
    private readonly maxEntries = 20_000,
  ) {}

  async getOrLoad<T>(key: string, load: () => Promise<T>, ttl: (value: T) => number): Promise<Cached<T>> {
    const now = this.now();
    const entry = this.#entries.get(key);
    if (entry && now - entry.storedAt < entry.ttlMs) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#hits++;
      return { value: entry.value as T, hit: true, ageMs: now - entry.storedAt, ttlMs: entry.ttlMs };
    }
    let pending = this.#inFlight.get(key);
    const joined = pending !== undefined;
    if (!pending) {
      this.#misses++;
      pending = load().then((value) => {
        const stored: Entry = { value, storedAt: this.now(), ttlMs: Math.max(0, ttl(value)) };
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

  stats() {
    return {
      entries: this.#entries.size,
      inFlight: this.#inFlight.size,
      hits: this.#hits,
      misses: this.#misses,
    };
  }

  #store(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    while (this.#entries.size > this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }
}

import type { Clock } from '../../platform/clock.ts';
import type { Database } from '../../platform/db/database.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import type { Uncached } from '../arbitration/arbiter.ts';
import { decodeShared, encodeShared, type SharedCodec } from './shared-cache.codec.ts';
import {
  findSharedEntry,
  type SharedRow,
  type SharedWrite,
  sweepSharedEntries,
  upsertSharedEntry,
} from './shared-cache.repository.ts';
import {
  type SweepState,
  sharedAge,
  sharedEntryBound,
  sharedEntryBytes,
  sharedFreshness,
  sharedKey,
  sweepDue,
} from './shared-cache.rules.ts';

/**
 * Quotes and bars one instance fetched upstream serve the other instances on the same Postgres
 * database: a local miss looks here (one lookup by primary key) before it goes upstream, and an
 * answer fetched upstream is written here. Same lifetimes as the local cache (the writer's ttl.ts
 * lifetime; aged by the database's clock and by this instance's, whichever says older) and the same
 * byte bound, enforced by bounded sweeps that
 * follow writes; an entry over its share of the bound is not shared.
 *
 * Nothing here may slow or fail a read: writes are queued and run a few at a time (latest answer per
 * key, the queue bounded) while the request goes on; a lookup that fails or takes longer than
 * LOOKUP_DEADLINE_MS is a miss; after a failure the table is left alone for BACKOFF_MS, and an outage
 * is logged once (and once more when it ends).
 */
export type SharedCacheResult = 'hit' | 'miss' | 'stale' | 'write' | 'error';

export interface SharedCacheOptions {
  /** Bytes the table may hold together (the local cache's bound). */
  readonly maxBytes: number;
  readonly maxEntries: number;
  /** The configured providers in order: instances configured otherwise do not share (shared-cache.rules.ts). */
  readonly providerIds: readonly string[];
  /** Counts each lookup's result and each write (metrics). */
  readonly count?: (result: SharedCacheResult) => void;
}

/** A fresh shared answer, with its age and the lifetime its writer gave it. */
export interface SharedAnswer<T> {
  readonly answer: Uncached<T>;
  readonly ageMs: number;
  readonly ttlMs: number;
}

const LOOKUP_DEADLINE_MS = 1_000;
const BACKOFF_MS = 5_000;
const MAX_CONCURRENT_WRITES = 2;
const MAX_QUEUED_WRITES = 1_000;
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 2_000;

/** A lookup's outcome: the row, none under the key, or a failure (counted and logged where it happened). */
type Lookup = SharedRow | 'none' | 'failed';

type QueuedWrite = Omit<SharedWrite, 'ageMs'> & { readonly obtainedAt: number };

export class SharedMarketDataCache {
  readonly #lookups = new Map<string, Promise<Lookup>>();
  readonly #queue = new Map<string, QueuedWrite>();
  readonly #idleWaiters: Array<() => void> = [];
  readonly #entryBound: number;
  #running = 0;
  #sweepWanted = false;
  #sweep: SweepState = { sweptAt: undefined, bytesSince: 0, lastRunFull: false };
  #unavailableUntil = 0;
  #failing = false;
  #closed = false;
  #dropped = 0;
  #unreadableLogged = false;
  #oversized = 0;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: SharedCacheOptions,
  ) {
    this.#entryBound = sharedEntryBound(options.maxBytes);
  }

  /** The shared key of a local cache key, or undefined when that answer is not shared. */
  keyOf(localKey: string): string | undefined {
    return sharedKey(this.options.providerIds, localKey);
  }

  /** A fresh answer under `key` from another instance (or this one), or undefined: go upstream. */
  async find<T>(codec: SharedCodec<T>, key: string): Promise<SharedAnswer<T> | undefined> {
    if (this.#closed || this.#now() < this.#unavailableUntil) return undefined;
    let lookup = this.#lookups.get(key);
    if (!lookup) {
      // Concurrent local misses of one key share one lookup.
      lookup = this.#lookup(key);
      this.#lookups.set(key, lookup);
      const clear = () => this.#lookups.delete(key);
      lookup.then(clear, clear);
    }
    const row = await lookup;
    if (row === 'failed') return undefined;
    if (row === 'none') {
      this.#count('miss');
      return undefined;
    }
    // Stale by the database's clock: not worth reading.
    if (sharedFreshness(row.ageMs, row.ttlMs).state !== 'fresh') {
      this.#count('stale');
      return undefined;
    }
    const answer = decodeShared(codec, row.payload);
    if (!answer) {
      // A row this version cannot read (written by another, or damaged): a miss, overwritten soon.
      this.#count('error');
      if (!this.#unreadableLogged) {
        this.#unreadableLogged = true;
        this.logger.warn(
          { kind: codec.name },
          'a shared market-data cache row does not read back: treated as a miss',
        );
      }
      return undefined;
    }
    const age = sharedAge(row.ageMs, answer.lineage.retrievedAt.getTime(), this.#now());
    const freshness = sharedFreshness(age, row.ttlMs);
    if (freshness.state !== 'fresh') {
      this.#count('stale');
      return undefined;
    }
    this.#count('hit');
    return { answer, ageMs: freshness.ageMs, ttlMs: row.ttlMs };
  }

  /** Shares an answer just fetched upstream, in the background; `ttlMs` is its local lifetime. */
  share<T>(codec: SharedCodec<T>, key: string, answer: Uncached<T>, ttlMs: number): void {
    if (this.#closed || ttlMs <= 0 || this.#now() < this.#unavailableUntil) return;
    const payload = encodeShared(codec, answer);
    if (payload === undefined) return;
    const bytes = sharedEntryBytes(key, payload);
    if (bytes > this.#entryBound) {
      this.#oversized++;
      return;
    }
    if (!this.#queue.has(key) && this.#queue.size >= MAX_QUEUED_WRITES) {
      this.#dropped++;
      return;
    }
    this.#queue.set(key, { key, payload, bytes, ttlMs: Math.round(ttlMs), obtainedAt: this.#now() });
    this.#pump();
  }

  /** Resolves once no write is queued or running (tests; and the graceful stop). */
  idle(): Promise<void> {
    if (this.#running === 0 && this.#queue.size === 0 && !this.#sweepWanted) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops sharing: queued writes still run, new ones are not taken. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.idle();
  }

  stats() {
    return {
      queued: this.#queue.size,
      running: this.#running,
      /** Answers not shared because each alone was over the entry bound. */
      oversized: this.#oversized,
      /** Writes not queued because the queue was full. */
      dropped: this.#dropped,
      entryBound: this.#entryBound,
    };
  }

  async #lookup(key: string): Promise<Lookup> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`shared cache lookup took over ${LOOKUP_DEADLINE_MS} ms`)),
        LOOKUP_DEADLINE_MS,
      );
      timer.unref();
    });
    try {
      const row = await Promise.race([findSharedEntry(this.db, key), deadline]);
      this.#recovered();
      return row ?? 'none';
    } catch (error) {
      this.#count('error');
      this.#failed(error);
      return 'failed';
    } finally {
      clearTimeout(timer);
    }
  }

  #pump(): void {
    while (this.#running < MAX_CONCURRENT_WRITES) {
      const task = this.#nextTask();
      if (!task) break;
      this.#running++;
      task.finally(() => {
        this.#running--;
        this.#pump();
        if (this.#running === 0 && this.#queue.size === 0 && !this.#sweepWanted) {
          for (const resolve of this.#idleWaiters.splice(0)) resolve();
        }
      });
    }
  }

  #nextTask(): Promise<void> | undefined {
    if (this.#sweepWanted) {
      this.#sweepWanted = false;
      return this.#sweepOnce();
    }
    const next = this.#queue.values().next();
    if (next.done) return undefined;
    this.#queue.delete(next.value.key);
    return this.#write(next.value);
  }

  async #write(queued: QueuedWrite): Promise<void> {
    const { obtainedAt, ...write } = queued;
    try {
      await upsertSharedEntry(this.db, { ...write, ageMs: Math.max(0, this.#now() - obtainedAt) });
      this.#count('write');
      this.#recovered();
      this.#sweep = { ...this.#sweep, bytesSince: this.#sweep.bytesSince + write.bytes };
      if (sweepDue(this.#sweep, this.#now(), SWEEP_INTERVAL_MS, this.options.maxBytes)) {
        this.#sweepWanted = true;
      }
    } catch (error) {
      this.#count('error');
      this.#failed(error);
    }
  }

  async #sweepOnce(): Promise<void> {
    const sweptAt = this.#now();
    try {
      const deleted = await sweepSharedEntries(this.db, {
        maxBytes: this.options.maxBytes,
        maxEntries: this.options.maxEntries,
        batch: SWEEP_BATCH,
      });
      this.#sweep = { sweptAt, bytesSince: 0, lastRunFull: deleted >= SWEEP_BATCH };
    } catch (error) {
      this.#sweep = { ...this.#sweep, sweptAt };
      this.#count('error');
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    this.#unavailableUntil = this.#now() + BACKOFF_MS;
    if (this.#failing) return;
    this.#failing = true;
    this.logger.warn(
      { err: error },
      'shared market-data cache failed: answering from this instance and its providers alone for a while',
    );
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.logger.info('shared market-data cache answers again');
  }

  #count(result: SharedCacheResult): void {
    this.options.count?.(result);
  }

  #now(): number {
    return this.clock.now().getTime();
  }
}

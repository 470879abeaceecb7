import type { Clock } from '../../clock.ts';

export interface ApqStoreOptions {
  /** Documents held at most (APQ_MAX_ENTRIES). */
  readonly maxEntries: number;
  /** UTF-8 bytes of document text held at most, all entries together (APQ_MAX_BYTES). */
  readonly maxBytes: number;
  /** How long a document stays after it was last registered or used (APQ_TTL_SECONDS). */
  readonly ttlMs: number;
}

interface Entry {
  readonly document: string;
  readonly bytes: number;
  expiresAt: number;
}

/**
 * Documents that clients registered by hash (automatic persisted queries). Clients fill it, so it
 * is bounded by entries, bytes and age, and the least recently used go first; a document larger
 * than the whole byte bound is not kept (its client keeps sending it in full, which still works).
 */
export class ApqStore {
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(
    private readonly options: ApqStoreOptions,
    private readonly clock: Clock,
  ) {}

  get(hash: string): string | undefined {
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    const now = this.clock.now().getTime();
    if (entry.expiresAt <= now) {
      this.#drop(hash, entry);
      return undefined;
    }
    // Most recently used last, so eviction takes the first.
    this.#entries.delete(hash);
    this.#entries.set(hash, entry);
    entry.expiresAt = now + this.options.ttlMs;
    return entry.document;
  }

  set(hash: string, document: string): void {
    const bytes = Buffer.byteLength(document, 'utf8');
    const previous = this.#entries.get(hash);
    if (previous) this.#drop(hash, previous);
    if (this.options.maxEntries === 0 || bytes > this.options.maxBytes) return;
    this.#entries.set(hash, { document, bytes, expiresAt: this.clock.now().getTime() + this.options.ttlMs });
    this.#bytes += bytes;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= this.options.maxEntries && this.#bytes <= this.options.maxBytes) break;
      this.#drop(oldest, entry);
    }
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  #drop(hash: string, entry: Entry): void {
    this.#entries.delete(hash);
    this.#bytes -= entry.bytes;
  }
}

/**
 * One token bucket per client: `perMinute` calls at once, refilled evenly over a minute. Unlike the
 * providers' own buckets it never lends ahead: a refused call takes nothing, so a client that asks
 * too much is told when to come back instead of queueing debt that others would wait out.
 * Buckets that have refilled are forgotten, so memory follows the clients active in the last minute.
 */
export type Take = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

const MINUTE = 60_000;

export class ClientBuckets {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #perMs: number;
  #sweptAt: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number,
  ) {
    if (!(perMinute > 0)) throw new Error('perMinute must be positive');
    this.#perMs = perMinute / MINUTE;
    this.#sweptAt = now();
  }

  take(clientId: string): Take {
    const now = this.now();
    this.#sweep(now);
    const bucket = this.#buckets.get(clientId) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = this.#refilled(bucket, now);
    bucket.at = now;
    this.#buckets.set(clientId, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / this.#perMs) };
  }

  /** Clients with a bucket that is not full. */
  get size(): number {
    return this.#buckets.size;
  }

  #refilled(bucket: { tokens: number; at: number }, now: number): number {
    return Math.min(this.perMinute, bucket.tokens + Math.max(0, now - bucket.at) * this.#perMs);
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < MINUTE) return;
    this.#sweptAt = now;
    for (const [id, bucket] of this.#buckets) {
      if (this.#refilled(bucket, now) >= this.perMinute) this.#buckets.delete(id);
    }
  }
}

/**
 * Token bucket: `ratePerSecond` tokens sustained, at most `burst` held (a full bucket to start).
 * The one rate limit of the code base, taken in one of two ways depending on who waits (and a
 * third, `tryTakeAbove`, for work that may only use what the others leave spare):
 *
 * - `tryTake()` refuses when no token is there and the refusal costs nothing, so a client that keeps
 *   trying is told when to come back instead of being pushed further into debt (client limits:
 *   socket messages and subscribes, failed key attempts, upstream calls per client).
 * - `reserve()` books the next token even when it is still to come and returns how long the caller
 *   must wait for it (0 when one is available now), so concurrent callers queue fairly without a
 *   timer per request (Vigil's own calls to a provider). A caller that would wait longer than it can
 *   (`maxWaitMs`) books nothing, and one that gives up waiting hands its booking back (`giveBack`):
 *   otherwise abandoned bookings hold the upstream minutes ahead and every later caller waits them out.
 */
export type TokenTake = { readonly ok: true } | { readonly ok: false; readonly retryAfterMs: number };

export class TokenBucket {
  #tokens: number;
  #updatedAt: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(ratePerSecond > 0)) throw new Error('ratePerSecond must be positive');
    this.#tokens = burst;
    this.#updatedAt = now();
  }

  /** Takes a token when one is available; otherwise takes nothing and says when one will be. */
  tryTake(): TokenTake {
    return this.tryTakeAbove(0);
  }

  /**
   * Takes a token only when `keep` tokens still remain after it; otherwise takes nothing and says
   * when that will be (never, `Infinity`, when `keep` fills the whole burst). This is how work of
   * lower priority shares a bucket: it takes only what is spare, books nothing ahead (a booking
   * would make the callers that come first wait behind it) and leaves `keep` tokens for them.
   */
  tryTakeAbove(keep: number): TokenTake {
    this.#refill();
    if (this.#tokens >= 1 + keep) {
      this.#tokens -= 1;
      return { ok: true };
    }
    if (1 + keep > this.burst) return { ok: false, retryAfterMs: Number.POSITIVE_INFINITY };
    return { ok: false, retryAfterMs: Math.ceil(((1 + keep - this.#tokens) / this.ratePerSecond) * 1000) };
  }

  /** The wait for a token, booked; or, when that wait would exceed `maxWaitMs`, -wait unbooked. */
  reserve(maxWaitMs = Number.POSITIVE_INFINITY): number {
    this.#refill();
    const wait = this.#wait();
    if (wait > maxWaitMs) return -wait;
    this.#tokens -= 1;
    return wait;
  }

  /** Returns a token taken (or booked) for something that will not happen or turned out not to count. */
  giveBack(): void {
    this.#refill();
    this.#tokens = Math.min(this.burst, this.#tokens + 1);
  }

  /** Milliseconds until a token is available (0 when one is). */
  msUntilToken(): number {
    this.#refill();
    return this.#wait();
  }

  /** Whether the bucket has refilled to its burst (nothing taken is still outstanding). */
  isFull(): boolean {
    this.#refill();
    return this.#tokens >= this.burst;
  }

  #wait(): number {
    return this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) / this.ratePerSecond) * 1000);
  }

  #refill(): void {
    const now = this.now();
    // A clock set back adds nothing (and takes nothing away).
    const elapsed = Math.max(0, now - this.#updatedAt);
    this.#tokens = Math.min(this.burst, this.#tokens + (elapsed / 1000) * this.ratePerSecond);
    this.#updatedAt = now;
  }
}

/**
 * One token bucket per key (a client, an address), all with the same rate and burst. A key's bucket
 * is made full when the key is first seen, and forgotten once it has refilled (checked every
 * `sweepEveryMs`, by default the time an empty bucket takes to refill), so memory follows the keys
 * active in that time rather than every key ever seen.
 */
export class KeyedTokenBuckets {
  readonly #buckets = new Map<string, TokenBucket>();
  readonly #sweepEveryMs: number;
  #sweptAt: number;

  constructor(
    readonly ratePerSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
    sweepEveryMs?: number,
  ) {
    if (!(ratePerSecond > 0)) throw new Error('ratePerSecond must be positive');
    this.#sweepEveryMs = sweepEveryMs ?? (burst / ratePerSecond) * 1000;
    this.#sweptAt = now();
  }

  /** `TokenBucket.tryTake` on the key's bucket. */
  tryTake(key: string): TokenTake {
    this.#sweep();
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      bucket = new TokenBucket(this.ratePerSecond, this.burst, this.now);
      this.#buckets.set(key, bucket);
    }
    return bucket.tryTake();
  }

  /** Keys with a bucket (those seen since their bucket was last found full). */
  get size(): number {
    return this.#buckets.size;
  }

  #sweep(): void {
    const now = this.now();
    if (now - this.#sweptAt < this.#sweepEveryMs) return;
    this.#sweptAt = now;
    for (const [key, bucket] of this.#buckets) if (bucket.isFull()) this.#buckets.delete(key);
  }
}

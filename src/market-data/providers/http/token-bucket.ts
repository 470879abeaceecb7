/**
 * Token bucket: `ratePerSecond` sustained, `burst` at once. `take()` reserves a token and returns
 * how long the caller must wait for it (0 when one is available now), so concurrent callers queue
 * fairly without a timer per request. A caller that would wait longer than it can (`maxWaitMs`)
 * reserves nothing, and one that gives up waiting hands its reservation back (`refund`): otherwise
 * abandoned reservations book the upstream minutes ahead and every later caller waits for them.
 */
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

  /** The wait for a token, reserved; or, when that wait would exceed `maxWaitMs`, -wait unreserved. */
  take(maxWaitMs = Number.POSITIVE_INFINITY): number {
    this.#refill();
    const wait = this.#tokens >= 1 ? 0 : Math.ceil(((1 - this.#tokens) / this.ratePerSecond) * 1000);
    if (wait > maxWaitMs) return -wait;
    this.#tokens -= 1;
    return wait;
  }

  /** Returns a reservation that will not be used. */
  refund(): void {
    this.#refill();
    this.#tokens = Math.min(this.burst, this.#tokens + 1);
  }

  #refill(): void {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#updatedAt) / 1000) * this.ratePerSecond);
    this.#updatedAt = now;
  }
}

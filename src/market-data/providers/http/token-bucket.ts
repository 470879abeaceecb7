/**
 * Token bucket: `ratePerSecond` sustained, `burst` at once. `take()` reserves a token and returns
 * how long the caller must wait for it (0 when one is available now), so concurrent callers queue
 * fairly without a timer per request.
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

  take(): number {
    const now = this.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#updatedAt) / 1000) * this.ratePerSecond);
    this.#updatedAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.ratePerSecond) * 1000);
  }
}

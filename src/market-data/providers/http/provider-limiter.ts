import { TokenBucket } from '../../../platform/flow/token-bucket.ts';
import { callPriority } from '../../budget/call-priority.ts';
import { ProviderError } from '../provider-errors.ts';

export interface ProviderLimiterOptions {
  readonly provider: string;
  /** Requests per second allowed to this provider (sustained) and the burst above it. */
  readonly ratePerSecond: number;
  readonly burst: number;
  /** Tokens of the burst background work may not take (default: half the burst, rounded down). */
  readonly interactiveReserve?: number;
  /** Longest a call may wait for a token (the provider's own deadline); unbounded when absent. */
  readonly maxWaitMs?: number;
}

/**
 * One provider's rate limit, shared by everyone who calls it, interactive callers first.
 *
 * A client waits for its answer and the arbiter gives it up after a few seconds; background work
 * (the watchdogs' checks) comes back at its next cycle. With the bucket shared first come, first
 * served, checks that start together took a slow provider's whole budget (Alpha Vantage: a call
 * every 12 s) and every client call meanwhile was refused `rate_limited`. So:
 *
 * - interactive calls book the next token (`reserve`), waiting in turn when none is there;
 * - background calls take only spare tokens: one that leaves `interactiveReserve` tokens in the
 *   bucket, never booked ahead (`tryTakeAbove`), so they also wait behind every interactive
 *   booking. A background call that would not get a spare token before its deadline is skipped at
 *   once (`deferred`), costing nothing.
 *
 * A reserve rather than a priority queue alone: with a queue, a client arriving just after a
 * background call took the only token would still wait a whole refill (15 s at 4 a minute, past its
 * deadline); a reserved token is already there.
 */
export class ProviderLimiter {
  readonly #o: ProviderLimiterOptions;
  readonly #bucket: TokenBucket;
  readonly #reserve: number;

  constructor(options: ProviderLimiterOptions) {
    this.#o = options;
    this.#bucket = new TokenBucket(options.ratePerSecond, options.burst);
    this.#reserve = options.interactiveReserve ?? Math.floor(options.burst / 2);
    if (!Number.isInteger(this.#reserve) || this.#reserve < 0 || this.#reserve >= options.burst) {
      throw new Error(
        `${options.provider}: interactiveReserve must be a whole number from 0 to burst - 1 (${options.burst - 1}); got ${this.#reserve}`,
      );
    }
  }

  /** Tokens background work leaves to interactive callers. */
  get interactiveReserve(): number {
    return this.#reserve;
  }

  /** Waits for this caller's turn (by the current call priority), or throws why it has none. */
  take(signal: AbortSignal): Promise<void> {
    return callPriority() === 'background' ? this.#takeSpare(signal) : this.#takeBooked(signal);
  }

  async #takeBooked(signal: AbortSignal): Promise<void> {
    const wait = this.#bucket.reserve(this.#o.maxWaitMs ?? Number.POSITIVE_INFINITY);
    if (wait === 0) return;
    if (wait > 0 && (await sleep(wait, signal))) return;
    // Either the wait is longer than any call may last (nothing was reserved), or the caller gave up
    // while waiting (its reservation goes back, so it does not hold up the callers behind it).
    if (wait > 0) this.#bucket.giveBack();
    throw new ProviderError(
      this.#o.provider,
      'rate_limited',
      `local rate limit (${this.#o.ratePerSecond}/s) reached before the deadline`,
      { retryAfterMs: Math.abs(wait) },
    );
  }

  async #takeSpare(signal: AbortSignal): Promise<void> {
    const patience = this.#o.maxWaitMs ?? Number.POSITIVE_INFINITY;
    const started = performance.now();
    for (;;) {
      const taken = this.#bucket.tryTakeAbove(this.#reserve);
      if (taken.ok) return;
      // Woken before an interactive caller booked the token it waited for: it waits again.
      const wait = taken.retryAfterMs;
      if (performance.now() - started + wait > patience || !(await sleep(wait, signal))) {
        throw this.#deferred(wait);
      }
    }
  }

  #deferred(waitMs: number): ProviderError {
    const perMinute = Math.round(this.#o.ratePerSecond * 6_000) / 100;
    return new ProviderError(
      this.#o.provider,
      'deferred',
      `background call skipped for want of provider budget (${perMinute} calls a minute, ${this.#reserve} kept for interactive callers); next spare call in ${Math.ceil(waitMs / 1000)} s`,
      { retryAfterMs: waitMs },
    );
  }
}

/** Resolves true after `ms`, or false as soon as the signal aborts (or would abort first). */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Time comes from here, so tests and detectors can run on a controlled clock. */
export interface Clock {
  now(): Date;
}

/** What `Timers.setTimeout` returns; only ever handed back to `clearTimeout`. */
export type TimerHandle = unknown;

/**
 * Scheduling, for code that waits (polls, rate limits, refreshes). A fake (test/support/manual-clock.ts)
 * fires its timers when a test advances time, so such code is tested without sleeping.
 */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer that has not fired yet; anything else (undefined, a fired timer) is ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/** A clock that can also schedule: `now()` and the timers must agree, so they come together. */
export interface Scheduler extends Clock, Timers {}

export const systemClock: Scheduler = {
  now: () => new Date(),
  // Timers never keep the process alive: whoever starts something periodic stops it on shutdown.
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

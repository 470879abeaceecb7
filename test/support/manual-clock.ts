import type { Scheduler, TimerHandle } from '../../src/platform/clock.ts';

interface Timer {
  readonly at: number;
  /** Creation order: timers due at the same instant fire in the order they were set. */
  readonly order: number;
  readonly fn: () => void;
}

/**
 * A clock that stands still until the test moves it. `advance(ms)` walks time forward timer by
 * timer: each due timer fires with `now()` at its own due time, and the promise jobs it started
 * (a provider call, a `then`) settle before the next one fires, so code that awaits and then
 * schedules again (a poll loop) behaves as it would in real time, without real waiting.
 */
export class ManualClock implements Scheduler {
  #now: number;
  #order = 0;
  readonly #timers = new Set<Timer>();

  constructor(start: Date | number = Date.parse('2025-06-11T15:00:00Z')) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: Timer = { at: this.#now + Math.max(0, ms), order: this.#order++, fn };
    this.#timers.add(timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers.delete(handle as Timer);
  }

  /** Timers set and not yet fired or cleared. */
  get pending(): number {
    return this.#timers.size;
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way, in due order. */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#next();
      if (!next || next.at > until) break;
      this.#timers.delete(next);
      this.#now = Math.max(this.#now, next.at);
      next.fn();
      await settle();
    }
    this.#now = until;
  }

  #next(): Timer | undefined {
    let first: Timer | undefined;
    for (const t of this.#timers) {
      if (!first || t.at < first.at || (t.at === first.at && t.order < first.order)) first = t;
    }
    return first;
  }
}

/**
 * Lets pending promise jobs run: resolves after the current macrotask, by which time every
 * microtask queued so far (and every one those queue) has run. No time passes on any clock.
 */
export function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

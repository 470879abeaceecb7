import type { WatchdogEventListener } from './event-bus.ts';
import type { WatchdogEvent } from './events.repository.ts';

/** Events held for one reader that does not keep up; past it the oldest are dropped. */
export const MAX_QUEUED_EVENTS = 256;

/** Live events as an async iterator that can also push them (see `offerTo`). */
export interface EventIterator extends AsyncIterableIterator<WatchdogEvent> {
  /**
   * From now on, an event that arrives while the reader waits for the next one and none is queued
   * is first offered to `offer`. One it declines (returns false or throws) is queued for the
   * iterator, and so is every event until the reader waits again: an event is never offered while
   * the reader still handles an earlier one, so the order of events never changes.
   */
  offerTo(offer: (event: WatchdogEvent) => boolean): void;
}

/**
 * Live events as an async iterator (GraphQL subscriptions). `subscribe` starts the feed and returns
 * its stop; the iterator holds at most `maxQueued` undelivered events (a reader that falls further
 * behind loses the oldest, so memory stays bounded) and returning from it stops the feed.
 */
export function eventIterator(
  subscribe: (listener: WatchdogEventListener) => () => void,
  maxQueued = MAX_QUEUED_EVENTS,
): EventIterator {
  const queue: WatchdogEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let offer: ((event: WatchdogEvent) => boolean) | undefined;
  const offered = (event: WatchdogEvent): boolean => {
    try {
      return offer!(event);
    } catch {
      return false;
    }
  };
  const stop = subscribe((event) => {
    if (done) return;
    if (offer !== undefined && wake !== undefined && queue.length === 0 && offered(event)) return;
    if (queue.length >= maxQueued) queue.shift();
    queue.push(event);
    wake?.();
  });
  const finish = () => {
    if (done) return;
    done = true;
    stop();
    queue.length = 0;
    wake?.();
  };
  const iterator: EventIterator = {
    offerTo(consumer) {
      offer = consumer;
    },
    async next() {
      while (!done && queue.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      const event = queue.shift();
      if (done || !event) return { done: true, value: undefined };
      return { done: false, value: event };
    },
    async return() {
      finish();
      return { done: true, value: undefined };
    },
    async throw(error) {
      finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

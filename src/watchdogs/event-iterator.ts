import type { WatchdogEventListener } from './event-bus.ts';
import type { ReplayOverlap } from './event-replay.ts';
import type { WatchdogEvent } from './events.repository.ts';

/** Events held for one reader that does not keep up; past it the oldest are dropped. */
export const MAX_QUEUED_EVENTS = 256;

/** Live events as an async iterator that can also push them (see `offerTo`). */
export interface EventIterator extends AsyncIterableIterator<WatchdogEvent> {
  /**
   * From now on, an event is first offered to `offer` when none is queued and the reader is not
   * handling one it read (it waits in `next`, or has not read yet). Events queued before, while the
   * reader has not read any, are offered at once, in order. One `offer` declines (returns false or
   * throws) stays queued for the iterator, and so does every event after it until the reader has
   * taken them all and asks again: the order of events never changes. The events queued before are
   * offered inside `batch` (so that a transport can send them in one write).
   */
  offerTo(offer: (event: WatchdogEvent) => boolean, batch?: (offerAll: () => void) => void): void;
  /**
   * Puts stored events (oldest first, read after the feed started) before the live ones: the live
   * events queued so far follow them, without those `overlap` says they already hold, and so do
   * later ones. Call it before the reader reads and before `offerTo`. The replay does not count
   * towards the bound on queued live events.
   */
  replay(events: readonly WatchdogEvent[], overlap: ReplayOverlap): void;
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
  /** Raised by the length of a replay, so a live event never pushes a replayed one out. */
  let limit = maxQueued;
  let overlap: ReplayOverlap | undefined;
  let wake: (() => void) | undefined;
  let done = false;
  let offer: ((event: WatchdogEvent) => boolean) | undefined;
  /** The reader has an event from `next` in hand (until it calls `next` again). */
  let reading = false;
  const offered = (event: WatchdogEvent): boolean => {
    try {
      return offer!(event);
    } catch {
      return false;
    }
  };
  const stop = subscribe((event) => {
    if (done || overlap?.repeats(event)) return;
    if (offer !== undefined && !reading && queue.length === 0 && offered(event)) return;
    if (queue.length >= limit) queue.shift();
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
    offerTo(consumer, batch) {
      offer = consumer;
      if (reading || queue.length === 0) return;
      const offerQueued = () => {
        while (queue.length > 0 && offered(queue[0]!)) queue.shift();
      };
      if (batch) batch(offerQueued);
      else offerQueued();
    },
    replay(events, replayOverlap) {
      overlap = replayOverlap;
      const live = queue.splice(0).filter((event) => !replayOverlap.repeats(event));
      queue.push(...events, ...live);
      limit = maxQueued + events.length;
      if (queue.length > 0) wake?.();
    },
    async next() {
      reading = false;
      while (!done && queue.length === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      const event = queue.shift();
      if (done || !event) return { done: true, value: undefined };
      reading = true;
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

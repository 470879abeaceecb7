import { DropOldest, PushIterator } from '../platform/flow/push-iterator.ts';
import type { WatchdogEventListener } from './event-bus.ts';
import type { ReplayOverlap } from './event-replay.ts';
import type { WatchdogEvent } from './events.repository.ts';

/** Events held for one reader that does not keep up; past it the oldest are dropped. */
export const MAX_QUEUED_EVENTS = 256;

/** Live events as an async iterator that can also push them (see `PushIterator.offerTo`). */
export interface EventIterator extends PushIterator<WatchdogEvent> {
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
  const queue = new DropOldest<WatchdogEvent>(maxQueued);
  let overlap: ReplayOverlap | undefined;
  const events = new PushIterator(queue, (push) =>
    subscribe((event) => {
      if (!overlap?.repeats(event)) push(event);
    }),
  );
  return Object.assign(events, {
    replay(stored: readonly WatchdogEvent[], replayOverlap: ReplayOverlap) {
      overlap = replayOverlap;
      const live = queue.drain().filter((event) => !replayOverlap.repeats(event));
      queue.replaceWith([...stored, ...live]);
      // Raised by the length of the replay, so a live event never pushes a replayed one out.
      queue.limit = maxQueued + stored.length;
      events.queueChanged();
    },
  });
}

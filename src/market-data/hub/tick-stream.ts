import { LatestByKey, PushIterator } from '../../platform/flow/push-iterator.ts';
import type { PriceHub, PriceTick } from './price-hub.ts';
import type { ResolvedSymbol } from './streamable.ts';

/** Price ticks as an async iterator that can also push them (see `PushIterator.offerTo`). */
export type TickStream = PushIterator<PriceTick>;

/**
 * Price ticks for several instruments as an async iterator (GraphQL subscriptions), each carrying
 * how its symbol was read. A slow reader never builds a backlog: per symbol only the latest
 * undelivered tick is kept, so memory is bounded by the number of symbols; a snapshot overtaken
 * before it was read passes its mark on, so the first tick of each symbol still says it is one.
 * Returning from the iterator leaves every feed.
 */
export function tickStream(
  hub: PriceHub,
  symbols: readonly ResolvedSymbol[],
  intervalMs: number,
): TickStream {
  const pending = new LatestByKey<PriceTick>((tick) => tick.symbol, passSnapshotMark);
  return new PushIterator(pending, (push) => {
    const leave = symbols.map((resolved) => {
      const key = readingKey(resolved);
      return hub.subscribe(
        resolved.instrument,
        { tick: (tick) => push(withReading(tick, resolved, key)) },
        intervalMs,
      );
    });
    return () => {
      for (const stop of leave) stop();
    };
  });
}

/** A live tick that replaces a snapshot nobody read yet is the symbol's first tick: it says so. */
function passSnapshotMark(queued: PriceTick, next: PriceTick): PriceTick {
  return !next.snapshot && queued.snapshot ? { ...next, snapshot: true } : next;
}

/**
 * The tick with how the symbol was read, as one object for every subscription that read it alike:
 * a live tick goes to every subscriber of its symbol, and subscriptions that wrote the symbol the
 * same way then hold the same event, which a shared subscription resolves once (see
 * `sharedResults`). A snapshot is its subscriber's own tick, so it gets its own object.
 */
const readings = new WeakMap<PriceTick, Map<string, PriceTick>>();

function withReading(tick: PriceTick, resolved: ResolvedSymbol, key: string): PriceTick {
  let byReading = readings.get(tick);
  if (!byReading) {
    byReading = new Map();
    readings.set(tick, byReading);
  }
  let event = byReading.get(key);
  if (!event) {
    event = { ...tick, resolved };
    byReading.set(key, event);
  }
  return event;
}

function readingKey(resolved: ResolvedSymbol): string {
  return [
    resolved.instrument.symbol,
    resolved.name ?? '',
    resolved.exchange ?? '',
    ...resolved.requested,
  ].join('\u0000');
}

import type { PriceHub, PriceTick } from './price-hub.ts';
import type { ResolvedSymbol } from './streamable.ts';

/** Price ticks as an async iterator that can also push them (see `offerTo`). */
export interface TickStream extends AsyncIterableIterator<PriceTick> {
  /**
   * From now on, a tick is first offered to `offer` when none is queued and the reader is not
   * handling one it read (it waits in `next`, or has not read yet). Ticks queued before, while the
   * reader has not read any, are offered at once, in order. One `offer` declines (returns false or
   * throws) stays queued for the iterator, and so does every tick after it until the reader has
   * taken them all and asks again: the order of ticks never changes. The ticks queued before are
   * offered inside `batch` (so that a transport can send them in one write).
   */
  offerTo(offer: (tick: PriceTick) => boolean, batch?: (offerAll: () => void) => void): void;
}

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
  const pending = new Map<string, PriceTick>();
  let wake: (() => void) | undefined;
  let done = false;
  let offer: ((tick: PriceTick) => boolean) | undefined;
  /** The reader has a tick from `next` in hand (until it calls `next` again). */
  let reading = false;
  const offered = (tick: PriceTick): boolean => {
    try {
      return offer!(tick);
    } catch {
      return false;
    }
  };
  const leave = symbols.map((resolved) => {
    const key = readingKey(resolved);
    return hub.subscribe(
      resolved.instrument,
      {
        tick(tick) {
          if (
            offer !== undefined &&
            !reading &&
            pending.size === 0 &&
            offered(withReading(tick, resolved, key))
          )
            return;
          const overtaken = !tick.snapshot && pending.get(tick.symbol)?.snapshot === true;
          // Re-inserting moves the symbol to the back: symbols are served in arrival order.
          pending.delete(tick.symbol);
          pending.set(
            tick.symbol,
            overtaken ? { ...tick, snapshot: true, resolved } : withReading(tick, resolved, key),
          );
          wake?.();
        },
      },
      intervalMs,
    );
  });
  const finish = () => {
    if (done) return;
    done = true;
    for (const stop of leave) stop();
    pending.clear();
    wake?.();
  };
  const iterator: TickStream = {
    offerTo(consumer, batch) {
      offer = consumer;
      if (reading || pending.size === 0) return;
      const offerQueued = () => {
        for (const [symbol, tick] of pending) {
          if (!offered(tick)) return;
          pending.delete(symbol);
        }
      };
      if (batch) batch(offerQueued);
      else offerQueued();
    },
    async next() {
      reading = false;
      while (!done && pending.size === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (done) return { done: true, value: undefined };
      const [symbol, tick] = pending.entries().next().value as [string, PriceTick];
      pending.delete(symbol);
      reading = true;
      return { done: false, value: tick };
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

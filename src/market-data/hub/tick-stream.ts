import type { PriceHub, PriceTick } from './price-hub.ts';
import type { ResolvedSymbol } from './streamable.ts';

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
): AsyncIterableIterator<PriceTick> {
  const pending = new Map<string, PriceTick>();
  let wake: (() => void) | undefined;
  let done = false;
  const leave = symbols.map((resolved) =>
    hub.subscribe(
      resolved.instrument,
      {
        tick(tick) {
          const snapshot = tick.snapshot || pending.get(tick.symbol)?.snapshot === true;
          // Re-inserting moves the symbol to the back: symbols are served in arrival order.
          pending.delete(tick.symbol);
          pending.set(tick.symbol, { ...tick, snapshot, resolved });
          wake?.();
        },
      },
      intervalMs,
    ),
  );
  const finish = () => {
    if (done) return;
    done = true;
    for (const stop of leave) stop();
    pending.clear();
    wake?.();
  };
  const iterator: AsyncIterableIterator<PriceTick> = {
    async next() {
      while (!done && pending.size === 0) {
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
      if (done) return { done: true, value: undefined };
      const [symbol, tick] = pending.entries().next().value as [string, PriceTick];
      pending.delete(symbol);
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

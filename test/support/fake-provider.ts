import type {
  Capability,
  MarketDataProvider,
  StreamSubscription,
} from '../../src/market-data/providers/provider.ts';
import { ProviderError, unknownSymbol } from '../../src/market-data/providers/provider-errors.ts';
import type { AssetClass, Instrument, Quote } from '../../src/market-data/types.ts';

/**
 * A provider under the test's control: quotes come from `prices`, stream ticks are pushed with
 * `emit`, failures are switched on with `fail`. It counts calls so tests can see sharing.
 */
export interface FakeProvider extends MarketDataProvider {
  readonly prices: Map<string, number>;
  readonly calls: { quote: number; bars: number; streamsOpened: number; streamsClosed: number };
  /** Live stream subscriptions by symbol. */
  readonly streams: Map<string, Set<StreamSubscription>>;
  emit(symbol: string, price: number, asOf?: Date): void;
  fail(error: ProviderError | undefined): void;
}

export function createFakeProvider(
  id: string,
  options: {
    capabilities?: Capability[];
    live?: boolean;
    assetClasses?: AssetClass[];
    delayMs?: number;
  } = {},
): FakeProvider {
  const capabilities = new Set<Capability>(options.capabilities ?? ['quote']);
  const prices = new Map<string, number>();
  const streams = new Map<string, Set<StreamSubscription>>();
  const calls = { quote: 0, bars: 0, streamsOpened: 0, streamsClosed: 0 };
  let failure: ProviderError | undefined;
  const provider: FakeProvider = {
    id,
    displayName: `Fake ${id}`,
    live: options.live ?? true,
    capabilities,
    assetClasses: new Set(options.assetClasses ?? ['equity', 'crypto']),
    prices,
    calls,
    streams,
    supports: (capability: Capability, instrument?: Instrument) =>
      capabilities.has(capability) && (!instrument || provider.assetClasses.has(instrument.assetClass)),
    async quote({ instrument, signal }): Promise<Quote> {
      calls.quote++;
      if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs));
      if (signal.aborted) throw new ProviderError(id, 'timeout', 'aborted');
      if (failure) throw failure;
      const price = prices.get(instrument.symbol);
      if (price === undefined) throw unknownSymbol(id, instrument.symbol);
      return {
        symbol: instrument.symbol,
        price,
        change: price - 100,
        changePercent: price - 100,
        previousClose: 100,
        open: 100,
        dayHigh: Math.max(100, price),
        dayLow: Math.min(100, price),
        volume: 1000,
        currency: 'USD',
        asOf: new Date(),
      };
    },
    emit(symbol, price, asOf = new Date()) {
      for (const sub of streams.get(symbol) ?? []) sub.onTick({ symbol, price, size: 1, asOf });
    },
    fail(error) {
      failure = error;
    },
  };
  if (capabilities.has('bars')) {
    // One bar per UTC day in the range, closes following a fixed zig-zag around the quote price.
    provider.bars = async ({ instrument, interval, start, end }) => {
      calls.bars++;
      if (failure) throw failure;
      const base = prices.get(instrument.symbol);
      if (base === undefined) throw unknownSymbol(id, instrument.symbol);
      if (interval !== '1d') throw new ProviderError(id, 'unsupported', `no ${interval} bars`);
      const bars = [];
      const day = 86_400_000;
      for (let t = Math.ceil(start.getTime() / day) * day; t < end.getTime(); t += day) {
        const k = Math.floor(t / day);
        const close = base * (1 + 0.01 * Math.sin(k / 3) + 0.002 * (k % 7));
        bars.push({
          time: new Date(t),
          open: close,
          high: close * 1.01,
          low: close * 0.99,
          close,
          volume: 1000 + (k % 5),
        });
      }
      return bars;
    };
  }
  if (capabilities.has('stream')) {
    provider.stream = (sub: StreamSubscription) => {
      calls.streamsOpened++;
      const set = streams.get(sub.instrument.symbol) ?? new Set();
      set.add(sub);
      streams.set(sub.instrument.symbol, set);
      return () => {
        calls.streamsClosed++;
        set.delete(sub);
        if (set.size === 0) streams.delete(sub.instrument.symbol);
      };
    };
  }
  return provider;
}

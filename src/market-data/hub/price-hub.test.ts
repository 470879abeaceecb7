import { afterEach, describe, expect, it } from 'vitest';
import { createFakeProvider } from '../../../test/support/fake-provider.ts';
import { systemClock } from '../../platform/clock.ts';
import { createLogger } from '../../platform/observability/logger.ts';
import { parseInstrument } from '../instruments.ts';
import { MarketDataService } from '../market-data.service.ts';
import { PriceHub, type PriceTick } from './price-hub.ts';

const logger = createLogger('silent');
const btc = parseInstrument('BTC/USDT');
const aapl = parseInstrument('AAPL');

function setup(capabilities: Array<'quote' | 'stream'> = ['quote', 'stream']) {
  const provider = createFakeProvider('fake', { capabilities });
  provider.prices.set('BTC/USDT', 50_000);
  provider.prices.set('AAPL', 200);
  const service = new MarketDataService([provider], systemClock, logger);
  const hub = new PriceHub(service, logger, { pollIntervalMs: 20 });
  return { provider, hub };
}

const until = async (check: () => boolean, ms = 2000) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('PriceHub', () => {
  let hub: PriceHub | undefined;
  afterEach(() => hub?.close());

  it('opens one upstream stream per symbol however many subscribe, and numbers ticks per symbol', async () => {
    const s = setup();
    hub = s.hub;
    const seen: PriceTick[][] = [[], [], []];
    const stops = seen.map((list) => s.hub.subscribe(btc, { tick: (t) => list.push(t) }));
    expect(s.provider.calls.streamsOpened).toBe(1);
    await until(() => s.hub.stats().feeds === 1);
    s.provider.emit('BTC/USDT', 50_100);
    s.provider.emit('BTC/USDT', 50_200);
    for (const list of seen)
      expect(list.map((t) => [t.seq, t.price])).toEqual([
        [1, 50_100],
        [2, 50_200],
      ]);
    expect(seen[0]![0]).toMatchObject({ symbol: 'BTC/USDT', provider: 'fake', live: true });
    for (const stop of stops) stop();
    expect(s.provider.calls.streamsClosed).toBe(1);
    expect(s.hub.stats()).toEqual({ feeds: 0, subscribers: 0, symbols: [] });
  });

  it('computes change from the reference quote for streamed prices', async () => {
    const s = setup();
    hub = s.hub;
    const ticks: PriceTick[] = [];
    s.hub.subscribe(btc, { tick: (t) => ticks.push(t) });
    // The reference quote (previous close 100 in the fake) arrives asynchronously.
    await until(() => s.provider.calls.quote > 0);
    await new Promise((r) => setTimeout(r, 10));
    s.provider.emit('BTC/USDT', 110);
    expect(ticks.at(-1)).toMatchObject({ price: 110, change: 10, changePercent: 10 });
  });

  it('gives an interval subscriber at most one (the latest) update per interval', async () => {
    const s = setup();
    hub = s.hub;
    const fast: number[] = [];
    const slow: Array<{ price: number; at: number }> = [];
    s.hub.subscribe(btc, { tick: (t) => fast.push(t.price) });
    s.hub.subscribe(btc, { tick: (t) => slow.push({ price: t.price, at: Date.now() }) }, 100);
    for (let i = 1; i <= 10; i++) s.provider.emit('BTC/USDT', 50_000 + i);
    expect(fast).toHaveLength(10);
    expect(slow.map((x) => x.price)).toEqual([50_001]);
    await until(() => slow.length === 2);
    expect(slow[1]!.price).toBe(50_010);
    expect(slow[1]!.at - slow[0]!.at).toBeGreaterThanOrEqual(95);
  });

  it('gives a newcomer the latest price at once', async () => {
    const s = setup();
    hub = s.hub;
    s.hub.subscribe(btc, { tick: () => {} });
    s.provider.emit('BTC/USDT', 123);
    const got: number[] = [];
    s.hub.subscribe(btc, { tick: (t) => got.push(t.price) });
    expect(got).toEqual([123]);
  });

  it('polls quotes once per symbol when no provider streams, and stops when the last subscriber leaves', async () => {
    const s = setup(['quote']);
    hub = s.hub;
    const a: number[] = [];
    const b: number[] = [];
    const stopA = s.hub.subscribe(aapl, { tick: (t) => a.push(t.price) });
    const stopB = s.hub.subscribe(aapl, { tick: (t) => b.push(t.price) });
    await until(() => a.length === 1 && b.length === 1);
    expect(a).toEqual([200]);
    stopA();
    stopB();
    const calls = s.provider.calls.quote;
    await new Promise((r) => setTimeout(r, 80));
    expect(s.provider.calls.quote).toBe(calls);
  });

  it('reports a failing feed to subscribers instead of sending made-up prices', async () => {
    const s = setup(['quote']);
    hub = s.hub;
    s.provider.prices.delete('AAPL');
    const errors: Error[] = [];
    const ticks: PriceTick[] = [];
    s.hub.subscribe(aapl, { tick: (t) => ticks.push(t), error: (e) => errors.push(e) });
    await until(() => errors.length === 1);
    expect(errors[0]!.message).toMatch(/unknown symbol AAPL/);
    expect(ticks).toEqual([]);
  });
});

describe('tickStream', () => {
  it('keeps only the latest tick per symbol for a slow reader and leaves the feeds on return', async () => {
    const { tickStream } = await import('./tick-stream.ts');
    const s = setup();
    const eth = parseInstrument('ETH/USDT');
    s.provider.prices.set('ETH/USDT', 3000);
    const stream = tickStream(s.hub, [btc, eth], 0);
    for (let i = 1; i <= 100; i++) s.provider.emit('BTC/USDT', 50_000 + i);
    s.provider.emit('ETH/USDT', 3001);
    const first = await stream.next();
    const second = await stream.next();
    expect([first.value?.symbol, first.value?.price]).toEqual(['BTC/USDT', 50_100]);
    expect([second.value?.symbol, second.value?.price]).toEqual(['ETH/USDT', 3001]);
    await stream.return!();
    expect(s.hub.stats().feeds).toBe(0);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    s.hub.close();
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { createFakeProvider } from '../../../test/support/fake-provider.ts';
import { ManualClock } from '../../../test/support/manual-clock.ts';
import { createLogger } from '../../platform/observability/logger.ts';
import { parseInstrument } from '../instruments.ts';
import { MarketDataService } from '../market-data.service.ts';
import type { Instrument } from '../types.ts';
import { PriceHub, type PriceTick } from './price-hub.ts';

const logger = createLogger('silent');
const btc = parseInstrument('BTC/USDT');
const aapl = parseInstrument('AAPL');

function setup(capabilities: Array<'quote' | 'stream'> = ['quote', 'stream'], start?: Date) {
  const provider = createFakeProvider('fake', { capabilities });
  provider.prices.set('BTC/USDT', 50_000);
  provider.prices.set('AAPL', 200);
  // Time stands still unless a test advances it: the service's cache and the hub share the clock.
  const clock = new ManualClock(start);
  const service = new MarketDataService([provider], clock, logger);
  const hub = new PriceHub(service, logger, { pollIntervalMs: 20, referenceRefreshMs: 30_000, clock });
  return { provider, hub, clock };
}

describe('PriceHub', () => {
  let hub: PriceHub | undefined;
  afterEach(() => hub?.close());

  it('opens one upstream stream per symbol however many subscribe, and numbers ticks per symbol', async () => {
    const s = setup();
    hub = s.hub;
    const seen: PriceTick[][] = [[], [], []];
    const stops = seen.map((list) => s.hub.subscribe(btc, { tick: (t) => list.push(t) }));
    expect(s.provider.calls.streamsOpened).toBe(1);
    expect(s.hub.stats()).toEqual({ feeds: 1, subscribers: 3, symbols: ['BTC/USDT'] });
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
    expect(s.provider.calls.quote).toBe(1);
    await s.clock.advance(0);
    s.provider.emit('BTC/USDT', 110);
    expect(ticks.at(-1)).toMatchObject({ price: 110, change: 10, changePercent: 10 });
  });

  it('derives change without float noise (100.3 - 100 is 0.3, not 0.29999999999999716)', async () => {
    const s = setup();
    hub = s.hub;
    const ticks: PriceTick[] = [];
    s.hub.subscribe(btc, { tick: (t) => ticks.push(t) });
    await s.clock.advance(0);
    s.provider.emit('BTC/USDT', 100.3);
    expect(ticks.at(-1)).toMatchObject({ price: 100.3, change: 0.3, changePercent: 0.3 });
  });

  it('refreshes the reference quote of a streamed symbol once per refresh interval, until left', async () => {
    const s = setup();
    hub = s.hub;
    const leave = s.hub.subscribe(btc, { tick: () => {} });
    await s.clock.advance(29_999);
    expect(s.provider.calls.quote).toBe(1);
    await s.clock.advance(1);
    expect(s.provider.calls.quote).toBe(2);
    await s.clock.advance(60_000);
    expect(s.provider.calls.quote).toBe(4);
    leave();
    expect(s.clock.pending).toBe(0);
    await s.clock.advance(60_000);
    expect(s.provider.calls.quote).toBe(4);
  });

  it('gives an interval subscriber at most one (the latest) update per interval', async () => {
    const s = setup();
    hub = s.hub;
    const fast: number[] = [];
    const slow: Array<{ price: number; at: number }> = [];
    s.hub.subscribe(btc, { tick: (t) => fast.push(t.price) });
    s.hub.subscribe(btc, { tick: (t) => slow.push({ price: t.price, at: s.clock.now().getTime() }) }, 100);
    for (let i = 1; i <= 10; i++) s.provider.emit('BTC/USDT', 50_000 + i);
    expect(fast).toHaveLength(10);
    expect(slow.map((x) => x.price)).toEqual([50_001]);
    await s.clock.advance(99);
    expect(slow).toHaveLength(1);
    await s.clock.advance(1);
    expect(slow.map((x) => x.price)).toEqual([50_001, 50_010]);
    expect(slow[1]!.at - slow[0]!.at).toBe(100);
    // Nothing new arrived: the next interval passes without a repeat.
    await s.clock.advance(500);
    expect(slow).toHaveLength(2);
    // The next update after a quiet interval goes out at once.
    s.provider.emit('BTC/USDT', 50_011);
    expect(slow.map((x) => x.price)).toEqual([50_001, 50_010, 50_011]);
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

  it('sends a streamed symbol the reference quote as a snapshot while the stream is silent', async () => {
    // A Saturday: the US market is shut and the stream sends nothing.
    const s = setup(['quote', 'stream'], new Date('2025-06-14T15:00:00Z'));
    hub = s.hub;
    const ticks: PriceTick[] = [];
    s.hub.subscribe(aapl, { tick: (t) => ticks.push(t) });
    await s.clock.advance(0);
    expect(ticks).toHaveLength(1);
    expect(ticks[0]).toMatchObject({
      symbol: 'AAPL',
      price: 200,
      seq: 1,
      snapshot: true,
      marketState: 'closed',
      provider: 'fake',
    });
    // Refreshing the reference later publishes nothing new: a snapshot is not an update.
    await s.clock.advance(60_000);
    expect(ticks).toHaveLength(1);
    s.provider.emit('AAPL', 201);
    expect(ticks.at(-1)).toMatchObject({ price: 201, seq: 2, snapshot: false });
  });

  it('marks only the first tick of each subscriber as its snapshot, with the market state of that moment', async () => {
    const s = setup(['quote', 'stream'], new Date('2025-06-11T19:59:00Z'));
    hub = s.hub;
    const early: PriceTick[] = [];
    s.hub.subscribe(aapl, { tick: (t) => early.push(t) });
    s.provider.emit('AAPL', 201);
    await s.clock.advance(2 * 60_000); // past the 16:00 EDT close
    const late: PriceTick[] = [];
    s.hub.subscribe(aapl, { tick: (t) => late.push(t) });
    expect(early.map((t) => [t.price, t.snapshot, t.marketState])).toEqual([[201, true, 'regular']]);
    expect(late.map((t) => [t.price, t.seq, t.snapshot, t.marketState])).toEqual([[201, 1, true, 'post']]);
    s.provider.emit('AAPL', 202);
    expect([early.at(-1)?.snapshot, late.at(-1)?.snapshot]).toEqual([false, false]);
  });

  it('polls quotes once per symbol when no provider streams, and stops when the last subscriber leaves', async () => {
    const s = setup(['quote']);
    hub = s.hub;
    const a: number[] = [];
    const b: number[] = [];
    const stopA = s.hub.subscribe(aapl, { tick: (t) => a.push(t.price) });
    const stopB = s.hub.subscribe(aapl, { tick: (t) => b.push(t.price) });
    await s.clock.advance(0);
    expect(a).toEqual([200]);
    expect(b).toEqual([200]);
    expect(s.provider.calls.quote).toBe(1);
    s.provider.prices.set('AAPL', 201);
    await s.clock.advance(60_000);
    expect(a.at(-1)).toBe(201);
    expect(b).toEqual(a);
    stopA();
    stopB();
    expect(s.clock.pending).toBe(0);
    const calls = s.provider.calls.quote;
    await s.clock.advance(60_000);
    expect(s.provider.calls.quote).toBe(calls);
  });

  it('reports a failing feed to subscribers instead of sending made-up prices', async () => {
    const s = setup(['quote']);
    hub = s.hub;
    s.provider.prices.delete('AAPL');
    const errors: Error[] = [];
    const ticks: PriceTick[] = [];
    s.hub.subscribe(aapl, { tick: (t) => ticks.push(t), error: (e) => errors.push(e) });
    await s.clock.advance(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/unknown symbol AAPL/);
    // Later failures are not repeated to subscribers while the feed keeps failing.
    await s.clock.advance(10_000);
    expect(errors).toHaveLength(1);
    expect(ticks).toEqual([]);
  });

  it('backs off while the providers fail, and sends prices again once they answer', async () => {
    const s = setup(['quote']);
    hub = s.hub;
    s.provider.prices.delete('AAPL');
    const ticks: number[] = [];
    s.hub.subscribe(aapl, { tick: (t) => ticks.push(t.price), error: () => {} });
    // Polls at 0, then 40, 80, 160, 320 ms apart (20 ms doubled per failure).
    await s.clock.advance(599);
    expect(s.provider.calls.quote).toBe(4);
    await s.clock.advance(1);
    expect(s.provider.calls.quote).toBe(5);
    s.provider.prices.set('AAPL', 200);
    await s.clock.advance(640);
    expect(ticks).toEqual([200]);
  });
});

describe('tickStream', () => {
  it('keeps only the latest tick per symbol for a slow reader and leaves the feeds on return', async () => {
    const { tickStream } = await import('./tick-stream.ts');
    const s = setup();
    const eth = parseInstrument('ETH/USDT');
    s.provider.prices.set('ETH/USDT', 3000);
    const resolved = (instrument: Instrument) => ({
      instrument,
      requested: [instrument.symbol],
      name: null,
      exchange: null,
    });
    const stream = tickStream(s.hub, [resolved(btc), resolved(eth)], 0);
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

  it('offers a consumer the ticks queued before it came when nothing was read yet', async () => {
    const { tickStream } = await import('./tick-stream.ts');
    const s = setup();
    const resolved = { instrument: btc, requested: ['BTC/USDT'], name: null, exchange: null };
    const stream = tickStream(s.hub, [resolved], 0);
    s.provider.emit('BTC/USDT', 50_001);
    const pushed: Array<[number, boolean]> = [];
    // The queued ones come inside the consumer's batch (one write for them all); later ones alone.
    const batches: number[] = [];
    stream.offerTo(
      (tick) => pushed.push([tick.price, tick.snapshot]) > 0,
      (offerAll) => {
        const before = pushed.length;
        offerAll();
        batches.push(pushed.length - before);
      },
    );
    expect(pushed).toEqual([[50_001, true]]);
    expect(batches).toEqual([1]);
    s.provider.emit('BTC/USDT', 50_002);
    expect(batches).toEqual([1]);
    expect(pushed).toEqual([
      [50_001, true],
      [50_002, false],
    ]);
    await stream.return!();
    s.hub.close();
  });

  it('offers ticks to a consumer while the reader waits; a declined one and every tick until it waits again go to the iterator, in order', async () => {
    const { tickStream } = await import('./tick-stream.ts');
    const s = setup();
    const resolved = { instrument: btc, requested: ['BTC/USDT'], name: null, exchange: null };
    const stream = tickStream(s.hub, [resolved], 0);
    expect((await stream.next()).value?.snapshot).toBe(true);
    const pushed: number[] = [];
    let accept: boolean | 'throw' = true;
    stream.offerTo((tick) => {
      if (accept === 'throw') throw new Error('consumer failed');
      if (accept) pushed.push(tick.price);
      return accept;
    });
    // Nobody waits (the reader is still handling the snapshot): queued, not offered.
    s.provider.emit('BTC/USDT', 50_000);
    expect(pushed).toEqual([]);
    expect((await stream.next()).value?.price).toBe(50_000);
    let read = stream.next();
    s.provider.emit('BTC/USDT', 50_001);
    s.provider.emit('BTC/USDT', 50_002);
    expect(pushed).toEqual([50_001, 50_002]);
    accept = false;
    s.provider.emit('BTC/USDT', 50_003);
    accept = true;
    // Accepted now, but a tick waits to be read: this one queues behind it (the latest is kept).
    s.provider.emit('BTC/USDT', 50_004);
    expect(pushed).toEqual([50_001, 50_002]);
    expect((await read).value?.price).toBe(50_004);
    read = stream.next();
    s.provider.emit('BTC/USDT', 50_005);
    expect(pushed).toEqual([50_001, 50_002, 50_005]);
    accept = 'throw';
    s.provider.emit('BTC/USDT', 50_006);
    expect((await read).value?.price).toBe(50_006);
    await stream.return!();
    s.provider.emit('BTC/USDT', 50_007);
    expect(pushed).toEqual([50_001, 50_002, 50_005]);
    s.hub.close();
  });
});

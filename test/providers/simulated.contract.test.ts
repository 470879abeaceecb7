import { describe, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { createSimulatedProvider } from '../../src/market-data/providers/simulated/simulated.provider.ts';
import type { StreamTick } from '../../src/market-data/types.ts';
import type { Clock } from '../../src/platform/clock.ts';
import { expectProviderError, providerContract } from '../support/provider-contract.ts';

/**
 * The simulated market under the same contract as the live adapters. Its clock starts on a Wednesday
 * during the US session and runs at real speed from there, so streams tick while every answer stays
 * in the simulated past of 2025.
 */
const START = Date.parse('2025-06-11T15:03:00Z');
const TICK_MS = 40;
const AAPL = parseInstrument('AAPL');
const SPY = parseInstrument('SPY');
const BTC_USDT = parseInstrument('BTC/USDT');
const USDT_USD = parseInstrument('USDT/USD', { assetClass: 'crypto' });
const ZZZZ = parseInstrument('ZZZZ');
const NOPE_USDT = parseInstrument('NOPE/USDT', { assetClass: 'crypto' });

function runningClock(): Clock {
  const started = Date.now();
  return { now: () => new Date(START + (Date.now() - started)) };
}

const fixedClock = (ms: number): Clock => ({ now: () => new Date(ms) });

const create = async () => {
  const provider = createSimulatedProvider({
    seed: 'contract',
    activity: 'normal',
    tickMs: TICK_MS,
    clock: runningClock(),
  });
  return { provider, close: () => provider.close!() };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const extra: Array<{ title: string; run(p: MarketDataProvider, signal: AbortSignal): Promise<void> }> = [
  {
    title: 'searches its universe by name and symbol prefix, best first',
    async run(p, signal) {
      const apple = await p.search!({ query: 'apple', limit: 5, signal });
      expect(apple[0]).toMatchObject({ instrument: { symbol: 'AAPL', market: 'US' }, name: 'Apple Inc.' });
      const btc = await p.search!({ query: 'BTC', limit: 2, signal });
      expect(btc.map((m) => m.instrument.symbol)).toEqual(['BTC/USDT', 'BTC/USDC']);
      expect(await p.search!({ query: 'no such thing', limit: 5, signal })).toEqual([]);
    },
  },
  {
    title: 'says what it is: simulated, not live',
    async run(p) {
      expect(p).toMatchObject({ id: 'simulated', displayName: 'Simulated market', live: false });
      const universe = p.universe!();
      const listed = universe.filter((e) => e.instrument.market === 'US');
      expect(listed.length).toBeGreaterThanOrEqual(30);
      expect(
        new Set(universe.filter((e) => e.instrument.assetClass === 'crypto').map((e) => e.instrument.base))
          .size,
      ).toBeGreaterThanOrEqual(10);
      for (const symbol of [
        'SPY',
        'QQQ',
        'AAPL',
        'MSFT',
        'TSLA',
        'NVDA',
        'BTC/USDT',
        'ETH/USDC',
        'SOL/USD',
        'USDC/USDT',
        'EUR/USD',
        '^GSPC',
        'US10Y',
        'CPI',
        'FED_RATE',
      ]) {
        expect(
          universe.some((e) => e.instrument.symbol === symbol),
          symbol,
        ).toBe(true);
      }
    },
  },
  {
    title: 'supports only what makes sense for each instrument',
    async run(p) {
      expect(p.supports('orderBook', AAPL)).toBe(false);
      expect(p.supports('earnings', AAPL)).toBe(true);
      expect(p.supports('earnings', SPY)).toBe(false);
      expect(p.supports('funding', BTC_USDT)).toBe(true);
      expect(p.supports('funding', USDT_USD)).toBe(false);
      expect(p.supports('profile', parseInstrument('^GSPC'))).toBe(false);
      expect(p.supports('quote', ZZZZ)).toBe(false);
      expect(p.supports('quote', parseInstrument('AAPL', { market: 'UK' }))).toBe(false);
      expect(p.supports('transfers')).toBe(true);
      await expectProviderError(
        p.orderBook!({ instrument: AAPL, depth: 5, signal: AbortSignal.timeout(5_000) }),
        'unsupported',
      );
    },
  },
  {
    title: 'profiles an equity from its own path and earnings',
    async run(p, signal) {
      const [profile, quote] = await Promise.all([
        p.profile!({ instrument: AAPL, signal }),
        p.quote!({ instrument: AAPL, signal }),
      ]);
      expect(profile).toMatchObject({
        symbol: 'AAPL',
        name: 'Apple Inc.',
        exchange: 'NASDAQ',
        currency: 'USD',
        sector: 'Technology',
      });
      expect(profile.marketCap! / (quote.price * profile.sharesOutstanding!)).toBeCloseTo(1, 2);
      expect(profile.peRatio!).toBeGreaterThan(5);
      expect(profile.peRatio!).toBeLessThan(200);
      expect(profile.beta!).toBeGreaterThan(0.2);
      expect(profile.beta!).toBeLessThan(3);
      expect(profile.week52High!).toBeGreaterThanOrEqual(quote.price);
      expect(profile.week52Low!).toBeLessThanOrEqual(quote.price);
      expect(profile.averageVolume!).toBeGreaterThan(1_000_000);
    },
  },
  {
    title: 'gives rolling 24-hour crypto statistics and a quote against the price 24 hours earlier',
    async run(p, signal) {
      const [stats, quote] = await Promise.all([
        p.cryptoStats!({ instrument: BTC_USDT, signal }),
        p.quote!({ instrument: BTC_USDT, signal }),
      ]);
      expect(stats).toMatchObject({ symbol: 'BTC/USDT', venue: 'simulated' });
      expect(stats.high).toBeGreaterThanOrEqual(stats.low);
      expect(stats.volume).toBeGreaterThan(0);
      expect(stats.marketCap!).toBeGreaterThan(1e11);
      expect(quote).toMatchObject({ currency: 'USDT', marketState: 'continuous', name: 'Bitcoin / USDT' });
      const dayAgo = await p.bars!({
        instrument: BTC_USDT,
        interval: '1m',
        start: new Date(quote.asOf.getTime() - 86_400_000 - 60_000),
        end: new Date(quote.asOf.getTime() - 86_400_000 + 60_000),
        signal,
      });
      expect(quote.previousClose).toBeGreaterThanOrEqual(Math.min(...dayAgo.map((b) => b.low)));
      expect(quote.previousClose).toBeLessThanOrEqual(Math.max(...dayAgo.map((b) => b.high)));
    },
  },
  {
    title: 'builds an order book around the price on the tick grid',
    async run(p, signal) {
      const book = await p.orderBook!({ instrument: BTC_USDT, depth: 10, signal });
      expect(book.bids).toHaveLength(10);
      expect(book.asks).toHaveLength(10);
      expect(book.bids[0]!.price).toBeLessThan(book.asks[0]!.price);
      for (let i = 1; i < 10; i++) {
        expect(book.bids[i]!.price).toBeLessThan(book.bids[i - 1]!.price);
        expect(book.asks[i]!.price).toBeGreaterThan(book.asks[i - 1]!.price);
      }
      for (const level of [...book.bids, ...book.asks]) {
        expect(level.size).toBeGreaterThan(0);
        expect(Math.abs(level.price * 10 - Math.round(level.price * 10))).toBeLessThan(1e-6);
      }
      const quote = await p.quote!({ instrument: BTC_USDT, signal });
      expect(Math.abs(book.bids[0]!.price / quote.price - 1)).toBeLessThan(0.002);
    },
  },
  {
    title: 'quotes the perpetual funding rate with the next 00/08/16 UTC funding time',
    async run(p, signal) {
      const funding = await p.funding!({ instrument: BTC_USDT, signal });
      expect(funding).toMatchObject({ venue: 'simulated', intervalHours: 8 });
      expect(Math.abs(funding.rate)).toBeLessThan(0.01);
      expect(funding.nextFundingTime!.toISOString()).toBe('2025-06-11T16:00:00.000Z');
      const quote = await p.quote!({ instrument: BTC_USDT, signal });
      expect(Math.abs(funding.markPrice! / quote.price - 1)).toBeLessThan(0.01);
    },
  },
  {
    title: 'lists quarterly earnings in range, the upcoming one without a reported figure',
    async run(p, signal) {
      const from = new Date('2024-01-01T00:00:00Z');
      const to = new Date('2025-09-30T00:00:00Z');
      const reports = await p.earnings!({ instrument: AAPL, from, to, signal });
      expect(reports.length).toBeGreaterThanOrEqual(6);
      for (let i = 0; i < reports.length; i++) {
        const r = reports[i]!;
        expect(r.reportDate.getTime()).toBeGreaterThanOrEqual(from.getTime());
        expect(r.reportDate.getTime()).toBeLessThanOrEqual(to.getTime());
        if (i > 0)
          expect(r.reportDate.getTime()).toBeGreaterThanOrEqual(reports[i - 1]!.reportDate.getTime());
        if (r.reportedEps !== null) {
          expect(r.surprisePercent!).toBeCloseTo(
            ((r.reportedEps - r.estimatedEps!) / Math.abs(r.estimatedEps!)) * 100,
            1,
          );
        }
      }
      const upcoming = reports.filter((r) => r.reportDate.getTime() > START);
      expect(upcoming.length).toBeGreaterThan(0);
      expect(upcoming.every((r) => r.reportedEps === null && r.surprisePercent === null)).toBe(true);
    },
  },
  {
    title: 'reports large transfers since a time, ascending, with exchange and wallet labels',
    async run(p, signal) {
      const since = new Date(START - 3_600_000);
      const transfers = await p.transfers!({ since, minUsd: 1_000_000, signal });
      expect(transfers.length).toBeGreaterThan(0);
      for (let i = 0; i < transfers.length; i++) {
        const t = transfers[i]!;
        expect(t.usdValue).toBeGreaterThanOrEqual(1_000_000);
        expect(t.time.getTime()).toBeGreaterThanOrEqual(since.getTime());
        if (i > 0) expect(t.time.getTime()).toBeGreaterThanOrEqual(transfers[i - 1]!.time.getTime());
        expect(`${t.from} ${t.to}`).toMatch(/^(exchange:|wallet:|unknown)/);
      }
      const btc = await p.transfers!({ since, minUsd: 0, assets: ['BTC'], signal });
      expect(btc.every((t) => t.asset === 'BTC')).toBe(true);
      await expectProviderError(
        p.transfers!({ since, minUsd: 0, assets: ['NOPE'], signal }),
        'unknown_symbol',
      );
    },
  },
  {
    title: 'reports simulated venue health',
    async run(p, signal) {
      const venues = await p.venueStatus!({ signal });
      expect(venues.map((v) => v.venue)).toEqual(['binance', 'coinbase', 'kraken', 'nyse', 'nasdaq']);
      for (const v of venues) expect(v.detail).toMatch(/^simulated/);
    },
  },
  {
    title: 'streams live ticks on one shared timer and stops when asked',
    async run(p) {
      const ticks: StreamTick[] = [];
      const errors: Error[] = [];
      const stopBtc = p.stream!({
        instrument: BTC_USDT,
        onTick: (t) => ticks.push(t),
        onError: (e) => errors.push(e),
      });
      const stopEth = p.stream!({
        instrument: parseInstrument('ETH/USDT'),
        onTick: () => {},
        onError: (e) => errors.push(e),
      });
      for (let i = 0; i < 100 && ticks.length < 3; i++) await sleep(TICK_MS);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < ticks.length; i++)
        expect(ticks[i]!.asOf.getTime()).toBeGreaterThan(ticks[i - 1]!.asOf.getTime());
      expect(ticks[0]).toMatchObject({ symbol: 'BTC/USDT' });
      expect(ticks[0]!.price).toBeGreaterThan(0);
      stopBtc();
      const count = ticks.length;
      await sleep(TICK_MS * 4);
      expect(ticks.length).toBe(count);
      stopEth();
      expect(errors).toEqual([]);
      let failed: Error | undefined;
      p.stream!({ instrument: NOPE_USDT, onTick: () => {}, onError: (e) => (failed = e) });
      await sleep(0);
      expect(failed).toBeDefined();
    },
  },
  {
    title: 'is deterministic: same seed and clock, same market; another seed, another market',
    async run(_p, signal) {
      const make = (seed: string) =>
        createSimulatedProvider({ seed, activity: 'normal', tickMs: 1_000, clock: fixedClock(START) });
      const [a, b, c] = [make('x'), make('x'), make('y')];
      const bars = (p: MarketDataProvider) =>
        p.bars!({
          instrument: BTC_USDT,
          interval: '5m',
          start: new Date(START - 3_600_000),
          end: new Date(START),
          signal,
        });
      expect(await bars(a)).toEqual(await bars(b));
      expect(await a.quote!({ instrument: AAPL, signal })).toEqual(
        await b.quote!({ instrument: AAPL, signal }),
      );
      expect((await bars(c))[0]!.close).not.toBe((await bars(a))[0]!.close);
    },
  },
  {
    title: 'refuses requests it cannot answer with a typed error',
    async run(p, signal) {
      const call = { instrument: BTC_USDT, signal };
      await expectProviderError(
        p.bars!({ ...call, interval: '1m', start: new Date(START), end: new Date(START - 1) }),
        'unsupported',
      );
      await expectProviderError(
        p.bars!({ ...call, interval: '1m', start: new Date('2015-01-01'), end: new Date(START) }),
        'unsupported',
      );
      await expectProviderError(
        p.bars!({
          instrument: parseInstrument('CPI'),
          interval: '1h',
          start: new Date('2024-01-01'),
          end: new Date('2024-02-01'),
          signal,
        }),
        'unsupported',
      );
      await expectProviderError(p.quote!({ instrument: AAPL, signal: AbortSignal.abort() }), 'timeout');
    },
  },
];

describe('simulated provider', () => {
  it('rejects a tick interval that would spin', () => {
    expect(() =>
      createSimulatedProvider({ seed: 's', activity: 'normal', tickMs: 0, clock: fixedClock(START) }),
    ).toThrow(RangeError);
  });
});

providerContract({
  name: 'simulated (daily bars)',
  create,
  quote: { instrument: AAPL, expect: { currency: 'USD' } },
  bars: {
    call: {
      instrument: BTC_USDT,
      interval: '1d',
      start: new Date('2024-01-01T00:00:00Z'),
      end: new Date('2024-07-01T00:00:00Z'),
    },
    expect: { count: 182, first: { time: new Date('2024-01-01T00:00:00Z') } },
  },
  unknown: [
    { capability: 'quote', instrument: ZZZZ },
    { capability: 'bars', instrument: ZZZZ },
    { capability: 'quote', instrument: NOPE_USDT },
    { capability: 'bars', instrument: NOPE_USDT },
  ],
  extra,
});

providerContract({
  name: 'simulated (minute bars)',
  create,
  quote: { instrument: parseInstrument('CPI'), expect: { currency: 'USD' } },
  bars: {
    call: {
      instrument: AAPL,
      interval: '1m',
      start: new Date('2025-06-10T00:00:00Z'),
      end: new Date('2025-06-11T00:00:00Z'),
    },
    expect: {
      count: 390,
      first: { time: new Date('2025-06-10T13:30:00Z') },
      last: { time: new Date('2025-06-10T19:59:00Z') },
    },
  },
});

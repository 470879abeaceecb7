import { afterEach, describe, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { parseAggTrades, parseKlines } from '../../src/market-data/providers/binance.parse.ts';
import {
  createBinanceProvider,
  newestAggTrades,
  pagedKlines,
} from '../../src/market-data/providers/binance.provider.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { type FixtureRoute, type FixtureServer, startFixtureServer } from '../support/fixture-server.ts';
import { describeWithFixtures, fixtureJson } from '../support/fixtures.ts';
import { expectProviderError, providerContract } from '../support/provider-contract.ts';

describeWithFixtures('binance on recorded responses', () => {
  const BTC_USDT = parseInstrument('BTC/USDT');
  const NOPE_USDT = parseInstrument('NOPE/USDT', { assetClass: 'crypto' });
  const INVALID_SYMBOL = { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } };

  type Kline = [number, string, string, string, string, string, ...unknown[]];
  const ticker = fixtureJson<Record<string, string | number>>('binance/api-v3-ticker-24hr-BTCUSDT.json');
  const klines = fixtureJson<Kline[]>('binance/api-v3-klines-BTCUSDT-1m-limit10.json');
  const depth = fixtureJson<{ bids: string[][]; asks: string[][] }>(
    'binance/api-v3-depth-BTCUSDT-limit10.json',
  );
  const premium = fixtureJson<Record<string, string | number>>(
    'binance/fapi-v1-premiumIndex-BTCUSDT.DOCS-SAMPLE.json',
  );

  // aggTrades over REST is the recorded stream record without its event fields (e, E, s). The
  // recording has one trade; a busy minute of BTCUSDT is made from its shape: 3,500 trades 100 ms
  // apart, small except three whales (USD 3M in the oldest 500, 1.2M sold, 6M bought).
  const {
    e: _e,
    E: _E,
    s: _s,
    ...aggRecord
  } = fixtureJson<{ data: Record<string, unknown> }>('binance/ws-spot-aggTrade-NKNUSDT.json').data;
  const FIRST_AGG_ID = 7_000_000;
  const AGG_T0 = Date.parse('2025-06-14T12:00:00Z');
  const WHALES: Record<number, { q: string; m: boolean }> = {
    100: { q: '50.00000000', m: false },
    3000: { q: '20.00000000', m: true },
    3400: { q: '100.00000000', m: false },
  };
  const aggTrades = Array.from({ length: 3_500 }, (_, i) => ({
    ...aggRecord,
    a: FIRST_AGG_ID + i,
    f: 2 * (FIRST_AGG_ID + i),
    l: 2 * (FIRST_AGG_ID + i) + 1,
    p: '60000.00000000',
    q: WHALES[i]?.q ?? '0.01000000',
    T: AGG_T0 + i * 100,
    m: WHALES[i]?.m ?? i % 2 === 0,
  }));

  const barOf = (k: Kline) => ({
    time: new Date(k[0]),
    open: Number(k[1]),
    high: Number(k[2]),
    low: Number(k[3]),
    close: Number(k[4]),
    volume: Number(k[5]),
  });

  const ROUTES: FixtureRoute[] = [
    {
      path: '/api/v3/ticker/24hr',
      query: { symbol: 'BTCUSDT' },
      reply: 'binance/api-v3-ticker-24hr-BTCUSDT.json',
    },
    { path: '/api/v3/ticker/24hr', query: { symbol: 'NOPEUSDT' }, reply: INVALID_SYMBOL },
    {
      path: '/api/v3/klines',
      query: { symbol: 'BTCUSDT', interval: '1m' },
      // Answers like Binance over the recording: open time in [startTime, endTime], at most `limit`.
      reply: ({ query }) => ({
        body: klines
          .filter((k) => k[0] >= Number(query.startTime ?? 0) && k[0] <= Number(query.endTime ?? Infinity))
          .slice(0, Number(query.limit ?? 500)),
      }),
    },
    { path: '/api/v3/klines', query: { symbol: 'NOPEUSDT' }, reply: INVALID_SYMBOL },
    {
      path: '/api/v3/aggTrades',
      query: { symbol: 'BTCUSDT' },
      // Like Binance: from `fromId` on when given, else the most recent `limit`, oldest first.
      reply: ({ query }) => {
        const limit = Number(query.limit ?? 500);
        if (query.fromId === undefined) return { body: aggTrades.slice(-limit) };
        return { body: aggTrades.filter((t) => t.a >= Number(query.fromId)).slice(0, limit) };
      },
    },
    {
      path: '/api/v3/depth',
      query: { symbol: 'BTCUSDT' },
      reply: 'binance/api-v3-depth-BTCUSDT-limit10.json',
    },
    {
      path: '/fapi/v1/premiumIndex',
      query: { symbol: 'BTCUSDT' },
      reply: 'binance/fapi-v1-premiumIndex-BTCUSDT.DOCS-SAMPLE.json',
    },
    // Binance documents `{}` as the ping answer.
    { path: '/api/v3/ping', reply: { body: {} } },
    { path: '/fapi/v1/ping', reply: { body: {} } },
  ];

  let server: FixtureServer;

  providerContract({
    name: 'binance (recorded responses)',
    async create() {
      server = await startFixtureServer(ROUTES);
      const provider = createBinanceProvider({
        baseUrl: server.url,
        futuresBaseUrl: server.url,
        wsUrl: 'ws://127.0.0.1:9',
        ratePerSecond: 1_000,
      });
      return {
        provider,
        close: async () => {
          await provider.close?.();
          await server.close();
        },
      };
    },
    quote: {
      instrument: BTC_USDT,
      expect: {
        price: Number(ticker.lastPrice),
        asOf: new Date(Number(ticker.closeTime)),
        currency: 'USDT',
        previousClose: Number(ticker.lastPrice) - Number(ticker.priceChange),
      },
    },
    bars: {
      call: {
        instrument: BTC_USDT,
        interval: '1m',
        start: new Date(klines[0]![0]),
        end: new Date(klines.at(-1)![0] + 60_000),
      },
      expect: { count: 10, first: barOf(klines[0]!), last: barOf(klines.at(-1)!) },
    },
    unknown: [
      { capability: 'quote', instrument: NOPE_USDT },
      { capability: 'bars', instrument: NOPE_USDT },
    ],
    extra: [
      {
        title: 'asks Binance for klines with its inclusive endTime and a limit that fits the range',
        async run(provider, signal) {
          const start = new Date(klines[0]![0]);
          await provider.bars!({
            instrument: BTC_USDT,
            interval: '1m',
            start,
            end: new Date(klines[0]![0] + 600_000),
            signal,
          });
          expect(server.requests.filter((r) => r.path === '/api/v3/klines').at(-1)?.query).toEqual({
            symbol: 'BTCUSDT',
            interval: '1m',
            startTime: String(start.getTime()),
            endTime: String(start.getTime() + 600_000 - 1),
            limit: '10',
          });
        },
      },
      {
        title: 'gives 24 h statistics with quote volume and no market cap',
        async run(provider, signal) {
          const stats = await provider.cryptoStats!({ instrument: BTC_USDT, signal });
          expect(stats).toMatchObject({
            symbol: 'BTC/USDT',
            venue: 'binance',
            lastPrice: Number(ticker.lastPrice),
            priceChangePercent: Number(ticker.priceChangePercent),
            volume: Number(ticker.volume),
            quoteVolume: Number(ticker.quoteVolume),
            marketCap: null,
            asOf: new Date(Number(ticker.closeTime)),
          });
        },
      },
      {
        title: 'reads the order book at the smallest allowed limit, dated by the Date header',
        async run(provider, signal) {
          const before = Date.now();
          const book = await provider.orderBook!({ instrument: BTC_USDT, depth: 7, signal });
          expect(server.requests.at(-1)?.query).toEqual({ symbol: 'BTCUSDT', limit: '10' });
          expect(book.bids).toHaveLength(7);
          expect(book.asks).toHaveLength(7);
          const full = await provider.orderBook!({ instrument: BTC_USDT, depth: 10, signal });
          expect(full.bids).toHaveLength(depth.bids.length);
          expect(full.asks).toHaveLength(depth.asks.length);
          expect(full.bids[0]).toEqual({ price: Number(depth.bids[0]![0]), size: Number(depth.bids[0]![1]) });
          expect(full.bids[0]!.price).toBeLessThan(full.asks[0]!.price);
          // The Date header has whole seconds.
          expect(full.asOf.getTime()).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
          expect(full.asOf.getTime()).toBeLessThanOrEqual(Date.now());
        },
      },
      {
        title: 'gives the USD-M funding rate from premiumIndex (documentation sample)',
        async run(provider, signal) {
          expect(provider.supports('funding', BTC_USDT)).toBe(true);
          const funding = await provider.funding!({ instrument: BTC_USDT, signal });
          expect(funding).toEqual({
            symbol: 'BTC/USDT',
            venue: 'binance',
            rate: Number(premium.lastFundingRate),
            intervalHours: 8,
            markPrice: Number(premium.markPrice),
            nextFundingTime: new Date(Number(premium.nextFundingTime)),
            asOf: new Date(Number(premium.time)),
          });
        },
      },
      {
        title: 'reads large trades from the newest end, three pages at most, valued in USDT',
        async run(provider, signal) {
          const before = server.requests.length;
          const since = new Date(AGG_T0);
          const trades = await provider.largeTrades!({ instrument: BTC_USDT, since, minUsd: 1e6, signal });
          // The USD 3M whale lies in the oldest 500 trades, beyond 3 x 1,000 from the newest end.
          expect(trades).toEqual([
            {
              id: String(FIRST_AGG_ID + 3000),
              symbol: 'BTC/USDT',
              venue: 'binance',
              price: 60_000,
              quantity: 20,
              usdValue: 1_200_000,
              side: 'sell',
              time: new Date(AGG_T0 + 300_000),
            },
            {
              id: String(FIRST_AGG_ID + 3400),
              symbol: 'BTC/USDT',
              venue: 'binance',
              price: 60_000,
              quantity: 100,
              usdValue: 6_000_000,
              side: 'buy',
              time: new Date(AGG_T0 + 340_000),
            },
          ]);
          expect(server.requests.slice(before).map((r) => r.query)).toEqual([
            { symbol: 'BTCUSDT', limit: '1000' },
            { symbol: 'BTCUSDT', fromId: String(FIRST_AGG_ID + 1500), limit: '1000' },
            { symbol: 'BTCUSDT', fromId: String(FIRST_AGG_ID + 500), limit: '1000' },
          ]);
          // A window inside the newest page takes one request.
          const recent = server.requests.length;
          const late = await provider.largeTrades!({
            instrument: BTC_USDT,
            since: new Date(AGG_T0 + 320_000),
            minUsd: 1e6,
            signal,
          });
          expect(late.map((t) => t.usdValue)).toEqual([6_000_000]);
          expect(server.requests.length - recent).toBe(1);
        },
      },
      {
        title: 'offers large trades for USD-stablecoin pairs only, refusing others without asking',
        async run(provider, signal) {
          expect(provider.supports('largeTrades', BTC_USDT)).toBe(true);
          expect(provider.supports('largeTrades', parseInstrument('BTC/FDUSD'))).toBe(true);
          expect(provider.supports('largeTrades', parseInstrument('ETH/BTC'))).toBe(false);
          expect(provider.supports('largeTrades', parseInstrument('BTC/USD'))).toBe(false);
          const before = server.requests.length;
          const since = new Date(AGG_T0);
          await expectProviderError(
            provider.largeTrades!({ instrument: parseInstrument('ETH/BTC'), since, minUsd: 1e6, signal }),
            'unsupported',
          );
          await expectProviderError(
            provider.largeTrades!({ instrument: parseInstrument('BTC/USD'), since, minUsd: 1e6, signal }),
            'unknown_symbol',
          );
          expect(server.requests.length).toBe(before);
        },
      },
      {
        title: 'reports spot and futures up after timed pings',
        async run(provider, signal) {
          const statuses = await provider.venueStatus!({ signal });
          expect(statuses.map((s) => [s.venue, s.status, s.detail])).toEqual([
            ['binance', 'up', null],
            ['binance-futures', 'up', null],
          ]);
          for (const s of statuses) expect(s.latencyMs).toBeGreaterThanOrEqual(0);
        },
      },
      {
        title: 'supports only pairs Binance lists, so USD pairs go to another provider',
        async run(provider) {
          expect(provider.supports('quote', BTC_USDT)).toBe(true);
          expect(provider.supports('stream', parseInstrument('ETH/BTC'))).toBe(true);
          expect(provider.supports('quote', parseInstrument('BTC/USD'))).toBe(false);
          expect(provider.supports('funding', parseInstrument('BTC/FDUSD'))).toBe(false);
          expect(provider.supports('quote', parseInstrument('AAPL'))).toBe(false);
          expect(provider.supports('venueStatus')).toBe(true);
          expect(provider.supports('profile')).toBe(false);
        },
      },
    ],
  });

  describe('binance error answers and edges', () => {
    let local: FixtureServer | undefined;
    let provider: MarketDataProvider | undefined;
    afterEach(async () => {
      await provider?.close?.();
      await local?.close();
      local = undefined;
      provider = undefined;
    });
    const start = async (routes: FixtureRoute[], futuresBaseUrl?: string) => {
      local = await startFixtureServer(routes);
      provider = createBinanceProvider({
        baseUrl: local.url,
        futuresBaseUrl: futuresBaseUrl ?? local.url,
        wsUrl: 'ws://127.0.0.1:9',
        ratePerSecond: 1_000,
      });
      return provider;
    };
    const signal = () => AbortSignal.timeout(5_000);

    it('treats 418 (IP banned) as rate limiting with its Retry-After', async () => {
      const p = await start([
        {
          path: '/api/v3/ticker/24hr',
          reply: {
            status: 418,
            headers: { 'retry-after': '120' },
            body: { code: -1003, msg: 'Way too many requests; IP banned until 1634944521452.' },
          },
        },
      ]);
      const error = await expectProviderError(
        p.quote!({ instrument: BTC_USDT, signal: signal() }),
        'rate_limited',
      );
      expect(error.details).toMatchObject({ status: 418, retryAfterMs: 120_000 });
    });

    it('says unknown_symbol for a perpetual Binance does not list', async () => {
      const p = await start([{ path: '/fapi/v1/premiumIndex', reply: INVALID_SYMBOL }]);
      await expectProviderError(p.funding!({ instrument: NOPE_USDT, signal: signal() }), 'unknown_symbol');
    });

    it('refuses USD pairs without asking Binance', async () => {
      const p = await start([]);
      await expectProviderError(
        p.quote!({ instrument: parseInstrument('BTC/USD'), signal: signal() }),
        'unknown_symbol',
      );
      await expectProviderError(
        p.quote!({ instrument: parseInstrument('AAPL'), signal: signal() }),
        'unsupported',
      );
      expect(local!.requests).toHaveLength(0);
    });

    it('rejects a body that is not a ticker as a bad response', async () => {
      const p = await start([
        { path: '/api/v3/ticker/24hr', reply: { body: { symbol: 'BTCUSDT', lastPrice: 'n/a' } } },
      ]);
      await expectProviderError(p.quote!({ instrument: BTC_USDT, signal: signal() }), 'bad_response');
    });

    it('reports a venue that does not answer as down, and a slow one as degraded', async () => {
      const p = await start(
        [{ path: '/api/v3/ping', reply: { body: {}, delayMs: 1_050 } }],
        'http://127.0.0.1:9',
      );
      const [spot, futures] = await p.venueStatus!({ signal: signal() });
      expect(spot).toMatchObject({ venue: 'binance', status: 'degraded' });
      expect(spot!.latencyMs).toBeGreaterThan(1_000);
      expect(futures).toMatchObject({ venue: 'binance-futures', status: 'down', latencyMs: null });
      expect(futures!.detail).toMatch(/binance/);
    });

    it('says unknown_symbol when Binance does not list a pair asked for its trades', async () => {
      const p = await start([{ path: '/api/v3/aggTrades', reply: INVALID_SYMBOL }]);
      await expectProviderError(
        p.largeTrades!({ instrument: NOPE_USDT, since: new Date(AGG_T0), minUsd: 1, signal: signal() }),
        'unknown_symbol',
      );
    });

    it('pages aggregate trades back by id and stops at the window, the first trade or no progress', async () => {
      const recorded = parseAggTrades(aggTrades.slice(0, 10));
      const asked: Array<[number | undefined, number]> = [];
      const pageOf = (list: typeof recorded) => async (fromId: number | undefined, limit: number) => {
        asked.push([fromId, limit]);
        return fromId === undefined ? list.slice(-limit) : list.filter((t) => t.id >= fromId).slice(0, limit);
      };
      // Reaches the window's start on the second page; trades before it are dropped.
      const since = recorded[3]!.time;
      expect(await newestAggTrades(pageOf(recorded), since, 5, 4)).toEqual(recorded.slice(3));
      const a0 = FIRST_AGG_ID;
      expect(asked).toEqual([
        [undefined, 4],
        [a0 + 2, 4],
      ]);
      // The bound: two pages of four are the newest eight trades.
      asked.length = 0;
      expect(await newestAggTrades(pageOf(recorded), recorded[0]!.time, 2, 4)).toEqual(recorded.slice(2));
      // A short newest page is all there is; a page that does not reach back ends the walk.
      asked.length = 0;
      expect(await newestAggTrades(pageOf(recorded.slice(7)), recorded[0]!.time, 5, 4)).toEqual(
        recorded.slice(7),
      );
      expect(asked).toEqual([[undefined, 4]]);
      const stuck = async () => recorded.slice(-4);
      expect(await newestAggTrades(stuck, recorded[0]!.time, 5, 4)).toEqual(recorded.slice(-4));
    });

    it('pages through long kline ranges from where the previous page ended', async () => {
      const recorded = parseKlines(klines);
      const asked: Array<[number, number]> = [];
      // Answers like /api/v3/klines over the recording: open time >= startTime, at most `limit`.
      const fetchPage = async (from: number, limit: number) => {
        asked.push([from, limit]);
        return recorded.filter((b) => b.time.getTime() >= from).slice(0, limit);
      };
      const bars = await pagedKlines(
        fetchPage,
        recorded[0]!.time,
        new Date(recorded[9]!.time.getTime() + 60_000),
        60_000,
        4,
      );
      expect(bars).toEqual(recorded);
      const t0 = recorded[0]!.time.getTime();
      expect(asked).toEqual([
        [t0, 4],
        [t0 + 3 * 60_000 + 1, 4],
        [t0 + 7 * 60_000 + 1, 3],
      ]);
    });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { createCoinGeckoProvider } from '../../src/market-data/providers/coingecko.provider.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { type FixtureRoute, type FixtureServer, startFixtureServer } from '../support/fixture-server.ts';
import { describeWithFixtures, fixtureJson, loadFixture } from '../support/fixtures.ts';
import { expectProviderError, providerContract } from '../support/provider-contract.ts';

describeWithFixtures('coingecko on recorded responses', () => {
  const BTC_USD = parseInstrument('BTC/USD');
  const H4 = 14_400_000;

  const simplePrice = loadFixture('coingecko/simple-price-ids-bitcoin-vs-usd.json');
  const market = fixtureJson<Array<Record<string, number | string>>>(
    'coingecko/coins-markets-ids-bitcoin-vs-usd.json',
  )[0]!;
  const ohlc = fixtureJson<number[][]>('coingecko/coins-bitcoin-ohlc-days7-usd.json');
  /** The OHLC recording's own Date: its `days=7` window ends here. */
  const OHLC_RECORDED_AT = new Date(loadFixture('coingecko/coins-bitcoin-ohlc-days7-usd.json').headers.date!);

  /** The daily bar of `day` (UTC date) from the six 4 h candles that CLOSE inside (day 00:00, day+1 00:00]. */
  function dailyFromRecording(day: string) {
    const open = Date.parse(`${day}T00:00:00Z`);
    const candles = ohlc.filter(([t]) => t! > open && t! <= open + 86_400_000);
    expect(candles).toHaveLength(6);
    return {
      time: new Date(open),
      open: candles[0]![1],
      high: Math.max(...candles.map((c) => c[2]!)),
      low: Math.min(...candles.map((c) => c[3]!)),
      close: candles[5]![4],
      volume: null,
    };
  }

  const ROUTES: FixtureRoute[] = [
    {
      path: '/simple/price',
      query: { ids: 'bitcoin', vs_currencies: 'usd' },
      reply: 'coingecko/simple-price-ids-bitcoin-vs-usd.json',
    },
    // CoinGecko's answer for an id it does not know.
    { path: '/simple/price', query: { ids: 'dogecoin' }, reply: { body: {} } },
    {
      path: '/coins/markets',
      query: { ids: 'bitcoin', vs_currency: 'usd' },
      reply: 'coingecko/coins-markets-ids-bitcoin-vs-usd.json',
    },
    {
      path: '/coins/bitcoin/ohlc',
      query: { vs_currency: 'usd', days: '7' },
      reply: 'coingecko/coins-bitcoin-ohlc-days7-usd.json',
    },
  ];

  let server: FixtureServer;

  providerContract({
    name: 'coingecko (recorded responses)',
    async create() {
      server = await startFixtureServer(ROUTES);
      const provider = createCoinGeckoProvider({
        baseUrl: server.url,
        apiKey: 'demo-key',
        ratePerSecond: 1_000,
        clock: { now: () => OHLC_RECORDED_AT },
      });
      return { provider, close: () => server.close() };
    },
    quote: {
      instrument: BTC_USD,
      expect: {
        price: 49013,
        currency: 'USD',
        // No last_updated_at in the recording: the answer's Date minus its CDN Age.
        asOf: new Date(Date.parse(simplePrice.headers.date!) - Number(simplePrice.headers.age) * 1000),
        previousClose: null,
      },
    },
    bars: {
      call: {
        instrument: BTC_USD,
        interval: '1d',
        start: new Date('2021-05-09T00:00:00Z'),
        end: new Date('2021-05-15T00:00:00Z'),
      },
      expect: { count: 6, first: dailyFromRecording('2021-05-09'), last: dailyFromRecording('2021-05-14') },
    },
    unknown: [
      { capability: 'quote', instrument: parseInstrument('NKN/USD') },
      { capability: 'bars', instrument: parseInstrument('NKN/USD') },
    ],
    extra: [
      {
        title: 'asks /simple/price for change, volume and update time, with the demo key',
        async run(provider, signal) {
          await provider.quote!({ instrument: parseInstrument('BTC/USDT'), signal });
          const request = server.requests.filter((r) => r.path === '/simple/price').at(-1)!;
          expect(request.query).toEqual({
            ids: 'bitcoin',
            vs_currencies: 'usd',
            include_24hr_change: 'true',
            include_24hr_vol: 'true',
            include_last_updated_at: 'true',
          });
          expect(request.headers['x-cg-demo-api-key']).toBe('demo-key');
        },
      },
      {
        title: 'says unknown when /simple/price answers {} for the id',
        async run(provider, signal) {
          await expectProviderError(
            provider.quote!({ instrument: parseInstrument('DOGE/USD'), signal }),
            'unknown_symbol',
          );
        },
      },
      {
        title: 'gives 24 h statistics with market cap and quote-currency volume',
        async run(provider, signal) {
          const stats = await provider.cryptoStats!({ instrument: BTC_USD, signal });
          expect(stats).toEqual({
            symbol: 'BTC/USD',
            venue: 'coingecko',
            lastPrice: market.current_price,
            priceChange: market.price_change_24h,
            priceChangePercent: market.price_change_percentage_24h,
            high: market.high_24h,
            low: market.low_24h,
            volume: null,
            quoteVolume: market.total_volume,
            marketCap: market.market_cap,
            asOf: new Date(String(market.last_updated)),
          });
        },
      },
      {
        title: 'builds daily bars from the 7-day 4 h candles (42 of them, close-stamped)',
        async run(provider, signal) {
          expect(ohlc).toHaveLength(42);
          expect(ohlc.every(([t], i) => i === 0 || t! - ohlc[i - 1]![0]! === H4)).toBe(true);
          const bars = await provider.bars!({
            instrument: BTC_USD,
            interval: '1d',
            start: new Date('2021-05-08T16:00:00Z'),
            end: new Date('2021-05-16T00:00:00Z'),
            signal,
          });
          // 2021-05-15 has four of its six candles so far: no bar rather than a guess.
          expect(bars.map((b) => b.time.toISOString().slice(0, 10))).toEqual([
            '2021-05-09',
            '2021-05-10',
            '2021-05-11',
            '2021-05-12',
            '2021-05-13',
            '2021-05-14',
          ]);
          expect(bars.every((b) => b.volume === null)).toBe(true);
          expect(server.requests.at(-1)).toMatchObject({
            path: '/coins/bitcoin/ohlc',
            query: { vs_currency: 'usd', days: '7' },
          });
        },
      },
      {
        title: 'refuses intervals and ranges the public OHLC endpoint cannot deliver, without asking',
        async run(provider, signal) {
          const asked = server.requests.length;
          const now = OHLC_RECORDED_AT.getTime();
          const call = (interval: '1m' | '30m' | '1d', daysBack: number) =>
            provider.bars!({
              instrument: BTC_USD,
              interval,
              start: new Date(now - daysBack * 86_400_000),
              end: new Date(now),
              signal,
            });
          await expectProviderError(call('1m', 0.5), 'unsupported');
          await expectProviderError(call('30m', 2), 'unsupported');
          await expectProviderError(call('1d', 45), 'unsupported');
          expect(server.requests.length).toBe(asked);
        },
      },
      {
        title: 'supports the coins it has ids for, priced in a vs_currency it knows',
        async run(provider) {
          expect(provider.supports('quote', parseInstrument('BTC/USDT'))).toBe(true);
          expect(provider.supports('bars', parseInstrument('ETH/EUR'))).toBe(true);
          expect(provider.supports('quote', parseInstrument('NKN/USDT'))).toBe(false);
          expect(provider.supports('quote', parseInstrument('AAPL'))).toBe(false);
          expect(provider.supports('orderBook')).toBe(false);
        },
      },
    ],
  });

  describe('coingecko error answers', () => {
    let local: FixtureServer | undefined;
    let provider: MarketDataProvider | undefined;
    afterEach(async () => {
      await local?.close();
      local = undefined;
      provider = undefined;
    });
    const start = async (routes: FixtureRoute[]) => {
      local = await startFixtureServer(routes);
      provider = createCoinGeckoProvider({ baseUrl: local.url, ratePerSecond: 1_000 });
      return provider;
    };
    const signal = () => AbortSignal.timeout(5_000);

    it('retries the recorded 500 and then reports the upstream as failing', async () => {
      const p = await start([
        { path: '/coins/markets', reply: 'coingecko/coins-bitcoin-ohlc-error-500-missing-params.json' },
      ]);
      const error = await expectProviderError(
        p.cryptoStats!({ instrument: BTC_USD, signal: signal() }),
        'upstream',
      );
      expect(error.details.status).toBe(500);
      expect(error.message).toMatch(/Internal Server Error/);
      expect(local!.requests).toHaveLength(3);
    });

    it('reports the recorded 422 as a refused request, not as a missing coin', async () => {
      const p = await start([
        { path: '/simple/price', reply: 'coingecko/simple-price-error-422-missing-params.json' },
        { path: '/coins/markets', reply: 'coingecko/coins-markets-error-422-missing-vs_currency.json' },
      ]);
      const quoteError = await expectProviderError(
        p.quote!({ instrument: BTC_USD, signal: signal() }),
        'bad_response',
      );
      expect(quoteError.message).toMatch(/Missing parameter ids/);
      await expectProviderError(p.cryptoStats!({ instrument: BTC_USD, signal: signal() }), 'bad_response');
      expect(local!.requests.every((r) => r.headers['x-cg-demo-api-key'] === undefined)).toBe(true);
    });

    it('says unknown for an empty market list and a 404 coin', async () => {
      const p = await start([
        { path: '/coins/markets', reply: { body: [] } },
        { path: '/coins/bitcoin/ohlc', reply: { status: 404, body: { error: 'coin not found' } } },
      ]);
      await expectProviderError(p.cryptoStats!({ instrument: BTC_USD, signal: signal() }), 'unknown_symbol');
      const now = Date.now();
      await expectProviderError(
        p.bars!({
          instrument: BTC_USD,
          interval: '1h',
          start: new Date(now - 3_600_000 * 6),
          end: new Date(now),
          signal: signal(),
        }),
        'unknown_symbol',
      );
    });

    it('passes a long Retry-After on 429 through as rate limiting', async () => {
      const p = await start([
        { path: '/simple/price', reply: { status: 429, headers: { 'retry-after': '60' }, body: {} } },
      ]);
      const error = await expectProviderError(
        p.quote!({ instrument: BTC_USD, signal: signal() }),
        'rate_limited',
      );
      expect(error.details.retryAfterMs).toBe(60_000);
    });
  });
});

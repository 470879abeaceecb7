import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBinanceProvider } from '../src/market-data/providers/binance.provider.ts';
import { createCoinGeckoProvider } from '../src/market-data/providers/coingecko.provider.ts';
import { createYahooProvider } from '../src/market-data/providers/yahoo.provider.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { type FixtureServer, startFixtureServer } from './support/fixture-server.ts';
import { describeWithFixtures, fixtureJson } from './support/fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const TSLA_1D = 'yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json';
const MSFT_1D = 'yahoo/chart-v8-MSFT-1d-2021-02-01-to-2022-01-31-events-div.json';
const AAPL_1M = 'yahoo/chart-v8-AAPL-1m-2024-10-02.json';
const QUOTE_V7 = 'yahoo/quote-v7-AAPL-BABA.json';
const KLINES = 'binance/api-v3-klines-BTCUSDT-1m-limit10.json';

const seconds = (iso: string) => String(Date.parse(iso) / 1000);
const chartPath = (ticker: string) => `/v8/finance/chart/${encodeURIComponent(ticker)}`;

interface RecordedChart {
  chart: {
    result: Array<{
      timestamp: number[];
      indicators: { quote: Array<Record<string, Array<number | null>>> };
    }>;
  };
}
type Kline = [number, string, string, string, string, string, ...unknown[]];

/** Yahoo's answer to a range it has no data for (shape as Yahoo sends it; not among the recordings). */
const DATA_DOES_NOT_EXIST = {
  status: 400,
  body: {
    chart: {
      result: null,
      error: {
        code: 'Bad Request',
        description: "Data doesn't exist for startDate = 1577836800, endDate = 1578009600",
      },
    },
  },
};

/** Yahoo's session host answers 404 and sets the cookie; the crumb and search shapes stand in (not recorded). */
const SESSION_COOKIE = 'A3=d=session-one; Domain=.yahoo.com; Path=/; Secure';
const searchRow = (symbol: string, quoteType: string, longname: string) => ({
  symbol,
  quoteType,
  longname,
  shortname: longname,
  exchange: 'NMS',
  exchDisp: 'NASDAQ',
  index: 'quotes',
});

/**
 * The history, search and Yahoo items checked end to end through GraphQL against the recorded
 * provider responses: the adapters are the real ones, talking HTTP to a local server that answers
 * with the recordings.
 */
describeWithFixtures('market data through GraphQL on recorded provider responses', () => {
  let yahoo: FixtureServer;
  let binance: FixtureServer;
  let coingecko: FixtureServer;
  let t: TestApp;
  let configured: TestApp;
  const klines = fixtureJson<Kline[]>(KLINES);

  beforeAll(async () => {
    yahoo = await startFixtureServer([
      {
        path: chartPath('TSLA'),
        query: {
          interval: '1d',
          period1: seconds('2010-06-29T00:00:00Z'),
          period2: seconds('2023-08-12T00:00:00Z'),
        },
        reply: TSLA_1D,
      },
      {
        path: chartPath('MSFT'),
        query: {
          interval: '1d',
          period1: seconds('2021-02-01T00:00:00Z'),
          period2: seconds('2022-01-31T00:00:00Z'),
        },
        reply: MSFT_1D,
      },
      { path: chartPath('AAPL'), query: { range: '1d', interval: '1d' }, reply: AAPL_1M },
      { path: chartPath('XYZ'), reply: DATA_DOES_NOT_EXIST },
      { path: '/', reply: { status: 404, headers: { 'set-cookie': SESSION_COOKIE }, body: 'Not Found' } },
      {
        path: '/v1/test/getcrumb',
        reply: (request) =>
          String(request.headers.cookie).includes('A3=d=session-one')
            ? { headers: { 'content-type': 'text/plain' }, body: 'crumb1' }
            : { status: 401, body: '' },
      },
      { path: '/v7/finance/quote', query: { symbols: 'AAPL', crumb: 'crumb1' }, reply: QUOTE_V7 },
      {
        path: '/v1/finance/search',
        reply: {
          body: {
            quotes: [
              searchRow('AAPL', 'EQUITY', 'Apple Inc.'),
              searchRow('AAPL.SN', 'EQUITY', 'Apple Inc.'),
              searchRow('BTC-USD', 'CRYPTOCURRENCY', 'Bitcoin USD'),
            ],
            news: [],
          },
        },
      },
    ]);
    binance = await startFixtureServer([
      {
        path: '/api/v3/klines',
        query: { symbol: 'BTCUSDT', interval: '1m' },
        // Like Binance over the recording: open times in [startTime, endTime], at most `limit`.
        reply: ({ query }) => ({
          body: klines
            .filter((k) => k[0] >= Number(query.startTime ?? 0) && k[0] <= Number(query.endTime ?? Infinity))
            .slice(0, Number(query.limit ?? 500)),
        }),
      },
    ]);
    coingecko = await startFixtureServer([
      {
        path: '/search',
        reply: {
          body: {
            coins: [
              { id: 'bitcoin', name: 'Bitcoin', api_symbol: 'bitcoin', symbol: 'BTC', market_cap_rank: 1 },
              {
                id: 'bitcoin-cash',
                name: 'Bitcoin Cash',
                api_symbol: 'bitcoin-cash',
                symbol: 'BCH',
                market_cap_rank: 20,
              },
            ],
            exchanges: [],
          },
        },
      },
    ]);
    t = await createTestApp({
      env: { RATE_LIMIT_MAX: '1000', UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: '1000' },
      overrides: {
        providers: [
          createYahooProvider({ baseUrl: yahoo.url, ratePerSecond: 1_000, burst: 100 }),
          createBinanceProvider({
            baseUrl: binance.url,
            futuresBaseUrl: binance.url,
            wsUrl: 'ws://127.0.0.1:9',
            ratePerSecond: 1_000,
          }),
          createCoinGeckoProvider({ baseUrl: coingecko.url, ratePerSecond: 1_000 }),
        ],
      },
    });
    // Configured the way an operator would: only YAHOO_BASE_URL points at the test double.
    configured = await createTestApp({
      env: { MARKET_DATA_PROVIDERS: 'yahoo', YAHOO_BASE_URL: yahoo.url, RATE_LIMIT_MAX: '1000' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await configured?.close();
    await Promise.all([yahoo?.close(), binance?.close(), coingecko?.close()]);
  });

  const BARS = `query Bars($symbol: String!, $interval: BarInterval, $from: DateTime, $to: DateTime, $first: Int, $after: String) {
    bars(symbol: $symbol, interval: $interval, from: $from, to: $to, first: $first, after: $after) {
      instrument { id } totalCount
      edges { cursor node { time open high low close volume adjClose } }
      pageInfo { hasNextPage endCursor }
      lineage { used simulated }
    }
  }`;

  /** Every bar of a range, page by page. */
  async function allBars(variables: Record<string, unknown>) {
    const pages: Json[] = [];
    let after: string | undefined;
    for (;;) {
      const { body } = await graphql<{ bars: Json }>(t.app, BARS, {
        ...variables,
        ...(after ? { after } : {}),
      });
      expect(body.errors).toBeUndefined();
      pages.push(body.data!.bars);
      if (!body.data!.bars.pageInfo.hasNextPage) break;
      after = body.data!.bars.pageInfo.endCursor;
    }
    return { pages, bars: pages.flatMap((p) => p.edges.map((e: Json) => e.node)) };
  }

  it('pages through the 3,303 recorded TSLA daily bars, equal to the recording', async () => {
    const { pages, bars } = await allBars({
      symbol: 'TSLA',
      from: '2010-06-29T00:00:00Z',
      to: '2023-08-12T00:00:00Z',
      first: 1000,
    });
    expect(pages.map((p) => p.edges.length)).toEqual([1000, 1000, 1000, 303]);
    expect(pages[0]).toMatchObject({ instrument: { id: 'equity:US:TSLA' }, totalCount: 3303 });
    expect(pages[0].lineage).toEqual({ used: ['yahoo'], simulated: false });
    const recorded = fixtureJson<RecordedChart>(TSLA_1D).chart.result[0]!;
    const quote = recorded.indicators.quote[0]!;
    expect(bars.map((b: Json) => Date.parse(b.time) / 1000)).toEqual(recorded.timestamp);
    for (const i of [0, 1234, 3302]) {
      expect(bars[i]).toMatchObject({
        open: quote.open![i],
        high: quote.high![i],
        low: quote.low![i],
        close: quote.close![i],
        volume: quote.volume![i],
      });
    }
    expect(bars[0].open).toBeCloseTo(1.2667, 4);
  });

  it('gives the 252 recorded MSFT daily bars of a year, with dividend-adjusted closes', async () => {
    const { bars } = await allBars({
      symbol: 'MSFT',
      from: '2021-02-01T00:00:00Z',
      to: '2022-01-31T00:00:00Z',
      first: 1000,
    });
    expect(bars).toHaveLength(252);
    expect(bars[0].close).toBeCloseTo(239.65, 2);
    expect(bars[0].adjClose).toBeCloseTo(231.1865, 3);
  });

  it('pages through recorded Binance 1m klines of a crypto pair (BTCUSDT resolved as BTC/USDT)', async () => {
    const from = new Date(klines[0]![0]).toISOString();
    const to = new Date(klines.at(-1)![0] + 60_000).toISOString();
    const { pages, bars } = await allBars({ symbol: 'BTCUSDT', interval: 'ONE_MINUTE', from, to, first: 4 });
    expect(pages.map((p) => p.edges.length)).toEqual([4, 4, 2]);
    expect(pages[0].instrument.id).toBe('crypto:BTC/USDT');
    expect(pages[0].lineage.used).toEqual(['binance']);
    expect(bars).toEqual(
      klines.map((k) => ({
        time: new Date(k[0]).toISOString(),
        open: Number(k[1]),
        high: Number(k[2]),
        low: Number(k[3]),
        close: Number(k[4]),
        volume: Number(k[5]),
        adjClose: null,
      })),
    );
  });

  it('reports Yahoo\'s "Data doesn\'t exist" as an unknown symbol, not as unsupported', async () => {
    const { body } = await graphql(
      t.app,
      '{ bars(symbol: "XYZ", from: "2020-01-01T00:00:00Z", to: "2020-01-03T00:00:00Z") { totalCount } }',
    );
    expect(body.errors?.[0]).toMatchObject({
      message:
        "unknown symbol XYZ: no provider knows it (yahoo: Data doesn't exist for startDate = 1577836800, endDate = 1578009600)",
      extensions: {
        code: 'UNKNOWN_SYMBOL',
        attempts: [
          expect.objectContaining({
            provider: 'yahoo',
            kind: 'unknown_symbol',
            error: expect.stringContaining("Data doesn't exist"),
          }),
        ],
      },
    });
  });

  it('searches every provider that can, merged without duplicates and only what can be quoted', async () => {
    const { body } = await graphql<{ instruments: Json }>(
      t.app,
      '{ instruments(query: "bitcoin") { instruments { id name } lineage { asked used } } }',
    );
    expect(body.errors).toBeUndefined();
    const { instruments, lineage } = body.data!.instruments;
    expect([...lineage.asked].sort()).toEqual(['coingecko', 'yahoo']);
    expect(instruments.map((i: Json) => i.id).sort()).toEqual(
      ['crypto:BCH/USDT', 'crypto:BTC/USD', 'crypto:BTC/USDT', 'equity:US:AAPL'].sort(),
    );
  });

  it('loads Yahoo profiles with only YAHOO_BASE_URL set: the session comes from the same host', async () => {
    const before = yahoo.requests.length;
    const { body } = await graphql<{ searchBySymbol: Json }>(
      configured.app,
      '{ searchBySymbol(symbol: "AAPL", depth: STANDARD) { name fundamentals { marketCap peRatio } } }',
    );
    const row = fixtureJson<{ quoteResponse: { result: Array<Record<string, number>> } }>(QUOTE_V7)
      .quoteResponse.result[0]!;
    expect(body.data?.searchBySymbol).toMatchObject({
      name: 'Apple Inc.',
      fundamentals: { marketCap: row.marketCap, peRatio: row.trailingPE },
    });
    const paths = yahoo.requests.slice(before).map((r) => r.path);
    expect(paths).toEqual(expect.arrayContaining(['/', '/v1/test/getcrumb', '/v7/finance/quote']));
  });
});

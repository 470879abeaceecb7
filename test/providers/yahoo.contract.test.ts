import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { createYahooProvider, yahooSessionUrl } from '../../src/market-data/providers/yahoo.provider.ts';
import type { Instrument } from '../../src/market-data/types.ts';
import { type FixtureRoute, type FixtureServer, startFixtureServer } from '../support/fixture-server.ts';
import { describeWithFixtures, fixtureJson } from '../support/fixtures.ts';
import { expectProviderError, providerContract } from '../support/provider-contract.ts';

const AAPL = parseInstrument('AAPL');
const TSLA = parseInstrument('TSLA');
const SI = parseInstrument('SI');
const seconds = (iso: string) => String(Date.parse(iso) / 1000);
const chartPath = (ticker: string) => `/v8/finance/chart/${encodeURIComponent(ticker)}`;
const signal = () => AbortSignal.timeout(10_000);

const TSLA_1D = 'yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json';
const AAPL_1M = 'yahoo/chart-v8-AAPL-1m-2024-10-02.json';
const QUOTE_V7 = 'yahoo/quote-v7-AAPL-BABA.json';

/** Yahoo's answers to the session flow are not recorded; these stand in for its shape only. */
const COOKIE = 'A3=d=session-one; Expires=Fri, 19 Feb 2027 11:47:42 GMT; Domain=.yahoo.com; Path=/; Secure';
const INVALID_CRUMB = {
  finance: { result: null, error: { code: 'Unauthorized', description: 'Invalid Crumb' } },
};

interface YahooFixtures {
  readonly server: FixtureServer;
  readonly provider: MarketDataProvider;
  close(): Promise<void>;
}

/** Recorded chart and quote answers by path and query, plus the cookie/crumb endpoints. */
async function startYahoo(quoteReply?: FixtureRoute['reply']): Promise<YahooFixtures> {
  let crumbs = 0;
  const server = await startFixtureServer([
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
      path: chartPath('AAPL'),
      query: {
        interval: '1m',
        period1: seconds('2024-10-02T00:00:00Z'),
        period2: seconds('2024-10-03T00:00:00Z'),
      },
      reply: AAPL_1M,
    },
    {
      path: chartPath('AAPL'),
      query: {
        interval: '1m',
        period1: seconds('2025-02-01T00:00:00Z'),
        period2: seconds('2025-02-02T00:00:00Z'),
      },
      reply: 'yahoo/chart-v8-AAPL-1m-2025-02-01-weekend-empty.json',
    },
    // The quote asks for the latest session's chart; the AAPL 1m recording's meta answers it.
    { path: chartPath('AAPL'), query: { range: '1d', interval: '1d' }, reply: AAPL_1M },
    { path: chartPath('SI'), reply: 'yahoo/chart-v8-error-404-SI-no-data-found.json' },
    { path: chartPath('^GSPC'), reply: 'yahoo/chart-v8-AAPL-1m-2025-02-01-weekend-empty.json' },
    // Like fc.yahoo.com: a 404 page that sets the session cookie.
    { path: '/consent', reply: { status: 404, headers: { 'set-cookie': COOKIE }, body: 'Not Found' } },
    {
      path: '/v1/test/getcrumb',
      reply: (request) => {
        if (!String(request.headers.cookie).includes('A3=d=session-one')) return { status: 401, body: '' };
        crumbs++;
        return { headers: { 'content-type': 'text/plain' }, body: `crumb${crumbs}` };
      },
    },
    {
      path: '/v7/finance/quote',
      query: { symbols: 'AAPL' },
      reply:
        quoteReply ??
        ((request) =>
          request.query.crumb === `crumb${crumbs}` ? QUOTE_V7 : { status: 401, body: INVALID_CRUMB }),
    },
  ]);
  const provider = createYahooProvider({
    baseUrl: server.url,
    cookieUrl: `${server.url}/consent`,
    ratePerSecond: 1_000,
    burst: 100,
  });
  return { server, provider, close: () => server.close() };
}

let contractServer: FixtureServer;

providerContract({
  name: 'yahoo (recorded responses)',
  recorded: true,
  async create() {
    const fixtures = await startYahoo();
    contractServer = fixtures.server;
    return fixtures;
  },
  quote: {
    instrument: AAPL,
    expect: {
      price: 225.67,
      previousClose: 226.78,
      currency: 'USD',
      asOf: new Date('2024-10-03T20:00:01Z'),
    },
  },
  bars: {
    call: {
      instrument: TSLA,
      interval: '1d',
      start: new Date('2010-06-29T00:00:00Z'),
      end: new Date('2023-08-12T00:00:00Z'),
    },
    expect: {
      count: 3303,
      first: { time: new Date('2010-06-29T13:30:00Z'), open: expect.closeTo(1.2667, 4) },
      last: { time: new Date('2023-08-11T13:30:00Z'), close: expect.closeTo(242.65, 2) },
    },
  },
  unknown: [
    { capability: 'bars', instrument: SI },
    { capability: 'quote', instrument: SI },
  ],
  extra: [
    {
      title: 'asks chart v8 for the split/dividend-aware series with period seconds',
      async run() {
        const request = contractServer.requests.find((r) => r.path === chartPath('TSLA'));
        expect(request?.query).toMatchObject({
          interval: '1d',
          period1: '1277769600',
          period2: '1691798400',
          events: 'div|split',
        });
      },
    },
    {
      title: 'returns the in-range AAPL 1m bars of 2024-10-02 without the null bar',
      async run(provider, signal) {
        const bars = await provider.bars!({
          instrument: AAPL,
          interval: '1m',
          start: new Date('2024-10-02T00:00:00Z'),
          end: new Date('2024-10-03T00:00:00Z'),
          signal,
        });
        expect(bars).toHaveLength(389);
        expect(bars[0]!.time).toEqual(new Date('2024-10-02T13:30:00Z'));
        expect(bars.at(-1)!.time).toEqual(new Date('2024-10-02T19:59:00Z'));
        expect(bars.find((b) => b.time.getTime() === Date.parse('2024-10-02T15:15:00Z'))).toBeUndefined();
      },
    },
    {
      title: 'quote carries the name and exchange of the chart meta',
      async run(provider, signal) {
        const quote = await provider.quote!({ instrument: AAPL, signal });
        expect(quote).toMatchObject({ name: 'Apple Inc.', exchange: 'NasdaqGS', volume: 33_638_504 });
      },
    },
    {
      title: 'profile comes from quote v7 with a session cookie and crumb',
      async run(provider, signal) {
        const profile = await provider.profile!({ instrument: AAPL, signal });
        const row = fixtureJson<{ quoteResponse: { result: Array<Record<string, number>> } }>(QUOTE_V7)
          .quoteResponse.result[0]!;
        expect(profile).toMatchObject({
          symbol: 'AAPL',
          name: 'Apple Inc.',
          exchange: 'NasdaqGS',
          currency: 'USD',
          assetClass: 'equity',
          sector: null,
          industry: null,
          beta: null,
          marketCap: row.marketCap,
          peRatio: row.trailingPE,
          averageVolume: row.averageDailyVolume3Month,
          week52High: row.fiftyTwoWeekHigh,
          week52Low: row.fiftyTwoWeekLow,
          sharesOutstanding: row.sharesOutstanding,
          asOf: new Date(row.regularMarketTime! * 1000),
        });
        const quoteRequest = contractServer.requests.find((r) => r.path === '/v7/finance/quote');
        expect(quoteRequest?.query.crumb).toBe('crumb1');
        expect(quoteRequest?.headers.cookie).toBe('A3=d=session-one');
      },
    },
    {
      title: 'venue status is up when the chart endpoint answers quickly',
      async run(provider, signal) {
        const [status] = await provider.venueStatus!({ signal });
        expect(status).toMatchObject({ venue: 'yahoo', status: 'up', detail: null });
        expect(status!.latencyMs).toBeGreaterThanOrEqual(0);
        expect(status!.latencyMs).toBeLessThan(1_000);
      },
    },
  ],
});

describeWithFixtures('yahoo adapter beyond the contract', () => {
  let yahoo: YahooFixtures;
  beforeAll(async () => {
    yahoo = await startYahoo();
  });
  afterAll(async () => yahoo?.close());

  it('answers a weekend range with no bars', async () => {
    const bars = await yahoo.provider.bars!({
      instrument: AAPL,
      interval: '1m',
      start: new Date('2025-02-01T00:00:00Z'),
      end: new Date('2025-02-02T00:00:00Z'),
      signal: signal(),
    });
    expect(bars).toEqual([]);
  });

  it("takes the session cookie from the configured URL, Yahoo's session host, or a mirror itself", () => {
    expect(yahooSessionUrl('https://query1.finance.yahoo.com')).toBe('https://fc.yahoo.com');
    expect(yahooSessionUrl('https://query2.finance.yahoo.com')).toBe('https://fc.yahoo.com');
    expect(yahooSessionUrl('http://127.0.0.1:8080/yahoo')).toBe('http://127.0.0.1:8080/yahoo');
    expect(yahooSessionUrl('https://notyahoo.com')).toBe('https://notyahoo.com');
    expect(yahooSessionUrl('https://query1.finance.yahoo.com', 'https://cookies.example')).toBe(
      'https://cookies.example',
    );
  });

  it('maps instruments to Yahoo tickers and declines what has none', () => {
    const p = yahoo.provider;
    expect(p.supports('bars', parseInstrument('BTC/USDT'))).toBe(true);
    expect(p.supports('quote', parseInstrument('EUR/USD'))).toBe(true);
    expect(p.supports('quote', parseInstrument('VOD.L'))).toBe(true);
    expect(p.supports('quote', { symbol: 'CPI', assetClass: 'macro' } satisfies Instrument)).toBe(false);
    expect(p.supports('earnings', AAPL)).toBe(false);
  });

  it('says a symbol quote v7 does not return is unknown', async () => {
    const other = await startYahoo({ body: { quoteResponse: { result: [], error: null } } });
    try {
      await expectProviderError(
        other.provider.profile!({ instrument: AAPL, signal: signal() }),
        'unknown_symbol',
      );
    } finally {
      await other.close();
    }
  });
});

describeWithFixtures('yahoo session (cookie and crumb)', () => {
  it('takes a fresh crumb once when Yahoo stops accepting the cached one', async () => {
    let quoteCalls = 0;
    const yahoo = await startYahoo((request) => {
      quoteCalls++;
      // The first crumb "expires" after one use.
      return request.query.crumb === 'crumb1' && quoteCalls > 1
        ? { status: 401, body: INVALID_CRUMB }
        : QUOTE_V7;
    });
    try {
      await yahoo.provider.profile!({ instrument: AAPL, signal: signal() });
      const profile = await yahoo.provider.profile!({ instrument: AAPL, signal: signal() });
      expect(profile.name).toBe('Apple Inc.');
      const paths = yahoo.server.requests.map(
        (r) => `${r.path}${r.query.crumb ? `?crumb=${r.query.crumb}` : ''}`,
      );
      expect(paths).toEqual([
        '/consent',
        '/v1/test/getcrumb',
        '/v7/finance/quote?crumb=crumb1',
        '/v7/finance/quote?crumb=crumb1',
        '/consent',
        '/v1/test/getcrumb',
        '/v7/finance/quote?crumb=crumb2',
      ]);
    } finally {
      await yahoo.close();
    }
  });

  it('gives up with unauthorized when the fresh crumb is refused too', async () => {
    const yahoo = await startYahoo({ status: 401, body: INVALID_CRUMB });
    try {
      await expectProviderError(
        yahoo.provider.profile!({ instrument: AAPL, signal: signal() }),
        'unauthorized',
      );
      expect(yahoo.server.requests.filter((r) => r.path === '/v7/finance/quote')).toHaveLength(2);
    } finally {
      await yahoo.close();
    }
  });

  it('reports a slow chart endpoint as degraded and an unreachable one as down', async () => {
    const yahoo = await startYahoo();
    const slow = await startFixtureServer([
      {
        path: chartPath('^GSPC'),
        reply: () => ({
          delayMs: 1_100,
          body: fixtureJson('yahoo/chart-v8-AAPL-1m-2025-02-01-weekend-empty.json') as object,
        }),
      },
    ]);
    try {
      const degraded = createYahooProvider({ baseUrl: slow.url, ratePerSecond: 1_000 });
      const [status] = await degraded.venueStatus!({ signal: signal() });
      expect(status).toMatchObject({ venue: 'yahoo', status: 'degraded' });
      expect(status!.latencyMs).toBeGreaterThan(1_000);
      const [down] = await yahoo.provider.venueStatus!({ signal: AbortSignal.abort() });
      expect(down).toMatchObject({ status: 'down', latencyMs: null });
    } finally {
      await slow.close();
      await yahoo.close();
    }
  });
});

import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { createAlphaVantageProvider } from '../../src/market-data/providers/alphavantage.provider.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { type FixtureServer, startFixtureServer } from '../support/fixture-server.ts';
import { describeWithFixtures, fixtureJson } from '../support/fixtures.ts';
import { expectProviderError, providerContract } from '../support/provider-contract.ts';

const KEY = 'test-key';
const IBM = parseInstrument('IBM');
const GME = parseInstrument('GME');
const NOPE = parseInstrument('NOPE');
const signal = () => AbortSignal.timeout(10_000);
/** The recordings are from May 2020; "now" is the day of the IBM quote's close. */
const clock = { now: () => new Date('2020-05-08T21:00:00Z') };

const EARNINGS = 'alphavantage/EARNINGS-IBM.json';
/** Alpha Vantage's refusal shapes that no recording holds, as the API documents them. */
const INVALID_CALL = {
  'Error Message':
    'Invalid API call. Please retry or visit the documentation (https://www.alphavantage.co/documentation/) for TIME_SERIES_DAILY.',
};
const RATE_NOTE = {
  Note: 'Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day.',
};

const query = (fn: string, symbol: string) => ({ function: fn, symbol, apikey: KEY });

async function startAlphaVantage(): Promise<{
  server: FixtureServer;
  provider: MarketDataProvider;
  close(): Promise<void>;
}> {
  const server = await startFixtureServer([
    { path: '/query', query: query('GLOBAL_QUOTE', 'IBM'), reply: 'alphavantage/GLOBAL_QUOTE-IBM.json' },
    { path: '/query', query: query('GLOBAL_QUOTE', 'NOPE'), reply: { body: { 'Global Quote': {} } } },
    {
      path: '/query',
      query: query('TIME_SERIES_DAILY', 'IBM'),
      reply: 'alphavantage/TIME_SERIES_DAILY-IBM-trimmed.json',
    },
    { path: '/query', query: query('TIME_SERIES_DAILY', 'NOPE'), reply: { body: INVALID_CALL } },
    {
      path: '/query',
      query: query('TIME_SERIES_DAILY', 'GME'),
      reply: 'alphavantage/Information-premium-endpoint-TIME_SERIES_DAILY_ADJUSTED.cassette.json',
    },
    { path: '/query', query: query('GLOBAL_QUOTE', 'GME'), reply: { body: RATE_NOTE } },
    { path: '/query', query: query('EARNINGS', 'IBM'), reply: EARNINGS },
  ]);
  const provider = createAlphaVantageProvider({
    baseUrl: server.url,
    apiKey: KEY,
    clock,
    ratePerSecond: 1_000,
    burst: 100,
  });
  return { server, provider, close: () => server.close() };
}

let contractServer: FixtureServer;

providerContract({
  name: 'alphavantage (recorded responses)',
  recorded: true,
  async create() {
    const fixtures = await startAlphaVantage();
    contractServer = fixtures.server;
    return fixtures;
  },
  quote: {
    instrument: IBM,
    expect: {
      price: 121.74,
      previousClose: 121.23,
      currency: 'USD',
      // The trading day 2020-05-08 at the 16:00 New York close.
      asOf: new Date('2020-05-08T20:00:00Z'),
    },
  },
  bars: {
    call: {
      instrument: IBM,
      interval: '1d',
      start: new Date('2020-05-07T00:00:00Z'),
      end: new Date('2020-05-09T00:00:00Z'),
    },
    expect: {
      count: 2,
      first: { time: new Date('2020-05-07T13:30:00Z'), open: 122.98, close: 121.23, volume: 4_412_047 },
      last: { time: new Date('2020-05-08T13:30:00Z'), close: 121.79 },
    },
  },
  unknown: [
    { capability: 'quote', instrument: NOPE },
    { capability: 'bars', instrument: NOPE },
  ],
  extra: [
    {
      title: 'reads change and change percent of GLOBAL_QUOTE (the % suffix dropped)',
      async run(provider, signal) {
        const quote = await provider.quote!({ instrument: IBM, signal });
        expect(quote).toMatchObject({ change: 0.51, changePercent: 0.4207, volume: 2_528_814, open: 122.67 });
      },
    },
    {
      title: 'sends the key and asks for the compact series when the range is recent',
      async run() {
        const daily = contractServer.requests.find((r) => r.query.function === 'TIME_SERIES_DAILY');
        expect(daily?.query).toMatchObject({ symbol: 'IBM', outputsize: 'compact', apikey: KEY });
      },
    },
    {
      title: 'returns the IBM quarterly reports of 2019-2020 with their surprises',
      async run(provider, signal) {
        const reports = await provider.earnings!({
          instrument: IBM,
          from: new Date('2019-01-01T00:00:00Z'),
          to: new Date('2020-12-31T23:59:59Z'),
          signal,
        });
        const quarterly = fixtureJson<{ quarterlyEarnings: Array<{ reportedDate: string }> }>(
          EARNINGS,
        ).quarterlyEarnings;
        const expected = quarterly.filter(
          (q) => q.reportedDate >= '2019-01-01' && q.reportedDate <= '2020-12-31',
        );
        expect(reports).toHaveLength(expected.length);
        expect(reports).toHaveLength(8);
        expect(reports.map((r) => r.reportDate.getTime())).toEqual(
          [...reports.map((r) => r.reportDate.getTime())].sort((a, b) => a - b),
        );
        expect(reports.find((r) => r.fiscalPeriodEnd?.toISOString().startsWith('2020-06-30'))).toMatchObject({
          reportedEps: 2.18,
          estimatedEps: 2.0851,
          surprisePercent: 4.5513,
        });
      },
    },
  ],
});

describeWithFixtures('alphavantage adapter beyond the contract', () => {
  let av: Awaited<ReturnType<typeof startAlphaVantage>>;
  beforeAll(async () => {
    av = await startAlphaVantage();
  });
  afterAll(async () => av?.close());

  it('maps the premium-endpoint Information answer (HTTP 200) to unauthorized', async () => {
    const error = await expectProviderError(
      av.provider.bars!({
        instrument: GME,
        interval: '1d',
        start: new Date('2020-05-01T00:00:00Z'),
        end: new Date('2020-05-08T00:00:00Z'),
        signal: signal(),
      }),
      'unauthorized',
    );
    expect(error.message).toContain('premium endpoint');
  });

  it('maps a rate-limit Note to rate_limited', async () => {
    await expectProviderError(av.provider.quote!({ instrument: GME, signal: signal() }), 'rate_limited');
  });

  it('refuses intraday bars as unsupported without asking the API', async () => {
    const before = av.server.requests.length;
    await expectProviderError(
      av.provider.bars!({
        instrument: IBM,
        interval: '1h',
        start: new Date('2020-05-07T00:00:00Z'),
        end: new Date('2020-05-08T00:00:00Z'),
        signal: signal(),
      }),
      'unsupported',
    );
    expect(av.server.requests).toHaveLength(before);
  });

  it('asks for the full series when the range reaches past the compact 100 days', async () => {
    await av.provider.bars!({
      instrument: IBM,
      interval: '1d',
      start: new Date('2019-01-01T00:00:00Z'),
      end: new Date('2020-05-09T00:00:00Z'),
      signal: signal(),
    });
    expect(av.server.requests.at(-1)?.query.outputsize).toBe('full');
  });

  it('supports US equities and ETFs only, and earnings of equities only', () => {
    const p = av.provider;
    expect(p.supports('quote', IBM)).toBe(true);
    expect(p.supports('bars', { symbol: 'SPY', assetClass: 'etf', market: 'US' })).toBe(true);
    expect(p.supports('earnings', { symbol: 'SPY', assetClass: 'etf', market: 'US' })).toBe(false);
    expect(p.supports('quote', parseInstrument('VOD.L'))).toBe(false);
    expect(p.supports('quote', parseInstrument('BTC/USDT'))).toBe(false);
    expect(p.supports('profile', IBM)).toBe(false);
  });

  it('needs an API key', () => {
    expect(() => createAlphaVantageProvider({ baseUrl: av.server.url, apiKey: '' })).toThrow(/API key/);
  });
});

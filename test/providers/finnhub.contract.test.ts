import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { createFinnhubProvider } from '../../src/market-data/providers/finnhub.provider.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { type FixtureServer, startFixtureServer } from '../support/fixture-server.ts';
import { describeWithFixtures, fixtureJson, loadFixture } from '../support/fixtures.ts';
import { expectProviderError, providerContract } from '../support/provider-contract.ts';

const KEY = 'test-token';
const AAPL = parseInstrument('AAPL');
const ZZZZ = parseInstrument('ZZZZ');
const seconds = (iso: string) => String(Date.parse(iso) / 1000);
const signal = () => AbortSignal.timeout(10_000);

const CANDLES = 'finnhub/stock-candle-D.DOCS-SAMPLE.json';
const CALENDAR = 'finnhub/calendar-earnings-AAPL.json';
const PREMIUM_403 = 'finnhub/stock-candle-AAPL-D-error-403-premium.json';
/** Finnhub's answer for a symbol it does not know (HTTP 200, zeros), as its API gives it. */
const ZEROS = { c: 0, d: null, dp: null, h: 0, l: 0, o: 0, pc: 0, t: 0 };

async function startFinnhub(): Promise<{
  server: FixtureServer;
  provider: MarketDataProvider;
  close(): Promise<void>;
}> {
  const server = await startFixtureServer([
    { path: '/quote', query: { symbol: 'AAPL' }, reply: 'finnhub/quote-AAPL.json' },
    { path: '/quote', query: { symbol: 'ZZZZ' }, reply: { body: ZEROS } },
    {
      path: '/stock/candle',
      query: {
        symbol: 'AAPL',
        resolution: 'D',
        from: seconds('2019-09-24T00:00:00Z'),
        to: seconds('2019-09-27T00:00:00Z'),
      },
      reply: CANDLES,
    },
    // The recording is the raw body; the README records its status, 403.
    {
      path: '/stock/candle',
      query: { symbol: 'AAPL' },
      reply: { status: 403, body: loadFixture(PREMIUM_403).body },
    },
    { path: '/stock/candle', query: { symbol: 'ZZZZ' }, reply: { body: { s: 'no_data' } } },
    { path: '/calendar/earnings', query: { symbol: 'AAPL' }, reply: CALENDAR },
  ]);
  const provider = createFinnhubProvider({
    baseUrl: server.url,
    apiKey: KEY,
    ratePerSecond: 1_000,
    burst: 100,
  });
  return { server, provider, close: () => server.close() };
}

let contractServer: FixtureServer;

providerContract({
  name: 'finnhub (recorded responses)',
  recorded: true,
  async create() {
    const fixtures = await startFinnhub();
    contractServer = fixtures.server;
    return fixtures;
  },
  quote: {
    instrument: AAPL,
    expect: { price: 308.82, previousClose: 304.99, currency: 'USD', asOf: new Date('2026-05-22T20:00:00Z') },
  },
  bars: {
    call: {
      instrument: AAPL,
      interval: '1d',
      start: new Date('2019-09-24T00:00:00Z'),
      end: new Date('2019-09-27T00:00:00Z'),
    },
    expect: {
      count: 3,
      first: { time: new Date('2019-09-24T13:30:00Z'), open: 221.03, close: 217.68, volume: 33_463_820 },
      last: { time: new Date('2019-09-26T13:30:00Z'), close: 219.89 },
    },
  },
  unknown: [{ capability: 'quote', instrument: ZZZZ }],
  extra: [
    {
      title: 'sends the key as the X-Finnhub-Token header, never in the URL',
      async run() {
        expect(contractServer.requests.length).toBeGreaterThan(0);
        for (const request of contractServer.requests) {
          expect(request.headers['x-finnhub-token']).toBe(KEY);
          expect(Object.values(request.query)).not.toContain(KEY);
        }
      },
    },
    {
      title: 'returns the upcoming AAPL report from the earnings calendar, not yet reported',
      async run(provider, signal) {
        const reports = await provider.earnings!({
          instrument: AAPL,
          from: new Date('2026-05-01T00:00:00Z'),
          to: new Date('2026-08-31T00:00:00Z'),
          signal,
        });
        const row = fixtureJson<{ earningsCalendar: Array<{ epsEstimate: number }> }>(CALENDAR)
          .earningsCalendar[0]!;
        expect(reports).toEqual([
          {
            symbol: 'AAPL',
            reportDate: new Date('2026-07-29T21:00:00Z'),
            fiscalPeriodEnd: null,
            reportedEps: null,
            estimatedEps: row.epsEstimate,
            surprisePercent: null,
          },
        ]);
        const request = contractServer.requests.find((r) => r.path === '/calendar/earnings');
        expect(request?.query).toMatchObject({ symbol: 'AAPL', from: '2026-04-30', to: '2026-09-01' });
      },
    },
    {
      title: 'venue status is up when the quote endpoint answers quickly',
      async run(provider, signal) {
        const [status] = await provider.venueStatus!({ signal });
        expect(status).toMatchObject({ venue: 'finnhub', status: 'up', detail: null });
      },
    },
  ],
});

describeWithFixtures('finnhub adapter beyond the contract', () => {
  let finnhub: Awaited<ReturnType<typeof startFinnhub>>;
  beforeAll(async () => {
    finnhub = await startFinnhub();
  });
  afterAll(async () => finnhub?.close());

  it('says candles need a premium key when Finnhub answers 403', async () => {
    const error = await expectProviderError(
      finnhub.provider.bars!({
        instrument: AAPL,
        interval: '1d',
        start: new Date('2026-05-16T00:00:00Z'),
        end: new Date('2026-05-23T00:00:00Z'),
        signal: signal(),
      }),
      'unauthorized',
    );
    expect(error.message).toMatch(/premium/);
    expect(error.details.status).toBe(403);
    // A refused key is not an outage: one request, no retries.
    expect(finnhub.server.requests.filter((r) => r.path === '/stock/candle')).toHaveLength(1);
  });

  it('answers no_data with no bars and asks with the resolution of the interval', async () => {
    const bars = await finnhub.provider.bars!({
      instrument: ZZZZ,
      interval: '1h',
      start: new Date('2026-05-18T00:00:00Z'),
      end: new Date('2026-05-19T00:00:00Z'),
      signal: signal(),
    });
    expect(bars).toEqual([]);
    expect(finnhub.server.requests.at(-1)?.query).toMatchObject({ symbol: 'ZZZZ', resolution: '60' });
  });

  it('supports US equities and ETFs only, and earnings of equities only', () => {
    const p = finnhub.provider;
    expect(p.supports('quote', AAPL)).toBe(true);
    expect(p.supports('quote', { symbol: 'SPY', assetClass: 'etf', market: 'US' })).toBe(true);
    expect(p.supports('earnings', { symbol: 'SPY', assetClass: 'etf', market: 'US' })).toBe(false);
    expect(p.supports('quote', parseInstrument('VOD.L'))).toBe(false);
    expect(p.supports('quote', parseInstrument('BTC/USDT'))).toBe(false);
    expect(p.supports('venueStatus')).toBe(true);
    expect(p.supports('profile', AAPL)).toBe(false);
  });

  it('reports a venue it cannot reach as down', async () => {
    const [status] = await finnhub.provider.venueStatus!({ signal: AbortSignal.abort() });
    expect(status).toMatchObject({ venue: 'finnhub', status: 'down', latencyMs: null });
  });
});

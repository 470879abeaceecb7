import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createBinanceProvider } from '../src/market-data/providers/binance.provider.ts';
import { createYahooProvider } from '../src/market-data/providers/yahoo.provider.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { type FixtureServer, startFixtureServer } from './support/fixture-server.ts';
import { describeWithFixtures } from './support/fixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const chartPath = (ticker: string) => `/v8/finance/chart/${encodeURIComponent(ticker)}`;

/** Yahoo's words for a range it has no data for (its 400 shape; no recording of it exists). */
const NO_DATA_TEXT = "Data doesn't exist for startDate = 1577836800, endDate = 1578009600";
const YAHOO_SAID = `yahoo: ${NO_DATA_TEXT}`;
/** Binance's answer to a pair it does not list (its documented -1121 error). */
const INVALID_SYMBOL = { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } };
/** The recorded 404 of a delisted symbol: "No data found, symbol may be delisted". */
const DELISTED = 'yahoo/chart-v8-error-404-SI-no-data-found.json';
const TSLA_1D = 'yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json';

/**
 * The reason a provider gave for not knowing a symbol reaches every surface in the error message
 * (GraphQL, batch quotes, the data tools on MCP and REST, FK-DSL statements): the real adapters
 * talk HTTP to local servers that answer the way Yahoo and Binance do.
 */
describeWithFixtures("unknown symbols keep the provider's reason on every surface", () => {
  let yahoo: FixtureServer;
  let binance: FixtureServer;
  let t: TestApp;

  beforeAll(async () => {
    yahoo = await startFixtureServer([
      {
        path: chartPath('XYZ'),
        reply: {
          status: 400,
          body: { chart: { result: null, error: { code: 'Bad Request', description: NO_DATA_TEXT } } },
        },
      },
      { path: chartPath('ZZZ-USD'), reply: DELISTED },
      { path: chartPath('TSLA'), reply: TSLA_1D },
    ]);
    binance = await startFixtureServer([
      { path: /^\/api\/v3\//, query: { symbol: 'ZZZUSDT' }, reply: INVALID_SYMBOL },
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
        ],
      },
    });
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all([yahoo?.close(), binance?.close()]);
  });

  it("GraphQL: Yahoo's 400 \"Data doesn't exist\" is UNKNOWN_SYMBOL with Yahoo's words in the message", async () => {
    const { body } = await graphql(
      t.app,
      '{ bars(symbol: "XYZ", from: "2020-01-01T00:00:00Z", to: "2020-01-03T00:00:00Z") { totalCount } }',
    );
    expect(body.errors?.[0]).toMatchObject({
      message: `unknown symbol XYZ: no provider knows it (${YAHOO_SAID})`,
      extensions: { code: 'UNKNOWN_SYMBOL', symbol: 'XYZ' },
    });
  });

  it('batch quotes: each provider asked is named with its own reason', async () => {
    const { body } = await graphql<{ quotes: Json[] }>(
      t.app,
      '{ quotes(symbols: ["ZZZ/USDT", "XYZ"]) { requested error { code message } } }',
    );
    const [coin, listing] = body.data!.quotes;
    expect(coin.error.code).toBe('UNKNOWN_SYMBOL');
    expect(coin.error.message).toMatch(/^unknown symbol ZZZ\/USDT: no provider knows it \(.*\)$/);
    expect(coin.error.message).toContain('yahoo: No data found, symbol may be delisted');
    expect(coin.error.message).toContain('binance: Invalid symbol.');
    expect(listing.error).toEqual({
      code: 'UNKNOWN_SYMBOL',
      message: `unknown symbol XYZ: no provider knows it (${YAHOO_SAID})`,
    });
  });

  it('the data tools: GraphQL, the REST tool route and MCP say the same', async () => {
    const expected = `unknown symbol XYZ: no provider knows it (${YAHOO_SAID})`;
    const { body } = await graphql(t.app, '{ searchBySymbol(symbol: "XYZ") { symbol } }');
    expect(body.errors?.[0]).toMatchObject({ message: expected, extensions: { code: 'UNKNOWN_SYMBOL' } });

    const rest = await t.app.fetch('/mcp/tools/search-by-symbol', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ symbol: 'XYZ' }),
    });
    expect(rest.status).toBe(404);
    expect(((await rest.json()) as Json).error).toMatchObject({ code: 'UNKNOWN_SYMBOL', message: expected });

    const client = new Client({ name: 'reasons', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('http://127.0.0.1/mcp'), {
        fetch: (url, init) => t.app.fetch(new Request(url, init)),
      }),
    );
    try {
      const called: Json = await client.callTool({ name: 'search-by-symbol', arguments: { symbol: 'XYZ' } });
      expect(called.isError).toBe(true);
      expect(called.content[0].text.split('\n')[0]).toBe(`UNKNOWN_SYMBOL: ${expected}`);
    } finally {
      await client.close();
    }
  });

  it('FK-DSL: a statement naming an unknown asset fails with UNKNOWN_SYMBOL and the reason; SCAN skips it', async () => {
    const query = [
      'EVALUATE XYZ: PRICE, VOLATILITY(30d)',
      'COMPARE TSLA VS ZZZ/USDT ON: PRICE',
      'CORRELATE TSLA WITH XYZ',
      'SCAN [TSLA, XYZ] WHERE PRICE > 0',
      'EVALUATE TSLA: PRICE',
    ].join(';\n');
    const { body } = await graphql<{ executeFkDsl: Json }>(
      t.app,
      `query ($q: String!) { executeFkDsl(query: $q) { status errors
        statements { index result: resultJson error { code message } } } }`,
      { q: query },
    );
    expect(body.errors).toBeUndefined();
    const r = body.data!.executeFkDsl;
    expect(r).toMatchObject({ status: 'COMPLETED', errors: 3 });
    const [evaluate, compare, correlate, scan, known] = r.statements;
    expect(evaluate).toMatchObject({
      result: null,
      error: { code: 'UNKNOWN_SYMBOL', message: `unknown symbol XYZ: no provider knows it (${YAHOO_SAID})` },
    });
    expect(compare.error.code).toBe('UNKNOWN_SYMBOL');
    expect(compare.error.message).toMatch(/^unknown symbol ZZZ\/USDT: no provider knows it \(/);
    expect(compare.error.message).toContain('binance: Invalid symbol.');
    expect(correlate.error).toEqual(evaluate.error);
    expect(scan.error).toBeNull();
    expect(scan.result.skipped).toEqual([{ symbol: 'XYZ', reason: expect.stringContaining(YAHOO_SAID) }]);
    expect(known.error).toBeNull();
    expect(known.result.asset.metrics[0].value).toBeGreaterThan(0);
  });
});

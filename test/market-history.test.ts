import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const BARS = `query Bars($symbol: String!, $interval: BarInterval, $from: DateTime, $to: DateTime, $first: Int, $after: String) {
  bars(symbol: $symbol, interval: $interval, from: $from, to: $to, first: $first, after: $after) {
    instrument { id symbol assetClass name }
    interval from to totalCount
    edges { cursor node { time open high low close volume } }
    nodes { time close }
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    lineage { used simulated cacheHit }
  }
}`;

/** History, batch quotes and instrument search through GraphQL, on the simulated market. */
describe('bars, quotes and instruments on the simulated market', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '1000' } });
  });
  afterAll(async () => t?.close());

  const bars = async (variables: Record<string, unknown>) => {
    const { body } = await graphql<{ bars: Json }>(t.app, BARS, variables);
    return body;
  };

  it.each([
    ['AAPL', 'equity:US:AAPL', 'EQUITY'],
    ['BTC', 'crypto:BTC/USDT', 'CRYPTO'],
    ['EUR/USD', 'fx:EUR/USD', 'FX'],
  ])(
    'gives at least 250 daily bars of %s by default, oldest first, in one range',
    async (symbol, id, assetClass) => {
      const body = await bars({ symbol, first: 1000 });
      expect(body.errors).toBeUndefined();
      const page = body.data!.bars;
      expect(page.instrument).toMatchObject({ id, assetClass });
      expect(page.instrument.name).toEqual(expect.any(String));
      expect(page.interval).toBe('ONE_DAY');
      expect(page.totalCount).toBeGreaterThanOrEqual(250);
      expect(page.edges).toHaveLength(page.totalCount);
      expect(page.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
      expect(page.lineage).toMatchObject({ used: ['simulated'], simulated: true });
      const times = page.edges.map((e: Json) => Date.parse(e.node.time));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(Date.parse(page.to) - Date.parse(page.from)).toBe(420 * 86_400_000);
      for (const { node } of page.edges) {
        expect(node.low).toBeLessThanOrEqual(Math.min(node.open, node.close));
        expect(node.high).toBeGreaterThanOrEqual(Math.max(node.open, node.close));
      }
      if (assetClass === 'FX') expect(page.edges.every((e: Json) => e.node.volume === null)).toBe(true);
      expect(page.nodes.map((n: Json) => n.time)).toEqual(page.edges.map((e: Json) => e.node.time));
    },
  );

  it('pages through a range with cursors, each bar once, the later pages from the cache', async () => {
    const range = { symbol: 'MSFT', from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' };
    const whole = (await bars({ ...range, first: 1000 })).data!.bars;
    expect(whole.totalCount).toBe(252); // NYSE sessions of 2024
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    for (;;) {
      const body = await bars({ ...range, first: 100, ...(after ? { after } : {}) });
      expect(body.errors).toBeUndefined();
      const page = body.data!.bars;
      pages++;
      seen.push(...page.edges.map((e: Json) => e.node.time));
      expect(page.pageInfo.startCursor).toBe(page.edges[0].cursor);
      expect(page.pageInfo.endCursor).toBe(page.edges.at(-1).cursor);
      expect(page.pageInfo.hasPreviousPage).toBe(pages > 1);
      if (pages > 1) expect(page.lineage.cacheHit).toBe(true);
      if (!page.pageInfo.hasNextPage) break;
      after = page.pageInfo.endCursor;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(whole.edges.map((e: Json) => e.node.time));
  });

  it('serves the daily bars the deep technical summary was computed from', async () => {
    const deep = await graphql<{ searchBySymbol: Json }>(
      t.app,
      '{ searchBySymbol(symbol: "NVDA", depth: DEEP) { history { time close } technicals { barsUsed } } }',
    );
    const page = (await bars({ symbol: 'NVDA', first: 1000 })).data!.bars;
    expect(deep.body.data!.searchBySymbol.technicals.barsUsed).toBe(page.totalCount);
    expect(page.nodes.slice(-30)).toEqual(deep.body.data!.searchBySymbol.history);
  });

  it('offers every interval and refuses bad pages by the argument at fault', async () => {
    const hourly = (await bars({ symbol: 'BTC/USDT', interval: 'ONE_HOUR', first: 1000 })).data!.bars;
    expect(hourly.totalCount).toBeGreaterThanOrEqual(24 * 29);
    const minutes = (await bars({ symbol: 'ETH', interval: 'ONE_MINUTE', first: 10 })).data!.bars;
    expect(minutes.edges).toHaveLength(10);
    const errors = async (variables: Record<string, unknown>) => (await bars(variables)).errors?.[0] as Json;
    expect(await errors({ symbol: 'AAPL', first: 1001 })).toMatchObject({
      message: 'first: must be between 1 and 1000 bars per page, got 1001',
      extensions: { code: 'BAD_USER_INPUT', field: 'first' },
    });
    expect(await errors({ symbol: 'AAPL', first: 0 })).toMatchObject({ extensions: { field: 'first' } });
    expect(await errors({ symbol: 'AAPL', after: 'not-a-cursor' })).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'after' },
    });
    expect(
      await errors({ symbol: 'AAPL', from: '2025-01-02T00:00:00Z', to: '2025-01-01T00:00:00Z' }),
    ).toMatchObject({
      extensions: { field: 'from' },
    });
    expect(
      await errors({
        symbol: 'AAPL',
        interval: 'ONE_MINUTE',
        from: '2015-01-01T00:00:00Z',
        to: '2025-01-01T00:00:00Z',
      }),
    ).toMatchObject({ message: expect.stringContaining('at most 50000'), extensions: { field: 'from' } });
    expect(await errors({ symbol: 'ZZZZ' })).toMatchObject({ extensions: { code: 'UNKNOWN_SYMBOL' } });
  });

  it('quotes several symbols in one round trip, each with its quote or its own error', async () => {
    const { body } = await graphql<{ quotes: Json[] }>(
      t.app,
      `{ quotes(symbols: ["AAPL", "btc", "NOPE", "EUR/USD", "aapl"]) {
          requested instrument { id symbol name } quote { id price currency asOf } lineage { used } error { code message } } }`,
    );
    expect(body.errors).toBeUndefined();
    const [aapl, btc, nope, eur, again] = body.data!.quotes;
    expect(aapl).toMatchObject({
      requested: 'AAPL',
      instrument: { id: 'equity:US:AAPL', symbol: 'AAPL', name: 'Apple Inc.' },
      quote: { id: 'equity:US:AAPL', price: expect.any(Number), currency: 'USD' },
      lineage: { used: ['simulated'] },
      error: null,
    });
    expect(btc).toMatchObject({ requested: 'btc', instrument: { id: 'crypto:BTC/USDT' }, error: null });
    expect(nope).toMatchObject({
      requested: 'NOPE',
      quote: null,
      lineage: null,
      error: { code: 'UNKNOWN_SYMBOL', message: expect.stringContaining('unknown symbol NOPE') },
    });
    expect(eur.instrument.id).toBe('fx:EUR/USD');
    expect(again.quote).toEqual(aapl.quote);
  });

  it('bounds a batch by the symbols-per-request limit and reads unwritable symbols as per-symbol errors', async () => {
    const many = Array.from({ length: 51 }, (_, i) => `S${i}`);
    const { body } = await graphql<{ quotes: Json }>(
      t.app,
      'query Q($s: [String!]!) { quotes(symbols: $s) { requested } }',
      {
        s: many,
      },
    );
    expect(body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', field: 'symbols' } });
    const odd = await graphql<{ quotes: Json[] }>(
      t.app,
      '{ quotes(symbols: ["A$B", "MSFT"]) { requested instrument { id } error { code } } }',
    );
    expect(odd.body.data!.quotes).toEqual([
      { requested: 'A$B', instrument: null, error: { code: 'BAD_USER_INPUT' } },
      { requested: 'MSFT', instrument: { id: 'equity:US:MSFT' }, error: null },
    ]);
  });

  it('finds instruments by name or symbol prefix', async () => {
    const search = async (query: string, first?: number) =>
      (
        await graphql<{ instruments: Json }>(
          t.app,
          'query S($q: String!, $n: Int) { instruments(query: $q, first: $n) { query instruments { id symbol assetClass name } lineage { used simulated } } }',
          { q: query, ...(first ? { n: first } : {}) },
        )
      ).body;
    const apple = (await search(' apple ')).data!.instruments;
    expect(apple.query).toBe('apple');
    expect(apple.instruments[0]).toMatchObject({ id: 'equity:US:AAPL', symbol: 'AAPL', name: 'Apple Inc.' });
    expect(apple.lineage).toMatchObject({ used: ['simulated'], simulated: true });
    expect((await search('msf')).data!.instruments.instruments[0].symbol).toBe('MSFT');
    const bitcoin = (await search('bitcoin', 3)).data!.instruments.instruments;
    expect(bitcoin).toHaveLength(3);
    expect(bitcoin.every((i: Json) => i.assetClass === 'CRYPTO' && i.symbol.startsWith('BTC/'))).toBe(true);
    expect((await search('zzqqxx')).data!.instruments.instruments).toEqual([]);
    expect((await search('  ')).errors?.[0]).toMatchObject({
      extensions: { code: 'BAD_USER_INPUT', field: 'query' },
    });
    expect((await search('apple', 51)).errors?.[0]).toMatchObject({ extensions: { field: 'first' } });
  });
});

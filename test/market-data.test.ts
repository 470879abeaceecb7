import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ToolCall } from '../src/sessions/tool-calls.port.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/** The data tools and price streams end to end, on the zero-setup default: the simulated market. */
describe('market data on the simulated market', () => {
  let t: TestApp;
  const calls: ToolCall[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { SIMULATED_TICK_MS: '100', RATE_LIMIT_MAX: '1000' },
      overrides: {
        toolCalls: {
          async record(call) {
            calls.push(call);
          },
        },
      },
    });
  });
  afterAll(async () => t?.close());

  it('searchBySymbol at depth deep returns real computed values with simulated lineage', async () => {
    const { status, body } = await graphql<{ searchBySymbol: Json }>(
      t.app,
      `{ searchBySymbol(symbol: "brk-b", depth: DEEP, sessionId: "s-1") {
          symbol name exchange market currency depth
          quote { price change changePercent previousClose asOf }
          fundamentals { marketCap peRatio beta week52High week52Low sector }
          technicals { rsi14 sma50 sma200 macd { line signal histogram } trend conventions barsUsed }
          history { time close }
          lineage { used simulated asOf retrievedAt }
          narrative disclaimer warnings sessionId } }`,
    );
    expect(body.errors).toBeUndefined();
    expect(status).toBe(200);
    const r = body.data!.searchBySymbol;
    expect(r).toMatchObject({
      symbol: 'BRK.B',
      market: 'US',
      currency: 'USD',
      depth: 'DEEP',
      sessionId: 's-1',
      warnings: [],
    });
    expect(r.name).toMatch(/Berkshire/);
    expect(r.quote.price).toBeGreaterThan(0);
    expect(r.quote.change).toBeCloseTo(r.quote.price - r.quote.previousClose, 6);
    expect(r.fundamentals.week52High).toBeGreaterThanOrEqual(r.fundamentals.week52Low);
    expect(r.technicals.rsi14).toBeGreaterThan(0);
    expect(r.technicals.rsi14).toBeLessThan(100);
    expect(r.technicals.barsUsed).toBeGreaterThan(200);
    expect(r.technicals.macd.histogram).toBeCloseTo(r.technicals.macd.line - r.technicals.macd.signal, 9);
    expect(r.history).toHaveLength(30);
    expect(r.lineage).toMatchObject({ used: ['simulated'], simulated: true });
    expect(Date.parse(r.lineage.asOf)).toBeLessThanOrEqual(Date.parse(r.lineage.retrievedAt));
    expect(r.narrative).toContain('Berkshire');
    expect(r.disclaimer).toContain('simulated market');
    expect(calls.find((c) => c.sessionId === 's-1')).toMatchObject({
      tool: 'search-by-symbol',
      symbols: ['BRK.B'],
    });
  });

  it('searchBySymbol at depth quick is a quote only', async () => {
    const { body } = await graphql<{ searchBySymbol: Record<string, unknown> }>(
      t.app,
      '{ searchBySymbol(symbol: "NVDA", depth: QUICK) { name fundamentals { beta } technicals { rsi14 } history { close } quote { price } } }',
    );
    expect(body.data?.searchBySymbol).toMatchObject({ fundamentals: null, technicals: null, history: null });
  });

  it('searchByCoin at depth deep adds 24 h statistics, order book and funding, and says which venue priced it', async () => {
    const { body } = await graphql<{ searchByCoin: Json }>(
      t.app,
      `{ searchByCoin(symbol: "eth", pair: "usdc", depth: DEEP) {
          symbol base pair exchange source quote { price asOf }
          market { high24h low24h volume24h marketCap }
          orderBook { bestBid bestAsk spreadBps levels }
          funding { rate intervalHours nextFundingTime }
          warnings } }`,
    );
    expect(body.errors).toBeUndefined();
    const r = body.data!.searchByCoin;
    expect(r).toMatchObject({
      symbol: 'ETH/USDC',
      base: 'ETH',
      pair: 'USDC',
      exchange: 'binance',
      source: 'simulated',
    });
    expect(r.market.high24h).toBeGreaterThanOrEqual(r.market.low24h);
    expect(r.orderBook.bestAsk).toBeGreaterThan(r.orderBook.bestBid);
    expect(r.funding.intervalHours).toBe(8);
    expect(r.warnings[0]).toMatch(/exchange binance: no configured provider represents it/);
  });

  it.each([
    ['{ searchBySymbol(symbol: "ZZZZ") { symbol } }', 'UNKNOWN_SYMBOL', 'unknown symbol ZZZZ'],
    [
      '{ searchBySymbol(symbol: "AAPL", market: "XX") { symbol } }',
      'BAD_USER_INPUT',
      'market: unknown market "XX"',
    ],
    [
      '{ searchBySymbol(symbol: "AAPL$") { symbol } }',
      'BAD_USER_INPUT',
      'symbol: "AAPL$" contains characters',
    ],
    [
      '{ searchBySymbol(symbol: "AAPL", language: "xx") { symbol } }',
      'BAD_USER_INPUT',
      'language: narratives are available in en',
    ],
    ['{ searchByCoin(symbol: "NOPE") { symbol } }', 'UNKNOWN_SYMBOL', 'unknown symbol NOPE/USDT'],
    [
      '{ searchByCoin(symbol: "BTC", exchange: "b!nance") { symbol } }',
      'BAD_USER_INPUT',
      'exchange: must be an exchange name',
    ],
  ])('answers %s with %s naming the problem', async (query, code, message) => {
    const { body } = await graphql(t.app, query);
    expect(body.data).toBeNull();
    expect(body.errors?.[0]).toMatchObject({
      message: expect.stringContaining(message),
      extensions: { code },
    });
  });

  it('lists the providers and says they are simulated', async () => {
    const { body } = await graphql<{ marketDataProviders: Array<Record<string, unknown>> }>(
      t.app,
      '{ marketDataProviders { id live capabilities } }',
    );
    expect(body.data?.marketDataProviders).toEqual([
      expect.objectContaining({
        id: 'simulated',
        live: false,
        capabilities: expect.arrayContaining(['QUOTE', 'STREAM']),
      }),
    ]);
  });

  it('streams crypto prices over the GraphQL `prices` subscription (graphql-ws)', async () => {
    const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const ticks = await new Promise<Array<Json>>((resolve, reject) => {
        const seen: Array<Json> = [];
        const stop = client.subscribe<{ prices: Json }>(
          {
            query:
              'subscription { prices(symbols: ["BTC/USDT", "sol-usdt"], intervalMs: 100) { symbol seq price asOf provider live } }',
          },
          {
            next: (r) => {
              if (r.errors) return reject(new Error(JSON.stringify(r.errors)));
              seen.push(r.data!.prices);
              if (seen.filter((x) => x.symbol === 'BTC/USDT').length >= 3) {
                stop();
                resolve(seen);
              }
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      const btc = ticks.filter((x) => x.symbol === 'BTC/USDT');
      expect(btc.map((x) => x.seq)).toEqual([...btc.map((x) => x.seq)].sort((a, b) => a - b));
      expect(new Set(btc.map((x) => x.seq)).size).toBe(btc.length);
      expect(btc[0]).toMatchObject({ provider: 'simulated', live: false });
    } finally {
      await client.dispose();
    }
  });

  it('refuses a subscription to an unknown symbol at start', async () => {
    const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const result = await new Promise<unknown>((resolve) => {
        client.subscribe(
          { query: 'subscription { prices(symbols: ["ZZZZ"]) { price } }' },
          { next: resolve, error: resolve, complete: () => resolve('complete') },
        );
      });
      expect(JSON.stringify(result)).toContain('unknown symbol ZZZZ');
    } finally {
      await client.dispose();
    }
  });

  it('streams simulated crypto prices on /ws/prices, labelled simulated', async () => {
    const socket = new WebSocket(`${t.wsUrl}/ws/prices/BTC-USDT?interval_ms=100`);
    const data = await new Promise<Json>((resolve, reject) => {
      socket.on('message', (raw) => {
        const m = JSON.parse(String(raw));
        if (m.type === 'data') resolve(m);
      });
      socket.on('error', reject);
    });
    socket.close();
    expect(data.data[0]).toMatchObject({
      symbol: 'BTC/USDT',
      provider: 'simulated',
      simulated: true,
      price: expect.any(Number),
    });
  });
});

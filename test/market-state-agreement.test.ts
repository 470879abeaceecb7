import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * One truth per value: at one instant, `quote`, `quotes`, the GraphQL `prices` subscription and the
 * plain /ws/prices route say the same market state and the same change of the same price. The
 * app runs on a manual clock, so "the same instant" is exact.
 */

const QUOTE_FIELDS = 'id symbol price change changePercent previousClose currency asOf marketState';

async function quoteNow(t: TestApp, symbol: string): Promise<Json> {
  const r = await graphql<Json>(
    t.app,
    `query($s: String!) { quote(symbol: $s) { quote { ${QUOTE_FIELDS} } } }`,
    {
      s: symbol,
    },
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.quote.quote;
}

async function batchNow(t: TestApp, symbol: string): Promise<Json> {
  const r = await graphql<Json>(
    t.app,
    `query($s: [String!]!) { quotes(symbols: $s) { quote { ${QUOTE_FIELDS} } } }`,
    {
      s: [symbol],
    },
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data.quotes[0].quote;
}

/** The first tick (the snapshot) of a GraphQL `prices` subscription. */
async function graphqlSnapshot(t: TestApp, symbol: string): Promise<Json> {
  const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  try {
    return await new Promise<Json>((resolve, reject) => {
      const stop = client.subscribe<{ prices: Json }>(
        {
          query: `subscription($s: [String!]!) { prices(symbols: $s, intervalMs: 100) {
            symbol price change changePercent marketState snapshot } }`,
          variables: { s: [symbol] },
        },
        {
          next: (r) => {
            if (r.errors) return reject(new Error(JSON.stringify(r.errors)));
            stop();
            resolve(r.data!.prices);
          },
          error: reject,
          complete: () => {},
        },
      );
    });
  } finally {
    await client.dispose();
  }
}

/** The first data item (the snapshot) of the plain /ws/prices route. */
async function plainSnapshot(t: TestApp, symbol: string): Promise<Json> {
  const ws = new WebSocket(`${t.wsUrl}/ws/prices/${encodeURIComponent(symbol)}?interval_ms=100`);
  try {
    return await new Promise<Json>((resolve, reject) => {
      ws.on('message', (raw) => {
        const message = JSON.parse(String(raw));
        if (message.type === 'data') resolve(message.data[0]);
        if (message.type === 'error') reject(new Error(String(raw)));
      });
      ws.on('error', reject);
    });
  } finally {
    ws.close();
  }
}

async function everySurface(t: TestApp, symbol: string) {
  const [quote, batch, prices, plain] = [
    await quoteNow(t, symbol),
    await batchNow(t, symbol),
    await graphqlSnapshot(t, symbol),
    await plainSnapshot(t, symbol),
  ];
  return { quote, batch, prices, plain };
}

describe('the same market state and change on every surface at one instant', () => {
  // Friday 13 June 2025, 17:30 New York: after the close, inside the after-hours window.
  const clock = new ManualClock(Date.parse('2025-06-13T21:30:00Z'));
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '1000' }, overrides: { clock } });
  });
  afterAll(async () => t?.close());

  it.each([
    ['AAPL', 'POST'],
    ['BTC/USDT', 'CONTINUOUS'],
    ['^GSPC', 'CLOSED'],
  ])('%s after the close (17:30 New York): %s everywhere', async (symbol, state) => {
    const { quote, batch, prices, plain } = await everySurface(t, symbol);
    expect(quote.marketState).toBe(state);
    expect(batch).toEqual(quote);
    expect(prices).toMatchObject({ snapshot: true, marketState: state, price: quote.price });
    expect(plain).toMatchObject({ snapshot: true, market_state: state.toLowerCase(), price: quote.price });
    expect([prices.changePercent, plain.change_percent]).toEqual([quote.changePercent, quote.changePercent]);
    expect([prices.change, plain.change]).toEqual([quote.change, quote.change]);
  });

  it('says CLOSED everywhere once after-hours end (20:30 New York), where the quote and the streams used to differ', async () => {
    await clock.advance(3 * 3_600_000);
    expect(clock.now().toISOString()).toBe('2025-06-14T00:30:00.000Z');
    const { quote, batch, prices, plain } = await everySurface(t, 'AAPL');
    expect(quote.marketState).toBe('CLOSED');
    expect(batch.marketState).toBe('CLOSED');
    expect(prices.marketState).toBe('CLOSED');
    expect(plain.market_state).toBe('closed');
  });
});

describe('quote and quotes answer the same shape', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ overrides: { clock: new ManualClock(Date.parse('2025-06-11T15:00:00Z')) } });
  });
  afterAll(async () => t?.close());

  it('one selection reads either: requested, instrument, quote and lineage', async () => {
    const selection = `requested instrument { id symbol name exchange assetClass market }
      quote { ${QUOTE_FIELDS} } lineage { used simulated asOf }`;
    const one = await graphql<Json>(t.app, `{ quote(symbol: "aapl") { ${selection} } }`);
    const many = await graphql<Json>(t.app, `{ quotes(symbols: ["aapl"]) { ${selection} error { code } } }`);
    expect(one.body.errors).toBeUndefined();
    expect(many.body.errors).toBeUndefined();
    const { error, ...batched } = many.body.data.quotes[0];
    expect(error).toBeNull();
    expect(one.body.data.quote).toEqual(batched);
    expect(batched).toMatchObject({
      requested: 'aapl',
      instrument: { id: 'equity:US:AAPL', symbol: 'AAPL', name: 'Apple Inc.', assetClass: 'EQUITY' },
      quote: { id: 'equity:US:AAPL', marketState: 'REGULAR' },
      lineage: { simulated: true },
    });
  });

  it("keeps quote's former fields for existing clients, marked deprecated", async () => {
    const r = await graphql<Json>(t.app, '{ quote(symbol: "AAPL") { id symbol assetClass } }');
    expect(r.body.data.quote).toEqual({ id: 'equity:US:AAPL', symbol: 'AAPL', assetClass: 'EQUITY' });
    const fields = await graphql<Json>(
      t.app,
      '{ __type(name: "SourcedQuote") { fields(includeDeprecated: true) { name isDeprecated } } }',
    );
    const deprecated = fields.body.data.__type.fields
      .filter((f: Json) => f.isDeprecated)
      .map((f: Json) => f.name);
    expect(deprecated.sort()).toEqual(['assetClass', 'symbol']);
  });
});

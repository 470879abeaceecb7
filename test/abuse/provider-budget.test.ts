import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';
import { createFakeProvider } from '../support/fake-provider.ts';
import { ManualClock } from '../support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const SYMBOLS = Array.from({ length: 300 }, (_, i) => `Q${i}`);
const aliased = (symbols: readonly string[]) =>
  `{ ${symbols.map((s, i) => `q${i}: quote(symbol: "${s}") { symbol quote { price } }`).join(' ')} }`;
const codes = (errors: Json[] | undefined) =>
  (errors ?? []).reduce<Record<string, number>>((n, e) => {
    const code = e.extensions?.code as string;
    n[code] = (n[code] ?? 0) + 1;
    return n;
  }, {});

/**
 * The live providers' rate limits are shared by every client: one request with hundreds of aliased
 * quotes must not spend them for everyone. Distinct instruments per operation are capped, and
 * upstream calls are charged to the calling client's own share.
 */
describe('provider budget', () => {
  const provider = createFakeProvider('live-feed', { live: true });
  for (const [i, s] of SYMBOLS.entries()) provider.prices.set(s, 100 + i);
  provider.prices.set('AAPL', 190);
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        RATE_LIMIT_MAX: '10000',
        // Clients are told apart by address; in-process requests carry it as a proxy would.
        TRUST_PROXY: 'true',
        // Document limits would refuse 300 aliases by themselves; this is about the providers' budget.
        GRAPHQL_MAX_ALIASES: '1000',
        GRAPHQL_MAX_TOKENS: '50000',
        GRAPHQL_MAX_COST: '10000000',
        MAX_SYMBOLS_PER_OPERATION: '10',
        UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: '5',
      },
      // Time stands still: cached answers stay fresh and spent shares do not refill mid-test.
      overrides: { providers: [provider], clock: new ManualClock() },
    });
  });
  afterAll(async () => t?.close());

  const CLIENTS = {
    greedy: '203.0.113.10',
    patient: '203.0.113.20',
    wide: '203.0.113.30',
    counted: '203.0.113.40',
  };
  const asClient = (client: keyof typeof CLIENTS, query: string) =>
    graphql<Json>(t.app, query, undefined, { 'x-forwarded-for': CLIENTS[client] });

  it("limits one client's 300 aliased quotes, and another client's quote still succeeds", async () => {
    const { body } = await asClient('greedy', aliased(SYMBOLS));
    expect(body.errors?.length).toBeGreaterThan(0);
    expect(provider.calls.quote).toBeLessThanOrEqual(5);

    const other = await asClient('patient', '{ quote(symbol: "AAPL") { quote { price } } }');
    expect(other.body.errors).toBeUndefined();
    expect(other.body.data.quote.quote.price).toBe(190);
  });

  it('refuses more distinct instruments per operation than the cap, by name, cached or not', async () => {
    const wide = SYMBOLS.slice(100, 111);
    // Warmed by the server's own work: every one of them is a cache hit for the client.
    for (const s of wide) await t.app.deps.marketData.quote(parseInstrument(s));
    const calls = provider.calls.quote;
    const { body } = await asClient('wide', aliased(wide));
    expect(codes(body.errors)).toEqual({ TOO_MANY_SYMBOLS: 1 });
    expect(body.errors?.[0]?.extensions).toMatchObject({ limit: 10 });
    expect(body.errors?.[0]?.message).toContain('at most 10 per operation');
    expect(provider.calls.quote).toBe(calls);
    // Ten are fine, and so is the same instrument under many aliases.
    expect((await asClient('wide', aliased(wide.slice(0, 10)))).body.errors).toBeUndefined();
    expect((await asClient('wide', aliased(Array(20).fill(wide[0])))).body.errors).toBeUndefined();
  });

  it("charges upstream calls to the client's share and answers from the cache for free", async () => {
    const six = SYMBOLS.slice(200, 206);
    const calls = provider.calls.quote;
    const { body } = await asClient('counted', aliased(six));
    expect(codes(body.errors)).toEqual({ RATE_LIMITED: 1 });
    expect(body.errors?.[0]?.extensions).toMatchObject({ limit: 5, retryAfterSeconds: 12 });
    expect(body.errors?.[0]?.message).toContain('5 provider calls per minute per client');
    expect(provider.calls.quote - calls).toBe(5);
    // The five it paid for are cached now and cost nothing; the sixth is still refused.
    const one = await Promise.all(
      six.map((s) => asClient('counted', `{ quote(symbol: "${s}") { quote { price } } }`)),
    );
    expect(one.filter((r) => r.body.errors === undefined)).toHaveLength(5);
    expect(codes(one.flatMap((r) => r.body.errors ?? []))).toEqual({ RATE_LIMITED: 1 });
    expect(provider.calls.quote - calls).toBe(5);
  });

  it('bills background work to no one', async () => {
    const fresh = await asClient('counted', '{ quote(symbol: "Q299") { quote { price } } }');
    expect(codes(fresh.body.errors)).toEqual({ RATE_LIMITED: 1 });
    // The server's own work (jobs, the price hub) runs outside any client operation.
    await t.app.deps.marketData.quote(parseInstrument('Q299'));
    const after = await asClient('counted', '{ quote(symbol: "Q299") { quote { price } } }');
    expect(after.body.errors).toBeUndefined();
  });

  it('refuses over REST too, with 429 and Retry-After', async () => {
    const response = await t.app.fetch('/mcp/tools/search-by-symbol', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': CLIENTS.counted },
      body: JSON.stringify({ symbol: 'Q298', depth: 'quick' }),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('provider budget on the plain WebSocket price stream', () => {
  const provider = createFakeProvider('live-stream-feed', { live: true });
  const symbols = Array.from({ length: 8 }, (_, i) => `W${i}`);
  for (const [i, s] of symbols.entries()) provider.prices.set(s, 50 + i);
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: '5' },
      overrides: { providers: [provider] },
    });
  });
  afterAll(async () => t?.close());

  it('charges the symbols a /ws/stream subscription resolves to the connecting client', async () => {
    const { default: WebSocket } = await import('ws');
    const socket = new WebSocket(`${t.wsUrl}/ws/stream`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const reply = new Promise<Json>((resolve) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        if (message.type === 'error' || message.type === 'subscription_ack') resolve(message);
      });
    });
    const before = provider.calls.quote;
    socket.send(JSON.stringify({ type: 'subscribe', stream_type: 'price', symbols, interval_ms: 1000 }));
    const message = await reply;
    socket.close();
    expect(message).toMatchObject({ type: 'error', error_code: 'SUBSCRIPTION_ERROR' });
    expect(message.details).toMatchObject({ code: 'RATE_LIMITED' });
    expect(provider.calls.quote - before).toBeLessThanOrEqual(5);
  });
});

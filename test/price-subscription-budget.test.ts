import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from './support/app.ts';
import { createFakeProvider } from './support/fake-provider.ts';
import { ManualClock } from './support/manual-clock.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const QUERY =
  'subscription ($s: [String!]!) { prices(symbols: $s, intervalMs: 100) { symbol price snapshot } }';

/** One graphql-ws connection with one `prices` subscription: every message it got, in order. */
class Subscriber {
  readonly messages: Json[] = [];
  readonly #socket: WebSocket;
  #waiters: Array<() => void> = [];

  constructor(url: string, symbol: string) {
    this.#socket = new WebSocket(url, 'graphql-transport-ws');
    this.#socket.on('open', () => this.#socket.send(JSON.stringify({ type: 'connection_init' })));
    this.#socket.on('message', (raw) => {
      const message = JSON.parse(String(raw));
      if (message.type === 'connection_ack') {
        const payload = { query: QUERY, variables: { s: [symbol] } };
        this.#socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload }));
      } else this.messages.push(message);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  /** Waits for the subscription's first message (a tick, or why it was refused). */
  async first(): Promise<Json> {
    while (this.messages.length === 0) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.messages[0];
  }

  /** Waits for a message of `type`. */
  async until(type: string): Promise<Json> {
    for (;;) {
      const found = this.messages.find((m) => m.type === type);
      if (found) return found;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  close(): void {
    this.#socket.terminate();
  }
}

/**
 * Many subscribers of one symbol behind one address (a proxy, a NAT, the scale benchmark) are one
 * client to the upstream budget. Checking a symbol at subscribe reads its quote; a symbol whose
 * cached quote has just expired (between two polls of its feed) must not cost an upstream call,
 * or a crowd of subscribers spends the client's share and some of them are refused with
 * RATE_LIMITED for a feed that is running anyway. A symbol nobody has read still costs one, and
 * a subscription refused for it ends with a result whose error names the reason, then `complete`.
 */
describe('checking the symbols of a price subscription', () => {
  const clock = new ManualClock();
  const provider = createFakeProvider('budget-feed', { capabilities: ['quote'], assetClasses: ['crypto'] });
  provider.prices.set('AAA/USDT', 101);
  provider.prices.set('BBB/USDT', 202);
  let t: TestApp;
  const open: Subscriber[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        // One upstream call a minute per client: the first subscription's check spends it.
        UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: '1',
        // The feed does not poll again during the test: its cached quote just ages.
        PRICE_POLL_INTERVAL_MS: '60000',
      },
      overrides: { providers: [provider], clock },
    });
  });
  afterAll(async () => {
    for (const s of open) s.close();
    await t?.close();
  });

  const subscribe = (symbol: string) => {
    const subscriber = new Subscriber(`${t.wsUrl}/graphql`, symbol);
    open.push(subscriber);
    return subscriber;
  };

  it('lets a subscriber join a running feed whose cached quote expired, at no upstream cost', async () => {
    const first = subscribe('AAA/USDT');
    expect(await first.first()).toMatchObject({
      type: 'next',
      payload: { data: { prices: { symbol: 'AAA/USDT', price: 101, snapshot: true } } },
    });
    // A crypto quote stays cached 2 s: past that, the next check finds it expired.
    await clock.advance(3_000);
    const calls = provider.calls.quote;
    const second = subscribe('AAA/USDT');
    const message = await second.first();
    expect(message).toMatchObject({
      type: 'next',
      payload: { data: { prices: { symbol: 'AAA/USDT', price: 101, snapshot: true } } },
    });
    expect(provider.calls.quote).toBe(calls);
  });

  it('ends a subscription refused at start with a result naming the reason, then complete', async () => {
    const refused = subscribe('BBB/USDT');
    const message = await refused.first();
    expect(message).toMatchObject({
      type: 'next',
      payload: { errors: [{ extensions: { code: 'RATE_LIMITED' } }] },
    });
    expect(message.payload.data ?? null).toBeNull();
    await refused.until('complete');
  });
});

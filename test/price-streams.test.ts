import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from './support/app.ts';
import { createFakeProvider, type FakeProvider } from './support/fake-provider.ts';

/** A ws client that records every message and can wait for one matching a predicate. */
class Client {
  readonly messages: Array<Record<string, unknown>> = [];
  /** Every message as it came over the wire. */
  readonly raw: string[] = [];
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters: Array<() => void> = [];

  constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on('message', (data) => {
      this.raw.push(String(data));
      this.messages.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const w of this.#waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async next(
    match: (m: Record<string, unknown>) => boolean,
    timeoutMs = 3000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let seen = 0;
    for (;;) {
      const found = this.messages.slice(seen).find(match);
      if (found) {
        this.messages.splice(this.messages.indexOf(found), 1);
        return found;
      }
      seen = this.messages.length;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

const ofType = (type: string) => (m: Record<string, unknown>) => m.type === type;

/** The snapshot items of `symbols`, from however many data messages they came in. */
async function snapshotItems(c: Client, symbols: readonly string[]) {
  const found = new Map<string, Record<string, unknown>>();
  while (found.size < symbols.length) {
    const message = await c.next(
      (m) => m.type === 'data' && (m.data as Array<{ snapshot?: boolean }>).some((i) => i.snapshot),
    );
    for (const item of message.data as Array<Record<string, unknown>>)
      if (item.snapshot) found.set(String(item.symbol), item);
  }
  return found;
}

describe('plain WebSocket price streams', () => {
  let t: TestApp;
  let fake: FakeProvider;
  const clients: Client[] = [];
  const connect = async (path: string) => {
    const c = new Client(`${t.wsUrl}${path}`);
    clients.push(c);
    await c.opened();
    return c;
  };

  beforeAll(async () => {
    fake = createFakeProvider('fakex', {
      capabilities: ['quote', 'stream'],
      assetClasses: ['equity', 'crypto'],
    });
    fake.prices.set('AAPL', 200);
    fake.prices.set('MSFT', 400);
    fake.prices.set('BTC/USDT', 50_000);
    t = await createTestApp({ listen: true, overrides: { providers: [fake] } });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  afterAll(async () => t?.close());

  const connections = async () =>
    (await fetch(`${t.url}/ws/connections`)).json() as Promise<Record<string, unknown>>;

  it('subscribes on /ws/stream, acknowledges, and sends data messages with sequenced prices', async () => {
    const c = await connect('/ws/stream');
    c.send({ type: 'subscribe', stream_type: 'price', symbols: ['aapl', 'BTC/USDT'], interval_ms: 100 });
    const ack = await c.next(ofType('subscription_ack'));
    expect(ack).toMatchObject({
      stream_type: 'price',
      symbols: ['AAPL', 'BTC/USDT'],
      interval_ms: 100,
      subscription_id: expect.any(String),
    });
    // First the snapshot of each symbol (the last known price: the reference quote, seq 1).
    const snapshots = await snapshotItems(c, ['AAPL', 'BTC/USDT']);
    expect(snapshots.get('AAPL')).toMatchObject({ price: 200, seq: 1, snapshot: true, provider: 'fakex' });
    expect(snapshots.get('BTC/USDT')).toMatchObject({
      price: 50_000,
      snapshot: true,
      market_state: 'continuous',
    });
    fake.emit('AAPL', 201);
    fake.emit('AAPL', 202);
    fake.emit('BTC/USDT', 50_100);
    const data = await c.next((m) => m.type === 'data' && (m.data as unknown[]).length === 2);
    expect(data.subscription_id).toBe(ack.subscription_id);
    const items = data.data as Array<Record<string, unknown>>;
    expect(items.find((i) => i.symbol === 'AAPL')).toMatchObject({
      price: 202,
      provider: 'fakex',
      simulated: false,
      seq: 3,
      snapshot: false,
    });
    expect(items.find((i) => i.symbol === 'BTC/USDT')).toMatchObject({ price: 50_100, asset_type: 'crypto' });
  });

  it('answers ping with pong, bad JSON and unknown types with errors, and keeps the connection', async () => {
    const c = await connect('/ws/stream');
    c.send({ type: 'ping' });
    expect(await c.next(ofType('pong'))).toMatchObject({ timestamp: expect.any(String) });
    c.send('{nope');
    expect(await c.next(ofType('error'))).toMatchObject({ error_code: 'INVALID_JSON' });
    c.send({ type: 'dance' });
    expect(await c.next(ofType('error'))).toMatchObject({ error_code: 'INVALID_MESSAGE_TYPE' });
    c.send({ type: 'subscribe', symbols: ['AAPL'], interval_ms: 5 });
    expect(await c.next(ofType('error'))).toMatchObject({
      error_code: 'SUBSCRIPTION_ERROR',
      message: expect.stringContaining('interval_ms: must be between 100 and 60000, got 5'),
    });
    c.send({ type: 'subscribe', symbols: ['NOPE'] });
    expect(await c.next(ofType('error'))).toMatchObject({
      error_code: 'SUBSCRIPTION_ERROR',
      message: expect.stringContaining('unknown symbol NOPE'),
    });
    c.send({ type: 'subscribe', stream_type: 'trades', symbols: ['AAPL'] });
    expect(await c.next(ofType('error'))).toMatchObject({
      message: expect.stringContaining('stream_type trades is not available'),
    });
    c.send({ type: 'ping' });
    await c.next(ofType('pong'));
    expect(c.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('enforces the subscriptions-per-connection limit with an error message', async () => {
    const c = await connect('/ws/stream');
    for (let i = 0; i < 20; i++) c.send({ type: 'subscribe', symbols: ['MSFT'], interval_ms: 1000 });
    for (let i = 0; i < 20; i++) await c.next(ofType('subscription_ack'));
    c.send({ type: 'subscribe', symbols: ['MSFT'] });
    expect(await c.next(ofType('error'))).toMatchObject({
      error_code: 'LIMIT_EXCEEDED',
      details: { limit: 20 },
    });
  });

  it('unsubscribes, and /ws/connections reflects it and disconnects', async () => {
    const c = await connect('/ws/stream');
    c.send({ type: 'subscribe', symbols: ['MSFT', 'AAPL'], interval_ms: 100 });
    await c.next(ofType('subscription_ack'));
    expect(await connections()).toMatchObject({
      total_subscriptions: 1,
      subscribed_symbol_count: 2,
      price_stream_connections: 1,
    });
    c.send({ type: 'unsubscribe', stream_type: 'price', symbols: ['msft'] });
    expect(await c.next(ofType('unsubscribe_ack'))).toMatchObject({ symbols: ['MSFT'] });
    expect(await connections()).toMatchObject({ subscribed_symbol_count: 1 });
    c.send({ type: 'unsubscribe', stream_type: 'price' });
    await c.next(ofType('unsubscribe_ack'));
    expect(await connections()).toMatchObject({ total_subscriptions: 0, subscribed_symbol_count: 0 });
    c.send({ type: 'unsubscribe', stream_type: 'price' });
    expect(await c.next(ofType('error'))).toMatchObject({ error_code: 'UNSUBSCRIBE_ERROR' });
    c.close();
    await c.closed;
    await expect.poll(async () => (await connections()).price_stream_connections).toBe(0);
    expect(fake.streams.size).toBe(0);
  });

  it('auto-subscribes /ws/prices/{symbols}, crypto included', async () => {
    const c = await connect('/ws/prices/AAPL,BTC-USDT?interval_ms=100');
    expect(await c.next(ofType('subscription_ack'))).toMatchObject({
      symbols: ['AAPL', 'BTC/USDT'],
      stream_type: 'price',
    });
    fake.emit('BTC/USDT', 51_000);
    const data = await c.next((m) => m.type === 'data' && JSON.stringify(m.data).includes('51000'));
    expect((data.data as Array<{ symbol: string }>)[0]?.symbol).toBe('BTC/USDT');
  });

  it('answers too many symbols on /ws/prices with an error message before closing', async () => {
    const symbols = Array.from({ length: 51 }, (_, i) => `S${i}`).join(',');
    const c = await connect(`/ws/prices/${symbols}`);
    expect(await c.next(ofType('error'))).toMatchObject({
      error_code: 'SUBSCRIPTION_ERROR',
      message: expect.stringContaining('at most 50 symbols'),
    });
    expect((await c.closed).code).toBe(1008);
  });

  it('builds one-minute OHLCV bars from the ticks', async () => {
    const c = await connect('/ws/stream');
    c.send({ type: 'subscribe', stream_type: 'ohlcv', symbols: ['MSFT'], interval_ms: 100 });
    await c.next(ofType('subscription_ack'));
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    fake.emit('MSFT', 401, new Date(minute + 1000));
    fake.emit('MSFT', 405, new Date(minute + 2000));
    fake.emit('MSFT', 399, new Date(minute + 3000));
    fake.emit('MSFT', 402, new Date(minute + 61_000));
    const data = await c.next(
      (m) => m.type === 'data' && JSON.stringify(m.data).includes('"is_closed":true'),
    );
    const bars = data.data as Array<Record<string, unknown>>;
    expect(bars.find((b) => b.is_closed)).toMatchObject({
      symbol: 'MSFT',
      open: 401,
      high: 405,
      low: 399,
      close: 399,
      volume: 3,
    });
    expect(bars.find((b) => !b.is_closed)).toMatchObject({ open: 402, close: 402 });
  });

  it('shares one upstream feed across every client of a symbol', async () => {
    const a = await connect('/ws/prices/MSFT');
    const b = await connect('/ws/prices/MSFT');
    await a.next(ofType('subscription_ack'));
    await b.next(ofType('subscription_ack'));
    expect(fake.streams.get('MSFT')?.size).toBe(1);
    expect((await connections()).hub).toMatchObject({ upstream_feeds: 1 });
  });

  it('tells a subscription which of its feeds is failing', async () => {
    fake.prices.set('NVDA', 900);
    const c = await connect('/ws/prices/NVDA?interval_ms=100');
    const ack = await c.next(ofType('subscription_ack'));
    await snapshotItems(c, ['NVDA']);
    for (const sub of fake.streams.get('NVDA') ?? []) sub.onError(new Error('upstream went away'));
    expect(await c.next(ofType('error'))).toMatchObject({
      error_code: 'PROCESSING_ERROR',
      message: 'price feed for NVDA is failing: upstream went away',
      details: { symbol: 'NVDA', subscription_id: ack.subscription_id },
    });
  });

  it('sends subscribers of the same symbols the same bytes of a tick; a closed one leaves nothing', async () => {
    const path = '/ws/prices/AAPL,MSFT?interval_ms=100';
    const [a, b] = [await connect(path), await connect(path)];
    for (const c of [a, b]) await snapshotItems(c, ['AAPL', 'MSFT']);
    const hub = () => t.app.deps.priceHub.stats();
    // Only these two connections are left: one hub subscriber per symbol each.
    await expect.poll(() => hub().subscribers).toBe(4);
    fake.emit('AAPL', 321.25);
    const sent = async (c: Client) => {
      const message = await c.next((m) => m.type === 'data' && JSON.stringify(m.data).includes('321.25'));
      return { id: String(message.subscription_id), text: c.raw.find((r) => r.includes('321.25'))! };
    };
    const [fromA, fromB] = [await sent(a), await sent(b)];
    expect(fromA.id).not.toBe(fromB.id);
    // The same bytes but for the subscription's id and the time the message went out.
    const envelope = ({ id, text }: { id: string; text: string }) =>
      text
        .replace(`"subscription_id":"${id}"`, '"subscription_id":"-"')
        .replace(/"timestamp":"[^"]+","metadata"/, '"timestamp":"-","metadata"');
    expect(envelope(fromA)).toBe(envelope(fromB));
    expect(JSON.stringify(JSON.parse(fromA.text))).toBe(fromA.text);

    a.close();
    await a.closed;
    await expect.poll(() => hub().subscribers).toBe(2);
    expect((await connections()).price_stream_connections).toBe(1);
    b.close();
    await b.closed;
    await expect.poll(async () => (await connections()).price_stream_connections).toBe(0);
    expect(hub()).toMatchObject({ feeds: 0, subscribers: 0 });
    expect(fake.streams.size).toBe(0);
  });
});

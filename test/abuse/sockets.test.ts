import { createClient, type Client as GraphqlWsClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, type TestApp } from '../support/app.ts';
import { createFakeProvider, type FakeProvider } from '../support/fake-provider.ts';

type Message = Record<string, unknown>;

/** A plain ws client that records what it receives; waits are bounded. */
class Client {
  readonly messages: Message[] = [];
  readonly raw: string[] = [];
  readonly socket: WebSocket;
  readonly closed: Promise<{ code: number; reason: string }>;
  #waiters: Array<() => void> = [];

  constructor(url: string, protocol?: string) {
    this.socket = new WebSocket(url, protocol);
    this.socket.on('error', () => {});
    this.socket.on('message', (data) => {
      this.raw.push(String(data));
      this.messages.push(JSON.parse(String(data)) as Message);
      for (const w of this.#waiters.splice(0)) w();
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  opened(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Waits until `count` messages match, bounded by `timeoutMs`. */
  async collect(match: (m: Message) => boolean, count: number, timeoutMs = 5000): Promise<Message[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.filter(match);
      if (found.length >= count) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} messages, got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

const ofType = (type: string) => (m: Message) => m.type === type;

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]);
}

/** The HTTP status an upgrade gets: 101 when the WebSocket opens. */
function upgradeStatus(url: string, headers: Record<string, string> = {}, protocol?: string) {
  const socket = new WebSocket(url, protocol, { headers });
  socket.on('error', () => {});
  return within(
    new Promise<number>((resolve) => {
      socket.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
        socket.terminate();
      });
      socket.once('open', () => {
        resolve(101);
        socket.close();
      });
    }),
    5000,
    `upgrade of ${url}`,
  );
}

function graphqlWs(url: string): GraphqlWsClient {
  return createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
}

/** Starts `count` subscriptions on one graphql-ws client; reports each one's first result or error. */
function subscribeMany(client: GraphqlWsClient, query: string, count: number) {
  return Array.from(
    { length: count },
    () =>
      new Promise<{ ok: true } | { ok: false; error: Message }>((resolve) => {
        const stop = client.subscribe(
          { query },
          {
            next: () => {
              stop();
              resolve({ ok: true });
            },
            error: (error) => resolve({ ok: false, error: (error as Message[])[0] ?? {} }),
            complete: () => {},
          },
        );
      }),
  );
}

const SYMBOLS = Array.from({ length: 50 }, (_, i) => `S${i}`);
const LIMIT = 65_536;
const LONG = 'Z'.repeat(5000);

describe('socket abuse: payloads, echoes, slow readers, rates and origins', () => {
  let t: TestApp;
  let fake: FakeProvider;
  const clients: Client[] = [];
  const connect = async (path: string, protocol?: string) => {
    const c = new Client(`${t.wsUrl}${path}`, protocol);
    clients.push(c);
    await within(c.opened(), 5000, `open ${path}`);
    return c;
  };
  /** Open graphql-ws connections, as the server counts them. */
  const graphqlConnections = async () => {
    const body = (await (await fetch(`${t.url}/ws/connections`)).json()) as {
      connections_by_route: Record<string, number>;
    };
    return body.connections_by_route['/graphql'] ?? 0;
  };
  /** A tick for every symbol each `ms`, at a rising price, until the returned function is called. */
  const pumpTicks = (ms: number) => {
    let price = 1;
    const pump = setInterval(() => {
      price++;
      for (const symbol of SYMBOLS) fake.emit(symbol, price);
    }, ms);
    return () => clearInterval(pump);
  };

  beforeAll(async () => {
    fake = createFakeProvider('fakex', { capabilities: ['quote', 'stream'], assetClasses: ['equity'] });
    for (const [i, symbol] of [...SYMBOLS, 'AAPL'].entries()) fake.prices.set(symbol, 100 + i);
    t = await createTestApp({
      listen: true,
      overrides: { providers: [fake] },
      env: {
        WS_MAX_BUFFERED_BYTES: String(LIMIT),
        WS_SUBSCRIBE_RATE_PER_SECOND: '1',
        GRAPHQL_WS_MAX_SUBSCRIPTIONS: '100',
        ALLOWED_ORIGINS: 'https://app.example',
      },
    });
  });
  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.terminate();
  });
  afterAll(async () => t?.close());

  it('closes /ws/stream with 1009 on a message over WS_MAX_MESSAGE_BYTES, answering nothing', async () => {
    const c = await connect('/ws/stream');
    c.send(`{"type":"${'x'.repeat(1_000_000)}"}`);
    expect((await within(c.closed, 5000, 'close after 1 MB')).code).toBe(1009);
    expect(c.raw.join('')).not.toContain('xxxxxxxx');
  });

  it('closes graphql-ws with 1009 on a message over the GraphQL body cap, logging nothing', async () => {
    const printed = vi.spyOn(console, 'error');
    try {
      const c = await connect('/graphql', 'graphql-transport-ws');
      c.send({ type: 'connection_init', payload: { pad: 'x'.repeat(300_000) } });
      expect((await within(c.closed, 5000, 'close after 300 KB')).code).toBe(1009);
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });

  it('closes a graphql-ws client that asks for replies and never reads them', async () => {
    const c = await connect('/graphql', 'graphql-transport-ws');
    c.send({ type: 'connection_init' });
    await c.collect(ofType('connection_ack'), 1);
    (c.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    // Every ping asks for a pong carrying the ping's payload back; once the kernel's buffers are
    // full, the pongs would pile up in the server.
    const ping = JSON.stringify({ type: 'ping', payload: { pad: 'p'.repeat(100_000) } });
    let sent = 0;
    while (sent < 1000 && (await graphqlConnections()) > 0) {
      for (let i = 0; i < 10; i++) c.socket.send(ping);
      sent += 10;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await expect.poll(graphqlConnections, { timeout: 5000 }).toBe(0);
  });

  it('closes a graphql-ws subscriber of prices that stops reading, its backlog held under the bound', async () => {
    const c = await connect('/graphql', 'graphql-transport-ws');
    c.send({ type: 'connection_init' });
    await c.collect(ofType('connection_ack'), 1);
    const query =
      'subscription ($s: [String!]!) { prices(symbols: $s, intervalMs: 100) ' +
      '{ symbol price change changePercent volume currency asOf provider snapshot marketState } }';
    // 20 subscriptions of 50 symbols: about 2.5 MB a second, so the kernel's buffers fill in seconds.
    for (let i = 0; i < 20; i++)
      c.send({ id: `p${i}`, type: 'subscribe', payload: { query, variables: { s: SYMBOLS } } });
    await c.collect(ofType('next'), 20 * SYMBOLS.length, 10_000);
    (c.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    // Once the kernel's buffers are full, the messages queue in the server until the bound closes
    // the connection.
    const stop = pumpTicks(50);
    try {
      await expect.poll(graphqlConnections, { timeout: 20_000, interval: 100 }).toBe(0);
    } finally {
      stop();
    }
    const grown = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore;
    // Its unsent messages were bounded by WS_MAX_BUFFERED_BYTES, not by the pools they came from.
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  });

  it('answers bad messages with short errors that do not echo the input', async () => {
    const c = await connect('/ws/stream');
    const bad = [
      `{"type":"${LONG}"}`,
      `{${LONG}`,
      { type: 'subscribe', symbols: ['AAPL'], asset_type: LONG },
      { type: 'subscribe', symbols: ['AAPL'], market: LONG },
      { type: 'subscribe', symbols: [LONG] },
      { type: 'subscribe', symbols: ['Z'.repeat(32)] },
      { type: 'unsubscribe', symbols: Array.from({ length: 50 }, (_, i) => `${i}${'Z'.repeat(30)}`) },
    ];
    for (const message of bad) c.send(message);
    const errors = await c.collect(ofType('error'), bad.length);
    for (const error of errors) {
      const text = JSON.stringify(error);
      expect(text.length, text).toBeLessThan(600);
      expect(text).not.toContain('Z'.repeat(48));
    }
  });

  it('survives a message whose type is nested thousands of levels deep, and answers it', async () => {
    const c = await connect('/ws/stream');
    // About 60 KB, under WS_MAX_MESSAGE_BYTES: serialising it back once crashed the whole process.
    c.send(`{"type":${'['.repeat(30_000)}${']'.repeat(30_000)}}`);
    const [error] = await c.collect(ofType('error'), 1);
    expect(error).toMatchObject({ error_code: 'INVALID_MESSAGE_TYPE' });
    expect(JSON.stringify(error).length).toBeLessThan(600);
    c.send({ type: 'ping' });
    expect(await c.collect(ofType('pong'), 1)).toHaveLength(1);
  });

  it('keeps a reader that never reads under WS_MAX_BUFFERED_BYTES and closes it when it stays over', async () => {
    const c = await connect('/ws/stream');
    for (let i = 0; i < 20; i++) c.send({ type: 'subscribe', symbols: SYMBOLS, interval_ms: 100 });
    await c.collect(ofType('subscription_ack'), 20);
    (c.socket as unknown as { _socket: { pause(): void } })._socket.pause();

    const stop = pumpTicks(50);
    try {
      const stats = () => t.app.deps.priceStreams.stats();
      // The server is behind once its buffer for this socket reaches the limit.
      await expect
        .poll(() => stats().maxBufferedBytes, { timeout: 20_000, interval: 50 })
        .toBeGreaterThan(LIMIT);
      let peak = 0;
      for (let round = 0; round < 30; round++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        peak = Math.max(peak, stats().maxBufferedBytes);
      }
      // Over the limit by at most the one message that crossed it.
      expect(peak).toBeLessThan(LIMIT + 32_768);
      // A reply it would have to queue ends the connection.
      c.send({ type: 'ping' });
      await expect.poll(() => stats().connections, { timeout: 10_000, interval: 50 }).toBe(0);
    } finally {
      stop();
    }
  });

  it('rate-limits subscription creation per connection on /ws/stream', async () => {
    const c = await connect('/ws/stream');
    // Subscribe and unsubscribe again and again: the slots are free, only the rate (1/s, burst 20)
    // stops it. 24 attempts stay under the message rate limit and leave room for a slow machine.
    let accepted = 0;
    let refusal: Message | undefined;
    for (let i = 0; i < 24 && !refusal; i++) {
      c.send({ type: 'subscribe', symbols: ['AAPL'], interval_ms: 1000 });
      const [answer] = await c.collect((m) => m.type === 'subscription_ack' || m.type === 'error', 1);
      c.messages.length = 0;
      if (answer?.type === 'error') refusal = answer;
      else {
        accepted++;
        c.send({ type: 'unsubscribe', stream_type: 'price' });
        await c.collect(ofType('unsubscribe_ack'), 1);
        c.messages.length = 0;
      }
    }
    expect(accepted).toBeGreaterThanOrEqual(20);
    expect(refusal).toMatchObject({
      error_code: 'LIMIT_EXCEEDED',
      message: expect.stringContaining('per second'),
    });
    expect(c.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('rate-limits subscription creation per graphql-ws connection', async () => {
    const client = graphqlWs(`${t.wsUrl}/graphql`);
    try {
      const results = await within(
        Promise.all(subscribeMany(client, 'subscription { time(intervalMs: 100) }', 25)),
        10_000,
        'graphql-ws results',
      );
      const refused = results.filter((r) => !r.ok);
      // 25 sent at once against a burst of 20 at 1/s: at most a token or two refills meanwhile.
      expect(results.filter((r) => r.ok).length).toBeLessThanOrEqual(22);
      expect(refused.length).toBeGreaterThanOrEqual(3);
      expect(refused[0]).toMatchObject({ error: { extensions: { code: 'RATE_LIMITED' } } });
    } finally {
      await client.dispose();
    }
  });

  it('refuses upgrades from other origins with 403 on every route', async () => {
    const evil = { origin: 'https://evil.example' };
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`, evil)).toBe(403);
    expect(await upgradeStatus(`${t.wsUrl}/ws/prices/AAPL`, evil)).toBe(403);
    expect(await upgradeStatus(`${t.wsUrl}/graphql`, evil, 'graphql-transport-ws')).toBe(403);
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`, { origin: 'null' })).toBe(403);
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`, { origin: `${t.url}.evil.example` })).toBe(403);
  });

  it('accepts upgrades without Origin, from the same origin and from ALLOWED_ORIGINS', async () => {
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`)).toBe(101);
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`, { origin: t.url })).toBe(101);
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`, { origin: 'https://app.example' })).toBe(101);
    expect(
      await upgradeStatus(`${t.wsUrl}/graphql`, { origin: 'https://APP.example' }, 'graphql-transport-ws'),
    ).toBe(101);
  });
});

describe('socket abuse: subscriptions and connections per client', () => {
  let t: TestApp;
  const clients: Client[] = [];

  beforeAll(async () => {
    const fake = createFakeProvider('fakey', { capabilities: ['quote', 'stream'], assetClasses: ['equity'] });
    fake.prices.set('AAPL', 200);
    t = await createTestApp({
      listen: true,
      overrides: { providers: [fake] },
      // A burst this large leaves the per-connection cap as the only bound being tested.
      env: { WS_SUBSCRIBE_BURST: '100', WS_MAX_CONNECTIONS_PER_CLIENT: '3' },
    });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.close();
    await expect.poll(() => t.app.deps.priceStreams.stats().connections, { timeout: 5000 }).toBe(0);
  });
  afterAll(async () => t?.close());

  const openConnections = async () =>
    ((await (await fetch(`${t.url}/ws/connections`)).json()) as { active_connections: number })
      .active_connections;

  it('creates at most 20 subscriptions from 45 back-to-back subscribes on /ws/stream', async () => {
    const c = new Client(`${t.wsUrl}/ws/stream`);
    clients.push(c);
    await within(c.opened(), 5000, 'open');
    for (let i = 0; i < 45; i++) c.send({ type: 'subscribe', symbols: ['AAPL'], interval_ms: 1000 });
    const answers = await c.collect((m) => m.type === 'subscription_ack' || m.type === 'error', 45);
    expect(answers.filter(ofType('subscription_ack'))).toHaveLength(20);
    expect(answers.filter(ofType('error'))[0]).toMatchObject({
      error_code: 'LIMIT_EXCEEDED',
      details: { limit: 20 },
    });
    expect(t.app.deps.priceStreams.stats().subscriptions).toBe(20);
  });

  it('answers the 21st graphql-ws subscription with an error and keeps the connection', async () => {
    const client = graphqlWs(`${t.wsUrl}/graphql`);
    try {
      const results = await within(
        Promise.all(subscribeMany(client, 'subscription { time(intervalMs: 100) }', 21)),
        10_000,
        'graphql-ws results',
      );
      expect(results.slice(0, 20).every((r) => r.ok)).toBe(true);
      expect(results[20]).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining('GRAPHQL_WS_MAX_SUBSCRIPTIONS') },
      });
      const again = await within(Promise.all(subscribeMany(client, '{ __typename }', 1)), 5000, 'query');
      expect(again[0]).toMatchObject({ ok: true });
    } finally {
      await client.dispose();
    }
  });

  it('refuses an upgrade over WS_MAX_CONNECTIONS_PER_CLIENT with 429, across routes', async () => {
    await expect.poll(openConnections, { timeout: 5000 }).toBe(0);
    const paths = ['/ws/stream', '/ws/prices/AAPL', '/ws/stream'];
    for (const path of paths) {
      const c = new Client(`${t.wsUrl}${path}`);
      clients.push(c);
      await within(c.opened(), 5000, `open ${path}`);
    }
    expect(await upgradeStatus(`${t.wsUrl}/graphql`, {}, 'graphql-transport-ws')).toBe(429);
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`)).toBe(429);
    const first = clients.shift()!;
    first.socket.close();
    await first.closed;
    await expect.poll(openConnections, { timeout: 5000 }).toBe(2);
    expect(await upgradeStatus(`${t.wsUrl}/ws/stream`)).toBe(101);
  });
});

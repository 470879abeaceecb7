import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import {
  GRAPHQL_WS_SERVERS,
  type GraphqlWsServerKind,
  KEEP_ALIVE_MS,
} from '../src/platform/graphql/graphql-ws.ts';
import {
  ADMIN_KEY,
  bearer,
  type Closed,
  firstResult,
  graphqlWs,
  type IssuedKey,
  issueKey,
  revokeKey,
  UNKNOWN_KEY,
} from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createFakeProvider } from './support/fake-provider.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const SYMBOLS = Array.from({ length: 50 }, (_, i) => `S${i}`);
const MAX_SUBSCRIPTIONS = 100;
const BURST = 110;
const MAX_BUFFERED = 65_536;

/** `it` on Vigil's glue; on useServer the test is skipped, its title saying why. */
const vigilOnly = (server: GraphqlWsServerKind, why: string) =>
  server === 'vigil'
    ? it
    : (title: string, _body: () => Promise<void>, _timeout?: number) =>
        it.skip(`${title} (not on useServer: ${why})`);

/** A graphql-transport-ws connection on a raw socket: what the server sends, and how it closes. */
class Raw {
  readonly socket: WebSocket;
  readonly messages: Json[] = [];
  readonly closed: Promise<Closed>;
  readonly opened: Promise<void>;
  pings = 0;
  #waiters: Array<() => void> = [];

  constructor(url: string, headers: Record<string, string>, protocols: string[] = ['graphql-transport-ws']) {
    this.socket = new WebSocket(url, protocols, { headers });
    this.socket.on('error', () => {});
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.socket.on('ping', () => this.pings++);
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async acknowledged(): Promise<void> {
    await this.opened;
    this.send({ type: 'connection_init' });
    await this.until((m) => m.type === 'connection_ack');
  }

  /** The first message (old or new) that `match` accepts, within `timeoutMs`. */
  async until(match: (message: Json) => boolean, timeoutMs = 5_000): Promise<Json> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(
          `no such message within ${timeoutMs} ms; got ${JSON.stringify(this.messages).slice(0, 500)}`,
        );
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

/**
 * What the graphql-ws surface promises, on either server (GRAPHQL_WS_SERVER): keys in the upgrade
 * or in connectionParams, revocation, the limits per connection, error masking, graphql-ws's close
 * codes, keep-alive pings and the bound on a slow reader's unsent bytes. The library's `useServer`
 * runs the same hooks as Vigil's glue, so each holds on both.
 */
describe.each(GRAPHQL_WS_SERVERS)('the graphql-ws surface (GRAPHQL_WS_SERVER=%s)', (server) => {
  let t: TestApp;
  let reader: IssuedKey;
  let idle: Raw;
  const open: Array<{ close(): unknown }> = [];
  const fake = createFakeProvider('fakews', { capabilities: ['quote', 'stream'], assetClasses: ['equity'] });
  for (const [i, symbol] of SYMBOLS.entries()) fake.prices.set(symbol, 100 + i);
  // A provider with a bug: asked whether it serves BOOM, it throws a plain Error (no domain error).
  const supports = fake.supports;
  fake.supports = (capability, instrument) => {
    if (instrument?.symbol === 'BOOM') throw new Error('secret internals: provider bug');
    return supports(capability, instrument);
  };

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      overrides: { providers: [fake] },
      env: {
        GRAPHQL_WS_SERVER: server,
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        AUTH_MAX_FAILURES_PER_MINUTE: '100000',
        GRAPHQL_WS_MAX_SUBSCRIPTIONS: String(MAX_SUBSCRIPTIONS),
        WS_SUBSCRIBE_RATE_PER_SECOND: '1',
        WS_SUBSCRIBE_BURST: String(BURST),
        WS_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
      },
    });
    reader = await issueKey(t.app, 'reader', ['READ']);
    // Left idle from the start: the keep-alive test at the end reads its pings.
    idle = new Raw(`${t.wsUrl}/graphql`, bearer(reader.secret));
    await idle.acknowledged();
  });
  afterEach(async () => {
    for (const client of open.splice(0)) await client.close();
  });
  afterAll(async () => {
    idle?.socket.terminate();
    await t?.close();
  });

  const url = () => `${t.wsUrl}/graphql`;
  const client = (options: Parameters<typeof graphqlWs>[1]) => {
    const ws = graphqlWs(url(), options);
    open.push({ close: () => ws.client.dispose() });
    return ws;
  };
  const raw = (headers: Record<string, string> = bearer(reader.secret), protocols?: string[]) => {
    const socket = new Raw(url(), headers, protocols);
    open.push({ close: () => socket.socket.terminate() });
    return socket;
  };
  const errorOf = (result: Awaited<ReturnType<typeof firstResult>>): Json =>
    result.kind === 'result' ? result.errors?.[0] : result;

  it('closes a connection without a key, or with an unknown one in connectionParams, with 4401', async () => {
    expect(await firstResult(client({}).client, '{ viewer { id } }')).toMatchObject({
      kind: 'closed',
      code: 4401,
    });
    const unknown = client({ connectionParams: { apiKey: UNKNOWN_KEY } });
    expect(await firstResult(unknown.client, '{ viewer { id } }')).toMatchObject({
      kind: 'closed',
      code: 4401,
    });
  });

  it.each([
    { carrier: 'the upgrade', options: () => ({ headers: bearer(reader.secret) }) },
    { carrier: 'connectionParams.apiKey', options: () => ({ connectionParams: { apiKey: reader.secret } }) },
    {
      carrier: 'connectionParams.authorization',
      options: () => ({ connectionParams: { authorization: `Bearer ${reader.secret}` } }),
    },
  ])('runs operations as the key in $carrier', async ({ options }) => {
    expect(await firstResult(client(options()).client, '{ viewer { id } }')).toMatchObject({
      kind: 'result',
      data: { viewer: { id: reader.id } },
    });
  });

  it('closes the connections of a key with 4401 when it is revoked', async () => {
    const gone = await issueKey(t.app, 'gone', ['READ']);
    const ws = client({ connectionParams: { apiKey: gone.secret } });
    // A subscription keeps the lazy client's socket open until the revocation closes it. It starts
    // first: were the one below the only one, its end would let the client close the socket itself.
    ws.client.subscribe(
      { query: 'subscription { time(intervalMs: 1000) }' },
      {
        next: () => {},
        error: () => {},
        complete: () => {},
      },
    );
    const tick = await firstResult(ws.client, 'subscription { time(intervalMs: 100) }');
    expect(tick.kind).toBe('result');
    await revokeKey(t.app, gone.id);
    expect(await ws.closed).toMatchObject({ code: 4401, reason: expect.stringMatching(/revoked/) });
  });

  it('answers an operation over GRAPHQL_WS_MAX_SUBSCRIPTIONS with SUBSCRIPTION_LIMIT and keeps the connection', async () => {
    const socket = raw();
    await socket.acknowledged();
    const query = 'subscription { time(intervalMs: 1000) }';
    for (let i = 0; i <= MAX_SUBSCRIPTIONS; i++)
      socket.send({ id: `s${i}`, type: 'subscribe', payload: { query } });
    const refused = await socket.until((m) => m.type === 'error');
    expect(refused).toMatchObject({
      id: `s${MAX_SUBSCRIPTIONS}`,
      payload: [{ extensions: { code: 'SUBSCRIPTION_LIMIT', limit: MAX_SUBSCRIPTIONS } }],
    });
    // Completing one frees its place, on the same connection.
    socket.send({ id: 's0', type: 'complete' });
    socket.send({ id: 'again', type: 'subscribe', payload: { query } });
    await socket.until((m) => m.id === 'again' && m.type === 'next');
    expect(socket.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('refuses operations started faster than WS_SUBSCRIBE_RATE_PER_SECOND with RATE_LIMITED and keeps the connection', async () => {
    const socket = raw();
    await socket.acknowledged();
    // One at a time, each answered before the next: only the rate (1/s after the burst) stops them.
    let refusal: Json;
    for (let i = 0; i < BURST + 10 && !refusal; i++) {
      socket.send({ id: `q${i}`, type: 'subscribe', payload: { query: '{ __typename }' } });
      const answer = await socket.until((m) => m.id === `q${i}` && m.type !== 'next');
      if (answer.type === 'error') refusal = answer;
    }
    expect(refusal?.payload[0]).toMatchObject({
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) },
    });
    expect(socket.messages.filter((m) => m.type === 'complete').length).toBeGreaterThanOrEqual(BURST);
    expect(socket.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('masks an unexpected error as INTERNAL, without its message or the HTTP status marker', async () => {
    const ws = client({ headers: bearer(reader.secret) });
    const error = errorOf(await firstResult(ws.client, '{ quote(symbol: "BOOM") { quote { price } } }'));
    expect(error).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL' } });
    expect(error.extensions.http).toBeUndefined();
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it.each([
    { code: 4400, what: 'a message it cannot read', send: ['{"type":'] },
    {
      code: 4401,
      what: 'a subscribe before connection_init',
      send: [{ id: '1', type: 'subscribe', payload: { query: '{ __typename }' } }],
    },
    {
      code: 4429,
      what: 'a second connection_init',
      send: [{ type: 'connection_init' }, { type: 'connection_init' }],
    },
  ])("closes with graphql-ws's $code on $what", async ({ code, send }) => {
    const socket = raw();
    await socket.opened;
    for (const message of send) socket.send(message);
    expect((await socket.closed).code).toBe(code);
  });

  it("closes with graphql-ws's 4409 on a subscription id already in use", async () => {
    const socket = raw();
    await socket.acknowledged();
    const subscribe = {
      id: 'same',
      type: 'subscribe',
      payload: { query: 'subscription { time(intervalMs: 1000) }' },
    };
    socket.send(subscribe);
    socket.send(subscribe);
    expect((await socket.closed).code).toBe(4409);
  });

  it("closes with graphql-ws's 4406 when the client asks for no subprotocol, and 4408 when it never says connection_init", async () => {
    const without = raw(bearer(reader.secret), []);
    expect((await without.closed).code).toBe(4406);
    const silent = raw();
    await silent.opened;
    // graphql-ws waits 3 s for connection_init.
    expect((await silent.closed).code).toBe(4408);
  });

  /** Open graphql-ws connections, as the server counts them. */
  const graphqlConnections = async (): Promise<number> => {
    const response = await fetch(`${t.url}/ws/connections`, { headers: bearer(reader.secret) });
    return ((await response.json()) as Json).connections_by_route['/graphql'] ?? 0;
  };

  /**
   * A connection that stops reading as it starts MAX_SUBSCRIPTIONS subscriptions of prices for 50
   * symbols; ticks go on until `stop` is called. It reads nothing after the acknowledgement, so the
   * kernel's buffers for it stay small (they grow as a reader keeps up) and fill in a moment.
   */
  async function stalledSubscriber() {
    const socket = raw();
    await socket.acknowledged();
    (socket.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    const query =
      'subscription ($s: [String!]!) { prices(symbols: $s, intervalMs: 100) ' +
      '{ symbol price change changePercent volume currency asOf provider snapshot marketState } }';
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++)
      socket.send({ id: `p${i}`, type: 'subscribe', payload: { query, variables: { s: SYMBOLS } } });
    let price = 1;
    const pump = setInterval(() => {
      price++;
      for (const symbol of SYMBOLS) fake.emit(symbol, price);
    }, 50);
    return { stop: () => clearInterval(pump) };
  }

  vigilOnly(
    server,
    'it waits for each write before a subscription sends its next result, so a stalled reader holds results in its subscriptions, not in its send buffer',
  )(
    'closes a subscriber of prices that stops reading as a slow reader (1013) once its unsent bytes pass WS_MAX_BUFFERED_BYTES',
    async () => {
      const before = await graphqlConnections();
      const closes = vi.spyOn(WebSocket.prototype, 'close');
      const stalled = await stalledSubscriber();
      try {
        await expect.poll(graphqlConnections, { timeout: 40_000, interval: 200 }).toBe(before);
        expect(closes.mock.calls.some(([code]) => code === 1013)).toBe(true);
      } finally {
        stalled.stop();
        closes.mockRestore();
      }
    },
    60_000,
  );

  it('ends a subscriber of prices that stops reading within two keep-alive periods', async () => {
    const before = await graphqlConnections();
    const stalled = await stalledSubscriber();
    try {
      // Vigil's glue closes it as a slow reader; on useServer the missing pong ends it.
      await expect
        .poll(graphqlConnections, { timeout: 2 * KEEP_ALIVE_MS + 5_000, interval: 200 })
        .toBe(before);
    } finally {
      stalled.stop();
    }
  }, 60_000);

  it('closes a client that asks for replies (pings) and never reads them, its replies bounded by WS_MAX_BUFFERED_BYTES', async () => {
    const before = await graphqlConnections();
    const socket = raw();
    await socket.acknowledged();
    (socket.socket as unknown as { _socket: { pause(): void } })._socket.pause();
    // Every ping asks for a pong carrying its payload back: once the kernel's buffers are full, the
    // pongs would pile up in the server.
    const ping = JSON.stringify({ type: 'ping', payload: { pad: 'p'.repeat(50_000) } });
    for (let sent = 0; sent < 2000 && (await graphqlConnections()) > before; sent += 20) {
      for (let i = 0; i < 20; i++) socket.socket.send(ping);
    }
    await expect.poll(graphqlConnections, { timeout: 5_000 }).toBe(before);
  });

  it(`pings an idle connection every ${KEEP_ALIVE_MS / 1000} s and keeps it while it answers`, async () => {
    await expect.poll(() => idle.pings, { timeout: KEEP_ALIVE_MS + 5_000, interval: 200 }).toBeGreaterThan(0);
    expect(idle.socket.readyState).toBe(WebSocket.OPEN);
  });
});

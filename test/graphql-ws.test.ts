import { Socket } from 'node:net';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { GRAPHQL_WS_SERVERS, type GraphqlWsServerKind } from '../src/platform/graphql/graphql-ws.ts';
import { createTestApp, type TestApp } from './support/app.ts';

/**
 * Every suite here runs once per GRAPHQL_WS_SERVER value: Vigil's own socket glue and graphql-ws's
 * `useServer`. What only Vigil's glue does is skipped on the library's, saying why in its title.
 */
const vigilOnly = (server: GraphqlWsServerKind, why: string) =>
  server === 'vigil'
    ? it
    : (title: string, _body: () => Promise<void>) => it.skip(`${title} (not on useServer: ${why})`);

function wsClient(url: string, headers: Record<string, string> = {}): Client {
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  return createClient({ url, webSocketImpl: WithHeaders, retryAttempts: 0, lazy: true });
}

/** Collects `count` results of one operation, then unsubscribes. */
function take<T>(
  client: Client,
  query: string,
  count: number,
): Promise<Array<{ data?: T; errors?: unknown[] }>> {
  return new Promise((resolve, reject) => {
    const results: Array<{ data?: T; errors?: unknown[] }> = [];
    const stop = client.subscribe<T>(
      { query },
      {
        next: (result) => {
          results.push(result as { data?: T; errors?: unknown[] });
          if (results.length === count) {
            stop();
            resolve(results);
          }
        },
        error: reject,
        complete: () => resolve(results),
      },
    );
  });
}

describe.each(GRAPHQL_WS_SERVERS)(
  'GraphQL over graphql-ws on a listening server (GRAPHQL_WS_SERVER=%s)',
  (server) => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({
        listen: true,
        env: { GRAPHQL_WS_SERVER: server, RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '60' },
      });
    });
    afterAll(async () => t?.close());

    it('is ready once started', async () => {
      const response = await fetch(`${t.url}/readyz`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        status: 'ready',
        checks: { database: { ok: true }, jobs: { ok: true } },
      });
    });

    it('streams a subscription to a graphql-ws client', async () => {
      const client = wsClient(`${t.wsUrl}/graphql`);
      try {
        const results = await take<{ time: string }>(client, 'subscription { time(intervalMs: 100) }', 3);
        const times = results.map((r) => Date.parse(r.data!.time));
        expect(times).toHaveLength(3);
        expect(times.every((x) => Number.isFinite(x))).toBe(true);
        expect(times[2]! - times[0]!).toBeGreaterThanOrEqual(150);
      } finally {
        await client.dispose();
      }
    });

    it('answers queries over the socket and applies the same rate limit as HTTP', async () => {
      const client = wsClient(`${t.wsUrl}/graphql`);
      try {
        const query = '{ serverInfo { liveInstances { id } databaseMode } }';
        const first = await take<{ serverInfo: { liveInstances: unknown[] } }>(client, query, 1);
        expect(first[0]?.data?.serverInfo.liveInstances).toHaveLength(1);
        await take(client, query, 1);
        const third = await take(client, query, 1);
        expect(third[0]?.errors?.[0]).toMatchObject({
          message: expect.stringContaining('Rate limit exceeded'),
          extensions: { code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) },
        });
      } finally {
        await client.dispose();
      }
    });

    it('refuses WebSocket upgrades on unknown paths with 404', async () => {
      const socket = new WebSocket(`${t.wsUrl}/ws/nowhere`);
      const status = await new Promise<number | undefined>((resolve) => {
        socket.on('unexpected-response', (_req, res) => resolve(res.statusCode));
        socket.on('open', () => resolve(101));
        socket.on('error', () => {});
      });
      expect(status).toBe(404);
    });
  },
);

/** A graphql-transport-ws connection on a raw socket: every frame as the server wrote it. */
async function rawConnection(url: string) {
  const socket = new WebSocket(url, 'graphql-transport-ws');
  const frames: string[] = [];
  socket.on('message', (data) => frames.push(String(data)));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await until(() => frames.some((f) => f.includes('"connection_ack"')));
  return { socket, frames };
}

async function until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.each(GRAPHQL_WS_SERVERS)(
  'graphql-ws subscriptions whose results are shared (GRAPHQL_WS_SERVER=%s)',
  (server) => {
    let t: TestApp;

    beforeAll(async () => {
      t = await createTestApp({ listen: true, env: { GRAPHQL_WS_SERVER: server } });
    });
    afterAll(async () => t?.close());

    const query =
      'subscription { prices(symbols: ["BTC/USDT"], intervalMs: 100) { symbol price asOf snapshot provider } }';
    const live = (frames: string[], id: string) =>
      frames.filter((f) => f.startsWith(`{"id":"${id}","type":"next"`) && f.includes('"snapshot":false'));

    it('send each subscriber the protocol message of every tick, and nothing for an operation after its complete', async () => {
      const { socket, frames } = await rawConnection(`${t.wsUrl}/graphql`);
      try {
        for (const id of ['p', 'q'])
          socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
        await until(() => live(frames, 'p').length >= 3 && live(frames, 'q').length >= 3);
        // Exactly the message graphql-ws writes: id, type, payload, in that order, nothing else.
        for (const frame of frames.filter((f) => f.includes('"type":"next"'))) {
          const message = JSON.parse(frame);
          expect(frame).toBe(JSON.stringify({ id: message.id, type: 'next', payload: message.payload }));
          expect(message.payload.data.prices).toMatchObject({
            symbol: 'BTC/USDT',
            price: expect.any(Number),
          });
        }
        // Both operations got the same ticks, each under its own id.
        const payloads = (id: string) => live(frames, id).map((f) => f.slice(f.indexOf('"payload":')));
        expect(payloads('q').slice(0, 3)).toEqual(payloads('p').slice(0, 3));

        socket.send(JSON.stringify({ id: 'p', type: 'complete' }));
        await new Promise((resolve) => setTimeout(resolve, 200));
        const [seenP, seenQ] = [live(frames, 'p').length, live(frames, 'q').length];
        await until(() => live(frames, 'q').length >= seenQ + 3);
        expect(live(frames, 'p')).toHaveLength(seenP);

        // The id is free again once completed.
        socket.send(JSON.stringify({ id: 'p', type: 'subscribe', payload: { query } }));
        await until(() => live(frames, 'p').length >= seenP + 2);
        expect(socket.readyState).toBe(WebSocket.OPEN);
      } finally {
        socket.close();
      }
    });

    vigilOnly(server, 'it writes each message on its own')(
      "writes a subscription's snapshots to the connection in one system call",
      async () => {
        const symbols = ['BTC/USDT', 'ETH/USDT', 'SOL/USDT', 'XRP/USDT', 'DOGE/USDT'];
        const many = `subscription { prices(symbols: ${JSON.stringify(symbols)}, intervalMs: 1000) { symbol price snapshot } }`;
        const snapshots = (frames: string[], id: string) =>
          frames.filter((f) => f.startsWith(`{"id":"${id}","type":"next"`) && f.includes('"snapshot":true'));
        // A first subscriber starts the feeds, so the hub knows every price when the second joins.
        const first = await rawConnection(`${t.wsUrl}/graphql`);
        const second = await rawConnection(`${t.wsUrl}/graphql`);
        try {
          first.socket.send(JSON.stringify({ id: 'a', type: 'subscribe', payload: { query: many } }));
          await until(() => snapshots(first.frames, 'a').length === symbols.length);
          // Writes of the server's end of the second connection (the socket whose peer is its port).
          const port = (second.socket as unknown as { _socket: Socket })._socket.localPort;
          const writes: number[] = [];
          const proto = Socket.prototype as unknown as Record<
            '_write' | '_writev',
            (...args: unknown[]) => void
          >;
          const original = { _write: proto._write, _writev: proto._writev };
          for (const name of ['_write', '_writev'] as const) {
            proto[name] = function (this: Socket, ...args: unknown[]) {
              if (this.remotePort === port)
                writes.push(name === '_writev' ? (args[0] as unknown[]).length : 1);
              return original[name].apply(this, args);
            };
          }
          try {
            second.socket.send(JSON.stringify({ id: 'b', type: 'subscribe', payload: { query: many } }));
            await until(() => snapshots(second.frames, 'b').length === symbols.length);
          } finally {
            Object.assign(proto, original);
          }
          // Five messages, each a whole frame in one buffer, and one system call for them all.
          expect(writes).toEqual([symbols.length]);
        } finally {
          first.socket.close();
          second.socket.close();
        }
      },
    );
  },
);

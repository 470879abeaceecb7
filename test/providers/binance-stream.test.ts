import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { parseInstrument } from '../../src/market-data/instruments.ts';
import { createBinanceProvider } from '../../src/market-data/providers/binance.provider.ts';
import type { BinanceStreamTuning } from '../../src/market-data/providers/binance.stream.ts';
import type { MarketDataProvider } from '../../src/market-data/providers/provider.ts';
import { ProviderError } from '../../src/market-data/providers/provider-errors.ts';
import type { StreamTick } from '../../src/market-data/types.ts';
import { describeWithFixtures, loadFixture } from '../support/fixtures.ts';

const ETH_USDT = parseInstrument('ETH/USDT');
const NKN_USDT = parseInstrument('NKN/USDT');
// Recorded stream messages, read when a test sends them (the suite is skipped without recordings).
const TRADE = () => loadFixture('binance/ws-spot-trade-ETHUSDT.json').body;
const AGG_TRADE = () => loadFixture('binance/ws-spot-aggTrade-NKNUSDT.json').body;
const KLINE = () => loadFixture('binance/ws-spot-kline_1m-NKNUSDT-open.json').body;
const RECORDED_TICK: StreamTick = {
  symbol: 'ETH/USDT',
  price: 4149.74,
  size: 0.4387,
  asOf: new Date(1639351062243),
};

/** Items in arrival order; `next()` waits for the next one. */
class Channel<T> {
  readonly #items: T[] = [];
  readonly #waiters: Array<(item: T) => void> = [];
  readonly all: T[] = [];
  push(item: T): void {
    this.all.push(item);
    const waiter = this.#waiters.shift();
    if (waiter) waiter(item);
    else this.#items.push(item);
  }
  next(): Promise<T> {
    const item = this.#items.shift();
    return item !== undefined ? Promise.resolve(item) : new Promise((resolve) => this.#waiters.push(resolve));
  }
}

interface Connection {
  readonly socket: WebSocket;
  readonly path: string | undefined;
  readonly requests: Channel<{ method: string; params: string[]; id: number }>;
}

interface Upstream {
  readonly url: string;
  readonly connections: Channel<Connection>;
  close(): Promise<void>;
}

/** A local stand-in for stream.binance.com that records control messages and acks them. */
async function startUpstream(options: { autoPong?: boolean } = {}): Promise<Upstream> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: options.autoPong ?? true });
  await once(server, 'listening');
  const connections = new Channel<Connection>();
  server.on('connection', (socket, req) => {
    const requests = new Channel<{ method: string; params: string[]; id: number }>();
    socket.on('message', (data) => {
      const request = JSON.parse(data.toString()) as { method: string; params: string[]; id: number };
      requests.push(request);
    });
    connections.push({ socket, path: req.url, requests });
  });
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    close: async () => {
      for (const client of server.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function subscriber(instrument = ETH_USDT) {
  const ticks = new Channel<StreamTick>();
  const errors = new Channel<Error>();
  return {
    ticks,
    errors,
    subscription: {
      instrument,
      onTick: (t: StreamTick) => ticks.push(t),
      onError: (e: Error) => errors.push(e),
    },
  };
}

describeWithFixtures('binance trade stream', () => {
  let upstream: Upstream | undefined;
  let provider: MarketDataProvider | undefined;
  afterEach(async () => {
    await provider?.close?.();
    await upstream?.close();
    provider = undefined;
    upstream = undefined;
  });

  const start = async (tuning: Partial<BinanceStreamTuning> = {}, autoPong = true) => {
    upstream = await startUpstream({ autoPong });
    provider = createBinanceProvider({
      baseUrl: 'http://127.0.0.1:9',
      futuresBaseUrl: 'http://127.0.0.1:9',
      wsUrl: upstream.url,
      streamTuning: { baseBackoffMs: 10, maxBackoffMs: 40, ...tuning },
    });
    return { upstream, stream: provider.stream!.bind(provider) };
  };

  it('multiplexes symbols over one combined connection and turns recorded trades into ticks', async () => {
    const { upstream, stream } = await start();
    const eth = subscriber(ETH_USDT);
    const nkn = subscriber(NKN_USDT);
    const stopEth = stream(eth.subscription);
    const conn = await upstream.connections.next();
    expect(conn.path).toBe('/stream');
    const subscribe = await conn.requests.next();
    expect(subscribe).toEqual({ method: 'SUBSCRIBE', params: ['ethusdt@trade'], id: expect.any(Number) });
    conn.socket.send(JSON.stringify({ result: null, id: subscribe.id }));

    const stopNkn = stream(nkn.subscription);
    const second = await conn.requests.next();
    expect(second).toMatchObject({ method: 'SUBSCRIBE', params: ['nknusdt@trade'] });

    // Streams nobody asked for, unreadable frames and a trade without a price give no tick.
    conn.socket.send(AGG_TRADE());
    conn.socket.send(KLINE());
    conn.socket.send('not json');
    const recorded = JSON.parse(TRADE()) as { stream: string; data: Record<string, unknown> };
    conn.socket.send(JSON.stringify({ ...recorded, data: { ...recorded.data, p: undefined } }));
    conn.socket.send(TRADE());
    expect(await eth.ticks.next()).toEqual(RECORDED_TICK);
    expect(eth.ticks.all).toHaveLength(1);
    expect(nkn.ticks.all).toHaveLength(0);

    stopEth();
    stopEth();
    expect(await conn.requests.next()).toMatchObject({ method: 'UNSUBSCRIBE', params: ['ethusdt@trade'] });
    const closed = once(conn.socket, 'close');
    stopNkn();
    await closed;
    expect(upstream.connections.all).toHaveLength(1);
    expect([...eth.errors.all, ...nkn.errors.all]).toEqual([]);
  });

  it('answers server pings (ws autoPong)', async () => {
    const { upstream, stream } = await start();
    stream(subscriber().subscription);
    const conn = await upstream.connections.next();
    await conn.requests.next();
    const pong = once(conn.socket, 'pong');
    conn.socket.ping('binance-ping');
    const [payload] = (await pong) as [Buffer];
    expect(payload.toString()).toBe('binance-ping');
  });

  it('reconnects after a drop and subscribes every stream again', async () => {
    const { upstream, stream } = await start();
    const eth = subscriber(ETH_USDT);
    stream(eth.subscription);
    stream(subscriber(NKN_USDT).subscription);
    const first = await upstream.connections.next();
    expect((await first.requests.next()).params.sort()).toEqual(['ethusdt@trade', 'nknusdt@trade']);
    first.socket.terminate();

    const second = await upstream.connections.next();
    const again = await second.requests.next();
    expect(again.method).toBe('SUBSCRIBE');
    expect(again.params.sort()).toEqual(['ethusdt@trade', 'nknusdt@trade']);
    second.socket.send(JSON.stringify({ result: null, id: again.id }));
    second.socket.send(TRADE());
    expect(await eth.ticks.next()).toEqual(RECORDED_TICK);
    expect(eth.errors.all).toEqual([]);
  });

  it('re-opens a connection that went silent, found by its own pings', async () => {
    const { upstream, stream } = await start({ heartbeatMs: 30 }, false);
    stream(subscriber().subscription);
    const first = await upstream.connections.next();
    await first.requests.next();
    const second = await upstream.connections.next();
    expect((await second.requests.next()).params).toEqual(['ethusdt@trade']);
  });

  it('tells subscribers through onError only after reconnecting keeps failing', async () => {
    const { upstream, stream } = await start({ maxReconnects: 3 });
    const eth = subscriber(ETH_USDT);
    const nkn = subscriber(NKN_USDT);
    const stopEth = stream(eth.subscription);
    stream(nkn.subscription);
    await (await upstream.connections.next()).requests.next();
    await upstream.close();

    const [ethError, nknError] = await Promise.all([eth.errors.next(), nkn.errors.next()]);
    expect(ethError).toBeInstanceOf(ProviderError);
    expect((ethError as ProviderError).kind).toBe('upstream');
    expect(ethError.message).toMatch(/3 reconnect attempts failed/);
    expect(nknError).toBe(ethError);
    stopEth();
    expect(eth.ticks.all).toEqual([]);
    expect(eth.errors.all).toHaveLength(1);
  });

  it('reports a refused subscription and an unsupported pair through onError', async () => {
    const { upstream, stream } = await start();
    const eth = subscriber(ETH_USDT);
    stream(eth.subscription);
    const conn = await upstream.connections.next();
    const request = await conn.requests.next();
    conn.socket.send(JSON.stringify({ code: 2, msg: 'Invalid request: unknown stream', id: request.id }));
    expect((await eth.errors.next()).message).toMatch(/subscription refused: Invalid request/);

    const usd = subscriber(parseInstrument('BTC/USD'));
    const stop = stream(usd.subscription);
    expect(usd.errors.all).toEqual([]); // never synchronously: the caller may not hold `stop` yet
    expect(((await usd.errors.next()) as ProviderError).kind).toBe('unsupported');
    stop();
  });
});

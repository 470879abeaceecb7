import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type Scheduler, systemClock } from '../src/platform/clock.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/** Real time, shifted to a Saturday: the US market is shut, crypto trades. */
const SATURDAY = Date.parse('2025-06-14T15:00:00Z');
const FRIDAY_CLOSE = '2025-06-13T20:00:00.000Z';

function weekendClock(): Scheduler {
  const offset = Date.now() - SATURDAY;
  return { ...systemClock, now: () => new Date(Date.now() - offset) };
}

/** Messages of a plain WebSocket, collected so a test can wait for the one it wants. */
function socket(url: string) {
  const ws = new WebSocket(url);
  const messages: Json[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (raw) => {
    messages.push(JSON.parse(String(raw)));
    for (const wake of waiters.splice(0)) wake();
  });
  const next = async (match: (m: Json) => boolean, timeoutMs = 5_000): Promise<Json> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = messages.find(match);
      if (found) {
        messages.splice(messages.indexOf(found), 1);
        return found;
      }
      if (Date.now() > deadline) throw new Error(`no matching message; got ${JSON.stringify(messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 100);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  };
  return { ws, next, close: () => ws.close() };
}

const isData = (m: Json) => m.type === 'data';
const isAck = (m: Json) => m.type === 'subscription_ack';

describe('price streams on a closed market (simulated, on a Saturday)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { SIMULATED_TICK_MS: '100', RATE_LIMIT_MAX: '1000' },
      overrides: { clock: weekendClock() },
    });
  });
  afterAll(async () => t?.close());

  it('GraphQL `prices` opens each symbol with a snapshot marked with its market state, then live ticks', async () => {
    const client = createClient({ url: `${t.wsUrl}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      const ticks = await new Promise<Json[]>((resolve, reject) => {
        const seen: Json[] = [];
        const stop = client.subscribe<{ prices: Json }>(
          {
            query: `subscription { prices(symbols: ["AAPL", "BTC", "btcusdt"], intervalMs: 100) {
              symbol seq price asOf snapshot marketState requested instrument { id symbol name assetClass } } }`,
          },
          {
            next: (r) => {
              if (r.errors) return reject(new Error(JSON.stringify(r.errors)));
              seen.push(r.data!.prices);
              if (
                seen.filter((x) => x.symbol === 'BTC/USDT').length >= 3 &&
                seen.some((x) => x.symbol === 'AAPL')
              ) {
                stop();
                resolve(seen);
              }
            },
            error: reject,
            complete: () => {},
          },
        );
      });
      const aapl = ticks.filter((x) => x.symbol === 'AAPL');
      expect(aapl).toEqual([
        {
          symbol: 'AAPL',
          seq: 1,
          price: expect.any(Number),
          asOf: FRIDAY_CLOSE,
          snapshot: true,
          marketState: 'CLOSED',
          requested: ['AAPL'],
          instrument: { id: 'equity:US:AAPL', symbol: 'AAPL', name: 'Apple Inc.', assetClass: 'EQUITY' },
        },
      ]);
      const btc = ticks.filter((x) => x.symbol === 'BTC/USDT');
      expect(btc[0]).toMatchObject({
        snapshot: true,
        marketState: 'CONTINUOUS',
        requested: ['BTC', 'btcusdt'],
        instrument: { id: 'crypto:BTC/USDT', assetClass: 'CRYPTO' },
      });
      expect(btc.slice(1).every((x) => x.snapshot === false)).toBe(true);
      expect(btc.map((x) => x.seq)).toEqual([...btc.map((x) => x.seq)].sort((a, b) => a - b));
    } finally {
      await client.dispose();
    }
  });

  it('/ws/prices sends the snapshot of a shut market at once', async () => {
    const c = socket(`${t.wsUrl}/ws/prices/AAPL,MSFT?interval_ms=100`);
    try {
      expect(await c.next(isAck)).toMatchObject({ symbols: ['AAPL', 'MSFT'] });
      const items = new Map<string, Json>();
      while (items.size < 2) for (const item of (await c.next(isData)).data) items.set(item.symbol, item);
      for (const symbol of ['AAPL', 'MSFT']) {
        expect(items.get(symbol)).toMatchObject({
          symbol,
          asset_type: 'equity',
          price: expect.any(Number),
          timestamp: FRIDAY_CLOSE,
          provider: 'simulated',
          simulated: true,
          market_state: 'closed',
          snapshot: true,
        });
      }
    } finally {
      c.close();
    }
  });

  it("sends every symbol's snapshot at once, even when the subscription already sent within its interval", async () => {
    // NVDA has a feed (another client watches it); AVAX-USD has none yet and starts one.
    const watcher = socket(`${t.wsUrl}/ws/prices/NVDA?interval_ms=100`);
    const c = socket(`${t.wsUrl}/ws/prices/AVAX-USD,NVDA?interval_ms=5000`);
    try {
      await watcher.next(isData);
      await c.next(isAck);
      const started = Date.now();
      const items = new Map<string, Json>();
      while (items.size < 2)
        for (const item of (await c.next(isData, 3_000)).data) items.set(item.symbol, item);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(items.get('AVAX/USD')).toMatchObject({ snapshot: true });
      expect(items.get('NVDA')).toMatchObject({ snapshot: true });
    } finally {
      c.close();
      watcher.close();
    }
  });

  it('/ws/stream sends the snapshot after the acknowledgement, and none on OHLCV streams', async () => {
    const c = socket(`${t.wsUrl}/ws/stream`);
    try {
      await new Promise((resolve) => c.ws.once('open', resolve));
      c.ws.send(
        JSON.stringify({ type: 'subscribe', stream_type: 'ohlcv', symbols: ['NVDA'], interval_ms: 100 }),
      );
      const ohlcv = await c.next(isAck);
      c.ws.send(
        JSON.stringify({ type: 'subscribe', stream_type: 'price', symbols: ['NVDA'], interval_ms: 100 }),
      );
      const ack = await c.next((m) => isAck(m) && m.subscription_id !== ohlcv.subscription_id);
      const data = await c.next(isData);
      expect(data.subscription_id).toBe(ack.subscription_id);
      expect(data.data).toEqual([
        expect.objectContaining({ symbol: 'NVDA', market_state: 'closed', snapshot: true }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await expect(
        c.next((m) => isData(m) && m.subscription_id === ohlcv.subscription_id, 0),
      ).rejects.toThrow();
    } finally {
      c.close();
    }
  });

  it.each([
    ['BTC', 'BTC/USDT'],
    ['BTCUSDT', 'BTC/USDT'],
    ['BTC-USD', 'BTC/USD'],
    ['btc%2Fusdt', 'BTC/USDT'],
  ])(
    '/ws/prices/%s resolves like the search tools and says which instrument it chose',
    async (path, symbol) => {
      const c = socket(`${t.wsUrl}/ws/prices/${path}?interval_ms=100`);
      try {
        const ack = await c.next(isAck);
        expect(ack).toMatchObject({
          symbols: [symbol],
          resolved: [
            {
              requested: decodeURIComponent(path),
              symbol,
              asset_type: 'crypto',
              market: null,
              name: expect.stringContaining('Bitcoin'),
            },
          ],
        });
        const data = await c.next(isData);
        expect(data.data[0]).toMatchObject({ symbol, snapshot: true, market_state: 'continuous' });
      } finally {
        c.close();
      }
    },
  );

  it('keeps a bare coin the listed fund when the client says equity', async () => {
    const c = socket(`${t.wsUrl}/ws/prices/BTC?asset_type=equity`);
    try {
      const error = await c.next((m) => m.type === 'error');
      expect(error).toMatchObject({
        error_code: 'SUBSCRIPTION_ERROR',
        message: expect.stringContaining('unknown symbol BTC'),
      });
    } finally {
      c.close();
    }
  });
});

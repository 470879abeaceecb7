import { createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { MarketDataProvider } from '../src/market-data/providers/provider.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { serverUrl } from './support/databases.ts';
import { createFakeProvider } from './support/fake-provider.ts';

/**
 * Issue 31 at small scale: three instances on one Postgres database, each with its own fake
 * provider (its quote calls noted per symbol and time), and one graphql-ws subscriber per instance
 * following three crypto symbols. One feed per symbol across the instances: each symbol is fetched
 * upstream by one instance, the others serve their subscribers from its relayed ticks; every
 * subscriber's ticks have rising sequence numbers and only prices the provider gave. The owner of
 * a feed is stopped: another instance owns it within two poll intervals, and the subscribers (the
 * stopped instance's own, once reconnected to another) go on receiving new prices.
 */
const SYMBOLS = ['BTC/USDT', 'ETH/USDT', 'SOL/USDT'];
/** The hub's poll interval (PRICE_POLL_INTERVAL_MS, shortened; the relay's lease times are fractions of it). */
const POLL_MS = 500;
/** A crypto quote stays cached this long: one instance polling a symbol fetches it at most once per this. */
const QUOTE_CACHE_MS = 2_000;
const METRICS = [
  'vigil_price_feeds_owned',
  'vigil_price_feeds_followed',
  'vigil_price_ticks_relayed_total',
  'vigil_price_relay_lag_seconds',
  'vigil_price_relay_up',
];

interface Counted {
  readonly provider: MarketDataProvider;
  readonly quotes: Array<{ readonly symbol: string; readonly at: number }>;
  setPrice(symbol: string, price: number): void;
}

/** A fake provider whose quote calls are noted, by symbol and time. */
function countedProvider(): Counted {
  const fake = createFakeProvider('fake', { capabilities: ['quote'] });
  const quotes: Counted['quotes'] = [];
  const quote = fake.quote!;
  return {
    provider: {
      ...fake,
      quote: (call) => {
        quotes.push({ symbol: call.instrument.symbol, at: Date.now() });
        return quote(call);
      },
    },
    quotes,
    setPrice: (symbol, price) => fake.prices.set(symbol, price),
  };
}

interface Tick {
  readonly symbol: string;
  readonly seq: number;
  readonly price: number;
  readonly snapshot: boolean;
}

/** A graphql-ws subscriber of SYMBOLS on `app`, noting every tick; `closed` once its socket closes. */
function subscriber(app: TestApp) {
  const ticks: Tick[] = [];
  const errors: unknown[] = [];
  let closed = false;
  const client = createClient({
    url: `${app.wsUrl}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
    // The stopped instance's subscriber loses its socket: noted, not printed.
    onNonLazyError: (e) => errors.push(e),
    on: { closed: () => (closed = true) },
  });
  client.subscribe<{ prices: Tick }>(
    {
      query:
        'subscription ($s: [String!]!) { prices(symbols: $s, intervalMs: 100) { symbol seq price snapshot } }',
      variables: { s: SYMBOLS },
    },
    {
      next: (r) => (r.data ? ticks.push(r.data.prices) : errors.push(r.errors)),
      error: (e) => errors.push(e),
      complete: () => {},
    },
  );
  return {
    ticks,
    errors,
    get closed() {
      return closed;
    },
    of: (symbol: string) => ticks.filter((t) => t.symbol === symbol),
    dispose: () => client.dispose(),
  };
}

async function metricsOf(app: TestApp): Promise<string> {
  return (await app.app.fetch('/metrics')).text();
}

function gauge(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : Number.NaN;
}

describe.skipIf(!serverUrl)('price feeds shared by three instances on one Postgres database', () => {
  const providers = [countedProvider(), countedProvider(), countedProvider()];
  /** Every price a symbol has had upstream. */
  const given = new Map<string, Set<number>>(SYMBOLS.map((s) => [s, new Set<number>()]));
  const setPrice = (symbol: string, price: number) => {
    given.get(symbol)!.add(price);
    for (const p of providers) p.setPrice(symbol, price);
  };
  let apps: TestApp[] = [];
  let subscribers: Array<ReturnType<typeof subscriber>> = [];

  beforeAll(async () => {
    for (const [i, s] of SYMBOLS.entries()) setPrice(s, 100 + i);
    const start = (i: number, database?: TestApp['database']) =>
      createTestApp({
        listen: true,
        driver: 'postgres',
        ...(database ? { database } : {}),
        env: { PRICE_POLL_INTERVAL_MS: String(POLL_MS) },
        overrides: { providers: [providers[i]!.provider] },
      });
    const first = await start(0);
    apps = [first, await start(1, first.database), await start(2, first.database)];
    subscribers = apps.map(subscriber);
  });
  afterAll(async () => {
    await Promise.all(subscribers.map((s) => s.dispose()));
    for (const app of [...apps].reverse()) await app.close();
  });

  /** Waits until every subscriber still open has seen `price` for every symbol. */
  const everyoneSees = (price: (i: number) => number, who = subscribers.filter((s) => !s.closed)) =>
    vi.waitFor(
      () => {
        for (const s of who)
          for (const [i, symbol] of SYMBOLS.entries())
            expect(s.of(symbol).map((t) => t.price)).toContain(price(i));
      },
      { timeout: 4 * POLL_MS + QUOTE_CACHE_MS, interval: 50 },
    );

  /** Rising seq per symbol, a snapshot first, and no price the provider never gave. */
  const expectHonestTicks = (ticks: readonly Tick[]) => {
    for (const symbol of SYMBOLS) {
      const mine = ticks.filter((t) => t.symbol === symbol);
      expect(mine.length).toBeGreaterThan(0);
      expect(mine[0]!.snapshot).toBe(true);
      const seqs = mine.map((t) => t.seq);
      expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
      for (const t of mine) expect(given.get(symbol)).toContain(t.price);
    }
  };

  it('fetches each symbol upstream from one instance, and relays its ticks to the others', async () => {
    await everyoneSees((i) => 100 + i);
    for (const [i, s] of SYMBOLS.entries()) setPrice(s, 200 + i);
    await everyoneSees((i) => 200 + i);

    // Once settled: over a window, who fetched each symbol, and how often in all.
    const from = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 2 * QUOTE_CACHE_MS));
    const calls = providers.map((p) => p.quotes.filter((q) => q.at >= from));
    for (const symbol of SYMBOLS) {
      const fetchers = calls.filter((list) => list.some((q) => q.symbol === symbol));
      expect(fetchers, `instances that fetched ${symbol}`).toHaveLength(1);
    }
    // At most what one instance polling every symbol makes: one fetch per cached quote's age.
    const total = calls.reduce((n, list) => n + list.length, 0);
    expect(total).toBeLessThanOrEqual(SYMBOLS.length * ((Date.now() - from) / QUOTE_CACHE_MS + 1));

    for (const s of subscribers) {
      expect(s.errors).toEqual([]);
      expectHonestTicks(s.ticks);
    }
  });

  it('exports the relay metrics and serverInfo.priceRelay, and spreads the feeds', async () => {
    for (const app of apps) {
      const text = await metricsOf(app);
      for (const name of METRICS) expect(text, name).toContain(`# TYPE ${name} `);
      expect(gauge(text, 'vigil_price_relay_up')).toBe(1);
    }
    await vi.waitFor(
      async () => {
        const owned = await Promise.all(
          apps.map(async (a) => gauge(await metricsOf(a), 'vigil_price_feeds_owned')),
        );
        expect(owned.reduce((x, y) => x + y, 0)).toBe(SYMBOLS.length);
        // Spread: no instance owns every feed.
        expect(Math.max(...owned)).toBeLessThan(SYMBOLS.length);
      },
      { timeout: 4 * POLL_MS, interval: 100 },
    );
    const infos = await Promise.all(
      apps.map(async (a) => {
        const { body } = await graphql<{ serverInfo: { priceRelay: Record<string, unknown> } }>(
          a.app,
          '{ serverInfo { priceRelay { mode instanceId feedsOwned feedsFollowed ticksRelayedSent ticksRelayedReceived relayLagMs } } }',
        );
        expect(body.errors).toBeUndefined();
        return body.data!.serverInfo.priceRelay;
      }),
    );
    expect(infos.map((i) => i.mode)).toEqual(['RELAYED', 'RELAYED', 'RELAYED']);
    expect(new Set(infos.map((i) => i.instanceId)).size).toBe(apps.length);
    for (const info of infos) {
      expect(Number(info.feedsOwned) + Number(info.feedsFollowed)).toBe(SYMBOLS.length);
      // An instance that was relayed updates says how late they came.
      if (Number(info.ticksRelayedReceived) > 0) expect(info.relayLagMs).toEqual(expect.any(Number));
    }
    expect(infos.some((i) => Number(i.ticksRelayedReceived) > 0)).toBe(true);
  });

  it('hands a stopped owner’s feeds to another instance within two poll intervals; subscribers go on', async () => {
    const owned = await Promise.all(
      apps.map(async (a) => gauge(await metricsOf(a), 'vigil_price_feeds_owned')),
    );
    const victim = owned.findIndex((n) => n > 0);
    expect(victim).toBeGreaterThanOrEqual(0);
    const survivors = apps.filter((_, i) => i !== victim);
    await apps[victim]!.app.stop();
    const stoppedAt = Date.now();
    await vi.waitFor(
      async () => {
        const counts = await Promise.all(
          survivors.map(async (a) => gauge(await metricsOf(a), 'vigil_price_feeds_owned')),
        );
        expect(counts.reduce((x, y) => x + y, 0)).toBe(SYMBOLS.length);
      },
      { timeout: 10 * POLL_MS, interval: 25 },
    );
    const takeoverMs = Date.now() - stoppedAt;
    // Two poll intervals, and one more for a test machine's scheduling and the metrics' reading.
    expect(takeoverMs).toBeLessThanOrEqual(3 * POLL_MS);

    // The stopped instance's subscriber reconnects to another one: its snapshot is the current price.
    await vi.waitFor(() => expect(subscribers[victim]!.closed).toBe(true), { timeout: 5_000, interval: 25 });
    const moved = subscriber(survivors[0]!);
    const kept = subscribers.filter((_, i) => i !== victim);
    subscribers.push(moved);
    await everyoneSees((i) => 200 + i, [moved]);

    for (const [i, s] of SYMBOLS.entries()) setPrice(s, 300 + i);
    await everyoneSees((i) => 300 + i, [...kept, moved]);
    for (const s of [...kept, moved]) {
      expect(s.errors).toEqual([]);
      expectHonestTicks(s.ticks);
    }
  });
});

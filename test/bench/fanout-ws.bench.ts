import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';
import type { WatchdogsApi } from '../../src/watchdogs/watchdogs-api.ts';
import { bundledServer, type ServerModules } from './bundled-server.ts';
import {
  clientWorker,
  compare,
  fanoutServer,
  measure,
  SYMBOLS,
  sleep,
  withBareServer,
} from './fanout-clients.ts';
import { table } from './stats.ts';

/**
 * Plain WebSocket fan-out: N subscribers of `/ws/prices/{10 symbols}?interval_ms=100` and N of
 * `/dashboard/stream`, each against a bare `ws` server broadcasting messages of the same shape and
 * size to N clients in the same run. Every round sends one message per symbol (a price tick, or a
 * stored watchdog event), 100 ms apart. The clients run in a worker thread of this process, so the
 * server's own CPU (the main thread's) is told apart from the whole process's (both ends).
 * Measured: time to connect every client (until its opening messages arrived), delivery latency
 * from the upstream tick (the event's publish) to each client, CPU per delivered message, and
 * server heap per subscriber (after a full GC, connected minus before).
 * The server's code is bundled as `npm start` runs it (bundled-server.ts).
 * FANOUT_WS_SIZES sets N (default 1000,5000), FANOUT_WS_ROUNDS the measured rounds (default 5).
 *
 * The dashboard's events ride a watchdog event bus of this benchmark with room for N listeners
 * (the app's own allows WATCHDOG_EVENT_MAX_LISTENERS), so that it can publish them; publishing,
 * notification and loading are the real ones.
 */
const SIZES = (process.env.FANOUT_WS_SIZES ?? '1000,5000').split(',').map(Number);
const ROUNDS = Number(process.env.FANOUT_WS_ROUNDS ?? 5);
const GAP_MS = 100;
const EVENT_TEXT = 'bench event ';

export async function run(): Promise<void> {
  const most = Math.max(...SIZES);
  const server = await bundledServer();
  const { buildApp, createDeps, createLogger, modules, WatchdogEventBus } = server;
  const { dataDir, fake, config } = fanoutServer(server, most);
  const deps = await createDeps(config, { providers: [fake] });
  const bus = new WatchdogEventBus({
    database: deps.database,
    clock: deps.clock,
    logger: createLogger('silent'),
    maxListeners: most + 100,
  });
  const app = buildApp(
    { ...deps, watchdogs: onBus(deps.watchdogs, bus, server.matchesEventFilter) },
    modules,
  );
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  await bus.start();
  const clients = clientWorker();
  const rows: Array<Record<string, string | number>> = [];
  const publish = (key: number) =>
    deps.database.db.transaction((tx) =>
      bus.publish(tx, {
        watchdog: 'price_anomaly',
        eventType: 'price_anomaly',
        severity: 'high',
        symbol: 'AAPL',
        asset: { symbol: 'AAPL', assetType: 'equity' },
        description: `${EVENT_TEXT}${key}`,
        data: { change: 0.06, window_minutes: 5 },
      }),
    );
  const prices = `${url.replace('http', 'ws')}/ws/prices/${SYMBOLS.map(encodeURIComponent).join(',')}?interval_ms=100`;
  try {
    for (const n of SIZES) {
      const load = loadavg().map((l) => l.toFixed(2));
      process.stdout.write(`N=${n}: load average ${load.join(' ')}\n`);
      const pairs = [
        [
          '/ws/prices',
          'prices',
          prices,
          { kind: 'snapshots', count: SYMBOLS.length },
          '"price":',
          (key: number, i: number) => fake.emit(SYMBOLS[i]!, key),
        ],
        [
          '/dashboard/stream',
          'dashboard',
          `${url.replace('http', 'ws')}/dashboard/stream`,
          { kind: 'health' },
          `"description":"${EVENT_TEXT}`,
          publish,
        ],
      ] as const;
      for (const [route, kind, target, opening, marker, emit] of pairs) {
        const rounds = { perRound: SYMBOLS.length, gapMs: GAP_MS, rounds: ROUNDS };
        const bare = await withBareServer(
          (key, i) => bareMessage(kind, key, i),
          (port, broadcast) =>
            measure(clients, n, `ws://127.0.0.1:${port}`, { kind: 'plain' }, marker, {
              ...rounds,
              emit: broadcast,
            }),
        );
        const vigil = await measure(clients, n, target, opening, marker, { ...rounds, emit });
        for (let i = 0; i < 200 && (bus.listenerCount > 0 || fake.streams.size > 0); i++) await sleep(25);
        rows.push(...compare(n, route, bare, vigil));
      }
    }
  } finally {
    await clients.stop();
    await bus.stop();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${table(rows)}\n`);
}

/** A /ws/prices data message with one price item, or a /dashboard/stream event: same keys, like sizes. */
function bareMessage(kind: 'prices' | 'dashboard', key: number, i: number) {
  const timestamp = new Date().toISOString();
  if (kind === 'dashboard') {
    const data = { change: 0.06, window_minutes: 5 };
    const [asset, watchdog] = [{ symbol: 'AAPL', asset_type: 'equity' }, 'price_anomaly'];
    const event = { event_id: '01JXBENCH0000000000000000', type: watchdog, severity: 'high' };
    const description = `${EVENT_TEXT}${key}`;
    return { type: 'event', data: { ...event, description, asset, timestamp, watchdog, data, metadata: {} } };
  }
  const item = { symbol: SYMBOLS[i], asset_type: 'equity', price: key, change: 1.5, change_percent: 0.75 };
  const rest = { currency: 'USD', timestamp, provider: 'bench', confidence: 1, simulated: false, seq: key };
  const data = [{ ...item, volume: 1000, ...rest, market_state: 'regular', snapshot: false }];
  const id = '6f1c1d2e-8a47-4f0e-9b1d-3c2a5e7f9a10';
  return { type: 'data', stream_type: 'price', subscription_id: id, data, timestamp, metadata: { count: 1 } };
}

/** The watchdogs with their event feed on `bus` (filtered as the service's own feed filters). */
function onBus<T extends WatchdogsApi>(
  watchdogs: T,
  bus: WatchdogEventBus,
  matchesEventFilter: ServerModules['matchesEventFilter'],
): T {
  const subscribe: WatchdogsApi['subscribe'] = (filter, listener) =>
    bus.subscribe((event) => (matchesEventFilter(event, filter) ? listener(event) : undefined));
  return new Proxy(watchdogs, {
    get(target, prop) {
      if (prop === 'subscribe') return subscribe;
      if (prop === 'listenerCount') return bus.listenerCount;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

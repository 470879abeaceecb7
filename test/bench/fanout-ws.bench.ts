import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket, { WebSocketServer } from 'ws';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';
import { matchesEventFilter } from '../../src/watchdogs/event-filter.ts';
import type { WatchdogsApi } from '../../src/watchdogs/watchdogs-api.ts';
import { createFakeProvider } from '../support/fake-provider.ts';
import { summarize, table } from './stats.ts';

/**
 * Plain WebSocket fan-out: N subscribers of `/ws/prices/{10 symbols}?interval_ms=100` and N of
 * `/dashboard/stream`, each against a bare `ws` server broadcasting messages of the same shape and
 * size to N clients in the same run. Every round sends one message per symbol (a price tick, or a
 * stored watchdog event), 100 ms apart. The clients run in a worker thread of this process, so the
 * server's own CPU (the main thread's) is told apart from the whole process's (both ends, as
 * fanout.bench.ts counts it). Measured: time to connect every client (until its opening messages
 * arrived), delivery latency from the upstream tick (the event's publish) to each client, CPU per
 * delivered message, and server heap per subscriber (after a full GC, connected minus before).
 * FANOUT_WS_SIZES sets N (default 1000,5000), FANOUT_WS_ROUNDS the measured rounds (default 5).
 *
 * The dashboard's events ride a watchdog event bus of this benchmark with room for N listeners
 * (the app's own allows 1,000 per instance); publishing, notification and loading are the real ones.
 */
const SIZES = (process.env.FANOUT_WS_SIZES ?? '1000,5000').split(',').map(Number);
const ROUNDS = Number(process.env.FANOUT_WS_ROUNDS ?? 5);
const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL', 'META', 'TSLA', 'BTC/USDT', 'ETH/USDT', 'SOL/USDT'];
const GAP_MS = 100;
const CONNECT_BATCH = 200;
const EVENT_TEXT = 'bench event ';

/** What the client worker connects to (a bare server's clients are ready once open). */
type Kind = 'prices' | 'dashboard' | 'bare-prices' | 'bare-dashboard';
/** To the client worker: connect `n` clients, hand over the arrivals noted so far, or close the clients. */
type Request = { connect?: { url: string; kind: Kind; n: number }; collect?: true; close?: true };
type Answer = { ms?: number; error?: string; keys?: number[]; at?: number[] };
type ClientWorker = ReturnType<typeof clientWorker>;

interface Figures {
  readonly connectMs: number;
  readonly latencies: number[];
  readonly serverUsPerMessage: number;
  readonly processUsPerMessage: number;
  readonly serverKbPerClient: number;
}

export async function run(): Promise<void> {
  const most = Math.max(...SIZES);
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const fake = createFakeProvider('bench', { capabilities: ['quote', 'stream'] });
  for (const [i, s] of SYMBOLS.entries()) fake.prices.set(s, 100 + i);
  const config = parseConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    WATCHDOGS_RUN: 'false',
    // Every client comes from 127.0.0.1: the per-client bounds are lifted so they measure nothing.
    WS_MAX_CONNECTIONS_PER_CLIENT: String(most + 100),
    RATE_LIMIT_MAX: '1000000',
  });
  const deps = await createDeps(config, modules, { providers: [fake] });
  const bus = new WatchdogEventBus({
    database: deps.database,
    clock: deps.clock,
    logger: createLogger('silent'),
    maxListeners: most + 100,
  });
  const app = buildApp({ ...deps, watchdogs: onBus(deps.watchdogs, bus) }, modules);
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
        ['/ws/prices', 'prices', prices, (key: number, i: number) => fake.emit(SYMBOLS[i]!, key)],
        ['/dashboard/stream', 'dashboard', `${url.replace('http', 'ws')}/dashboard/stream`, publish],
      ] as const;
      for (const [route, kind, target, emit] of pairs) {
        const bare = await withBareServer(kind, (port, broadcast) =>
          measure(clients, n, `ws://127.0.0.1:${port}`, `bare-${kind}`, broadcast),
        );
        const vigil = await measure(clients, n, target, kind, emit);
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

function compare(n: number, route: string, bare: Figures, vigil: Figures) {
  const row = (server: string, r: Figures) => {
    const s = summarize(r.latencies);
    return {
      subscribers: n,
      server,
      'connect s': r.connectMs / 1000,
      deliveries: s.n,
      'p50 ms': s.p50,
      'p99 ms': s.p99,
      'server CPU µs/msg': r.serverUsPerMessage,
      'process CPU µs/msg': r.processUsPerMessage,
      'server KB/client': r.serverKbPerClient,
    };
  };
  const [b, v] = [row('ws broadcast (baseline)', bare), row(`vigil ${route}`, vigil)];
  const ratios = Object.fromEntries(
    Object.entries(v).map(([k, x]) => [k, typeof x === 'number' ? x / Number(b[k as keyof typeof b]) : x]),
  );
  return [b, v, { ...ratios, subscribers: n, server: 'ratio vigil/baseline', deliveries: '' }];
}

/** Connects `n` clients in the worker, sends a warm-up and the measured rounds, and closes them. */
async function measure(
  clients: ClientWorker,
  n: number,
  url: string,
  kind: Kind,
  emit: (key: number, index: number) => unknown,
): Promise<Figures> {
  const heapBefore = heapUsed();
  const connected = await clients.ask({ connect: { url, kind, n } });
  if (connected.ms === undefined) throw new Error(connected.error);
  const sentAt = new Map<number, number>();
  let next = 10_000;
  const round = async () => {
    for (let i = 0; i < SYMBOLS.length; i++) {
      sentAt.set(next, now());
      void emit(next++, i);
      await sleep(GAP_MS);
    }
  };
  // One round first, not counted: caches and code paths warm up.
  await round();
  await sleep(500);
  await clients.ask({ collect: true });
  const [server, whole] = [threadCpuUs(), process.cpuUsage()];
  for (let r = 0; r < ROUNDS; r++) await round();
  // The last messages' deliveries.
  await sleep(1_000);
  const serverUs = threadCpuUs() - server;
  const used = process.cpuUsage(whole);
  const serverKbPerClient = Math.round((heapUsed() - heapBefore) / n / 1024);
  const { keys = [], at = [] } = await clients.ask({ collect: true });
  const latencies = keys.flatMap((key, i) => (sentAt.has(key) ? [at[i]! - sentAt.get(key)!] : []));
  await clients.ask({ close: true });
  const deliveries = Math.max(1, latencies.length);
  return {
    connectMs: connected.ms,
    latencies,
    serverUsPerMessage: serverUs / deliveries,
    processUsPerMessage: (used.user + used.system) / deliveries,
    serverKbPerClient,
  };
}

/** A bare `ws` server for the run of `body`, which broadcasts a message of `kind` by calling the function it is given. */
async function withBareServer(
  kind: 'prices' | 'dashboard',
  body: (port: number, broadcast: (key: number, index: number) => void) => Promise<Figures>,
): Promise<Figures> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  try {
    return await body((wss.address() as AddressInfo).port, (key, i) => {
      const text = JSON.stringify(bareMessage(kind, key, i));
      for (const client of wss.clients) client.send(text);
    });
  } finally {
    await new Promise((resolve) => wss.close(resolve));
  }
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
function onBus<T extends WatchdogsApi>(watchdogs: T, bus: WatchdogEventBus): T {
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

/** The client worker, this module again in a thread that loads TypeScript as the main thread does. */
function clientWorker() {
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`,
    { eval: true, workerData: { fanoutWsClients: true } },
  );
  const answers: Array<(answer: Answer) => void> = [];
  worker.on('message', (answer: Answer) => answers.shift()?.(answer));
  const ask = (request: Request) =>
    new Promise<Answer>((resolve) => {
      answers.push(resolve);
      worker.postMessage(request);
    });
  return { ask, stop: () => worker.terminate() };
}

/** The worker's side: connects the clients and notes when each keyed message arrives. */
function serveClients(port: NonNullable<typeof parentPort>): void {
  let sockets: WebSocket[] = [];
  let keys: number[] = [];
  let at: number[] = [];
  port.on('message', async ({ connect, collect }: Request) => {
    if (collect) {
      port.postMessage({ keys, at } satisfies Answer);
      keys = [];
      at = [];
      return;
    }
    for (const socket of sockets) socket.terminate();
    sockets = [];
    if (!connect) return port.postMessage({} satisfies Answer);
    const started = now();
    const marker = connect.kind.endsWith('prices') ? '"price":' : `"description":"${EVENT_TEXT}`;
    const onMessage = (raw: WebSocket.RawData) => {
      const arrived = now();
      for (const key of numbersAfter(String(raw), marker)) {
        keys.push(key);
        at.push(arrived);
      }
    };
    try {
      for (let i = 0; i < connect.n; i += CONNECT_BATCH) {
        const batch = Math.min(CONNECT_BATCH, connect.n - i);
        sockets.push(
          ...(await Promise.all(Array.from({ length: batch }, () => client(connect.url, connect.kind)))),
        );
      }
      for (const socket of sockets) socket.on('message', onMessage);
      port.postMessage({ ms: now() - started } satisfies Answer);
    } catch (error) {
      port.postMessage({ error: String(error) } satisfies Answer);
    }
  });
}

/** A client, once it has its opening messages: every snapshot on /ws/prices, the health on /dashboard/stream. */
function client(url: string, kind: Kind): Promise<WebSocket> {
  const socket = new WebSocket(url);
  let snapshots = 0;
  const ready = (raw: string) => {
    if (kind === 'dashboard') return raw.startsWith('{"type":"health"');
    snapshots += raw.split('"snapshot":true').length - 1;
    return snapshots >= SYMBOLS.length;
  };
  return new Promise((resolve, reject) => {
    // Listening from the start: the first messages may come in the same read as the handshake.
    const onMessage = (data: WebSocket.RawData) => {
      const raw = String(data);
      if (raw.startsWith('{"type":"error"')) reject(new Error(raw));
      if (!ready(raw)) return;
      socket.off('message', onMessage);
      resolve(socket);
    };
    socket.on('message', onMessage);
    if (kind.startsWith('bare')) socket.once('open', () => resolve(socket));
    socket.once('error', reject);
    socket.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason}`)));
  });
}

/** The numbers that follow each `marker` in `raw` (read without parsing the whole message). */
function numbersAfter(raw: string, marker: string): number[] {
  const found: number[] = [];
  for (let i = raw.indexOf(marker); i >= 0; i = raw.indexOf(marker, i + 1)) {
    const value = Number.parseFloat(raw.slice(i + marker.length, i + marker.length + 24));
    if (Number.isFinite(value)) found.push(value);
  }
  return found;
}

/** CPU time of this (the main) thread in microseconds, from Linux's per-thread accounting (NaN elsewhere). */
function threadCpuUs(): number {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime, in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return Number.NaN;
  }
}

function heapUsed(): number {
  global.gc?.();
  return process.memoryUsage().heapUsed;
}

/** Milliseconds on a clock both threads share. */
function now(): number {
  return performance.timeOrigin + performance.now();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (!isMainThread && parentPort && (workerData as { fanoutWsClients?: boolean })?.fanoutWsClients)
  serveClients(parentPort);

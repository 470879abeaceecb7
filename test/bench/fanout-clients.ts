import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import WebSocket, { WebSocketServer } from 'ws';
import type { ServerModules } from './bundled-server.ts';
import { summarize } from './stats.ts';

/**
 * What the fan-out benchmarks share: N WebSocket clients in a worker thread of the benchmark's
 * process (so the server's own CPU, the main thread's, is told apart from the clients'), rounds of
 * keyed messages sent upstream, and the figures and ratios against a bare `ws` broadcast.
 *
 * A message is keyed by a number written after a marker (`"price":` for prices); the worker notes
 * when each key arrived on each client, and the latency is that time minus when the key was sent.
 */

/**
 * How a client opens: `plain` is ready once open (a bare server); `snapshots` once it has seen
 * `count` `"snapshot":true` (/ws/prices); `graphql-ws` runs the protocol's handshake, sends
 * `subscribe` and is ready once `count` snapshots arrived; `health` once a health message arrived
 * (/dashboard/stream).
 */
export type Opening =
  | { readonly kind: 'plain' }
  | { readonly kind: 'snapshots'; readonly count: number }
  | { readonly kind: 'graphql-ws'; readonly count: number; readonly subscribe: string }
  | { readonly kind: 'health' };

/** To the worker: connect `n` clients, hand over the arrivals noted so far, or close the clients. */
type Request = { connect?: { url: string; opening: Opening; n: number; marker: string }; collect?: true };
type Answer = { ms?: number; error?: string; keys?: number[]; at?: number[] };
export type ClientWorker = ReturnType<typeof clientWorker>;

export interface Figures {
  readonly connectMs: number;
  readonly latencies: number[];
  readonly serverUsPerMessage: number;
  readonly processUsPerMessage: number;
  readonly serverKbPerClient: number;
}

const CONNECT_BATCH = 200;

/** What the fan-out benchmarks stream: each round sends one tick (or event) per symbol. */
export const SYMBOLS = [
  'AAPL',
  'MSFT',
  'NVDA',
  'AMZN',
  'GOOGL',
  'META',
  'TSLA',
  'BTC/USDT',
  'ETH/USDT',
  'SOL/USDT',
];

/**
 * A fan-out server's market (a fake provider streaming SYMBOLS) and settings for up to `clients`
 * connections from one address, in a new data directory (the caller removes it), from the server
 * code `server` (bundled-server.ts).
 */
export function fanoutServer(server: ServerModules, clients: number, env: Record<string, string> = {}) {
  const { createFakeProvider, parseConfig } = server;
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const fake = createFakeProvider('bench', { capabilities: ['quote', 'stream'] });
  for (const [i, s] of SYMBOLS.entries()) fake.prices.set(s, 100 + i);
  const config = parseConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    WATCHDOGS_RUN: 'false',
    // Every client comes from 127.0.0.1: the per-client bounds are lifted so they measure nothing.
    WS_MAX_CONNECTIONS_PER_CLIENT: String(clients + 100),
    RATE_LIMIT_MAX: '1000000',
    ...env,
  });
  return { dataDir, fake, config };
}

/** The client worker: this module again, in a thread that loads TypeScript as the main thread does. */
export function clientWorker() {
  const worker = new Worker(
    `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`,
    { eval: true, workerData: { fanoutClients: true } },
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

export interface Rounds {
  /** Messages per round, `gapMs` apart; `emit(key, index)` sends the one with that key. */
  readonly perRound: number;
  readonly gapMs: number;
  readonly rounds: number;
  readonly emit: (key: number, index: number) => unknown;
}

/** Connects `n` clients in the worker, sends a warm-up round and the measured ones, and closes them. */
export async function measure(
  clients: ClientWorker,
  n: number,
  url: string,
  opening: Opening,
  marker: string,
  { perRound, gapMs, rounds, emit }: Rounds,
): Promise<Figures> {
  const heapBefore = heapUsed();
  const connected = await clients.ask({ connect: { url, opening, n, marker } });
  if (connected.ms === undefined) throw new Error(connected.error);
  const sentAt = new Map<number, number>();
  let next = 10_000;
  const round = async () => {
    for (let i = 0; i < perRound; i++) {
      sentAt.set(next, now());
      void emit(next++, i);
      await sleep(gapMs);
    }
  };
  // One round first, not counted: caches and code paths warm up.
  await round();
  await sleep(500);
  await clients.ask({ collect: true });
  const [server, whole] = [threadCpuUs(), process.cpuUsage()];
  for (let r = 0; r < rounds; r++) await round();
  // The last messages' deliveries.
  await sleep(1_000);
  const serverUs = threadCpuUs() - server;
  const used = process.cpuUsage(whole);
  const serverKbPerClient = Math.round((heapUsed() - heapBefore) / n / 1024);
  const { keys = [], at = [] } = await clients.ask({ collect: true });
  const latencies = keys.flatMap((key, i) => (sentAt.has(key) ? [at[i]! - sentAt.get(key)!] : []));
  await clients.ask({});
  const deliveries = Math.max(1, latencies.length);
  return {
    connectMs: connected.ms,
    latencies,
    serverUsPerMessage: serverUs / deliveries,
    processUsPerMessage: (used.user + used.system) / deliveries,
    serverKbPerClient,
  };
}

/** A bare `ws` server for the run of `body`, which broadcasts `message(key, index)` through the function it is given. */
export async function withBareServer(
  message: (key: number, index: number) => object,
  body: (port: number, broadcast: (key: number, index: number) => void) => Promise<Figures>,
): Promise<Figures> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  try {
    return await body((wss.address() as AddressInfo).port, (key, i) => {
      const text = JSON.stringify(message(key, i));
      for (const client of wss.clients) client.send(text);
    });
  } finally {
    await new Promise((resolve) => wss.close(resolve));
  }
}

/** The rows of one comparison: the baseline, Vigil, and Vigil's figures over the baseline's. */
export function compare(n: number, route: string, bare: Figures, vigil: Figures) {
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
    const onMessage = (raw: WebSocket.RawData) => {
      const arrived = now();
      for (const key of numbersAfter(String(raw), connect.marker)) {
        keys.push(key);
        at.push(arrived);
      }
    };
    try {
      for (let i = 0; i < connect.n; i += CONNECT_BATCH) {
        const batch = Math.min(CONNECT_BATCH, connect.n - i);
        sockets.push(
          ...(await Promise.all(Array.from({ length: batch }, () => client(connect.url, connect.opening)))),
        );
      }
      for (const socket of sockets) socket.on('message', onMessage);
      port.postMessage({ ms: now() - started } satisfies Answer);
    } catch (error) {
      port.postMessage({ error: String(error) } satisfies Answer);
    }
  });
}

/** A client, once it has its opening messages. */
function client(url: string, opening: Opening): Promise<WebSocket> {
  const graphqlWs = opening.kind === 'graphql-ws';
  const socket = graphqlWs ? new WebSocket(url, 'graphql-transport-ws') : new WebSocket(url);
  let snapshots = 0;
  const ready = (raw: string) => {
    if (opening.kind === 'health') return raw.startsWith('{"type":"health"');
    if (opening.kind === 'plain') return false;
    if (graphqlWs && raw.includes('"type":"connection_ack"')) socket.send(opening.subscribe);
    snapshots += raw.split('"snapshot":true').length - 1;
    return snapshots >= opening.count;
  };
  return new Promise((resolve, reject) => {
    // Listening from the start: the first messages may come in the same read as the handshake.
    const onMessage = (data: WebSocket.RawData) => {
      const raw = String(data);
      if (raw.startsWith('{"type":"error"') || raw.includes('"type":"error"')) reject(new Error(raw));
      if (!ready(raw)) return;
      socket.off('message', onMessage);
      resolve(socket);
    };
    socket.on('message', onMessage);
    socket.once('open', () => {
      if (opening.kind === 'plain') resolve(socket);
      if (graphqlWs) socket.send('{"type":"connection_init"}');
    });
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

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

if (!isMainThread && parentPort && (workerData as { fanoutClients?: boolean })?.fanoutClients)
  serveClients(parentPort);

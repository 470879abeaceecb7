import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket, { WebSocketServer } from 'ws';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { createFakeProvider } from '../support/fake-provider.ts';
import { summarize, table } from './stats.ts';

/**
 * GraphQL subscription fan-out: N graphql-ws subscribers of `prices` for 10 symbols (one tick per
 * symbol per second, the symbols 100 ms apart) over loopback, against a bare `ws` server broadcasting messages of the same
 * size to N clients in the same run. Measured: time to connect and subscribe every client, delivery
 * latency from the upstream tick to each client, CPU time of the process per delivered message, and
 * memory per subscriber (heap + buffers after a full GC; both ends of each connection live in this
 * process). Clients speak the protocol on raw sockets, so the client library's cost is not counted.
 */
const SIZES = (process.env.FANOUT_SIZES ?? '1000,5000').split(',').map(Number);
const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL', 'META', 'TSLA', 'BTC/USDT', 'ETH/USDT', 'SOL/USDT'];
const ROUNDS = 8;
const ROUND_MS = 1_000;
const CONNECT_BATCH = 200;

const QUERY = `subscription ($symbols: [String!]!) { prices(symbols: $symbols, intervalMs: 250) {
  symbol price change changePercent volume currency asOf provider snapshot marketState } }`;

interface Result {
  readonly connectMs: number;
  readonly latencies: number[];
  readonly cpuUsPerMessage: number;
  readonly memoryPerClientKb: number;
}

export async function run(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  for (const n of SIZES) {
    const baseline = await rawBroadcast(n);
    const vigil = await viaGraphqlWs(n);
    for (const [name, r] of [
      ['ws broadcast (baseline)', baseline],
      ['vigil graphql-ws prices', vigil],
    ] as const) {
      const s = summarize(r.latencies);
      rows.push({
        subscribers: n,
        server: name,
        'connect s': r.connectMs / 1000,
        deliveries: s.n,
        'p50 ms': s.p50,
        'p99 ms': s.p99,
        'CPU µs/msg': r.cpuUsPerMessage,
        'KB/client': r.memoryPerClientKb,
      });
    }
    const b = summarize(baseline.latencies);
    const v = summarize(vigil.latencies);
    rows.push({
      subscribers: n,
      server: 'ratio vigil/baseline',
      'connect s': vigil.connectMs / baseline.connectMs,
      deliveries: '',
      'p50 ms': v.p50 / b.p50,
      'p99 ms': v.p99 / b.p99,
      'CPU µs/msg': vigil.cpuUsPerMessage / baseline.cpuUsPerMessage,
      'KB/client': vigil.memoryPerClientKb / baseline.memoryPerClientKb,
    });
  }
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(
    'goals (issue): p99 < 100 ms at 5,000; CPU <= 2x the bare broadcast; 5,000 connected in < 10 s\n',
  );
}

async function viaGraphqlWs(n: number): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const fake = createFakeProvider('bench', { capabilities: ['quote', 'stream'] });
  for (const [i, s] of SYMBOLS.entries()) fake.prices.set(s, 100 + i);
  const config = parseConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    WATCHDOGS_RUN: 'false',
    // Every client comes from 127.0.0.1: the per-client bounds are lifted so they measure nothing.
    WS_MAX_CONNECTIONS_PER_CLIENT: String(n + 100),
    RATE_LIMIT_MAX: '1000000',
  });
  const app = buildApp(await createDeps(config, modules, { providers: [fake] }), modules);
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  try {
    const wsUrl = `${url.replace('http', 'ws')}/graphql`;
    const latencies: number[] = [];
    const sentAt = new Map<number, number>();
    const onData = (raw: string) => {
      const message = JSON.parse(raw);
      if (message.type !== 'next') return;
      const tick = message.payload?.data?.prices;
      const at = tick && sentAt.get(tick.price);
      if (at !== undefined && !tick.snapshot) latencies.push(performance.now() - at);
    };
    const started = performance.now();
    const clients = await connectAll(n, async () => {
      const socket = new WebSocket(wsUrl, 'graphql-transport-ws');
      await opened(socket);
      socket.send(JSON.stringify({ type: 'connection_init' }));
      await nextMessage(socket, 'connection_ack');
      socket.send(
        JSON.stringify({
          id: '1',
          type: 'subscribe',
          payload: { query: QUERY, variables: { symbols: SYMBOLS } },
        }),
      );
      // Subscribed once the snapshot of every symbol arrived.
      await countMessages(socket, SYMBOLS.length);
      socket.on('message', (raw) => onData(String(raw)));
      return socket;
    });
    const connectMs = performance.now() - started;
    const measured = await measureRounds(latencies, (symbol, price) => {
      sentAt.set(price, performance.now());
      fake.emit(symbol, price, new Date());
    });
    const memoryPerClientKb = await memoryPerClient(n, measured.baselineBytes);
    for (const c of clients) c.terminate();
    return {
      connectMs,
      latencies,
      cpuUsPerMessage: measured.cpuUs / Math.max(1, latencies.length),
      memoryPerClientKb,
    };
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function rawBroadcast(n: number): Promise<Result> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => wss.once('listening', resolve));
  const port = (wss.address() as AddressInfo).port;
  const latencies: number[] = [];
  const sentAt = new Map<number, number>();
  const started = performance.now();
  const clients = await connectAll(n, async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${port}`);
    await opened(socket);
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw));
      const at = sentAt.get(message.payload.data.prices.price);
      if (at !== undefined) latencies.push(performance.now() - at);
    });
    return socket;
  });
  const connectMs = performance.now() - started;
  const measured = await measureRounds(latencies, (symbol, price) => {
    {
      sentAt.set(price, performance.now());
      const data = JSON.stringify({
        id: '1',
        type: 'next',
        payload: {
          data: {
            prices: {
              symbol,
              price,
              change: 1.5,
              changePercent: 0.12,
              volume: 123456,
              currency: 'USD',
              asOf: new Date().toISOString(),
              provider: 'bench',
              snapshot: false,
              marketState: 'REGULAR',
            },
          },
        },
      });
      for (const client of wss.clients) client.send(data);
    }
  });
  const memoryPerClientKb = await memoryPerClient(n, measured.baselineBytes);
  for (const c of clients) c.terminate();
  await new Promise((resolve) => wss.close(resolve));
  return {
    connectMs,
    latencies,
    cpuUsPerMessage: measured.cpuUs / Math.max(1, latencies.length),
    memoryPerClientKb,
  };
}

/** Connects in batches (as many clients would arrive), each batch in parallel. */
async function connectAll(n: number, connect: () => Promise<WebSocket>): Promise<WebSocket[]> {
  const clients: WebSocket[] = [];
  for (let i = 0; i < n; i += CONNECT_BATCH) {
    const batch = Math.min(CONNECT_BATCH, n - i);
    clients.push(...(await Promise.all(Array.from({ length: batch }, connect))));
  }
  return clients;
}

/** Each round sends one tick of every symbol, spread evenly over the round. */
async function measureRounds(
  latencies: number[],
  emit: (symbol: string, price: number) => void,
): Promise<{ cpuUs: number; baselineBytes: number }> {
  global.gc?.();
  const baselineBytes = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const round = async (n: number) => {
    for (const [i, symbol] of SYMBOLS.entries()) {
      emit(symbol, 1_000 + n * 100 + i + Math.random() / 10);
      await new Promise((resolve) => setTimeout(resolve, ROUND_MS / SYMBOLS.length));
    }
  };
  // One round first, not counted: caches and code paths warm up.
  await round(-1);
  latencies.length = 0;
  const cpu = process.cpuUsage();
  for (let n = 0; n < ROUNDS; n++) await round(n);
  // The last ticks' deliveries.
  await new Promise((resolve) => setTimeout(resolve, ROUND_MS));
  const used = process.cpuUsage(cpu);
  return { cpuUs: used.user + used.system, baselineBytes };
}

async function memoryPerClient(n: number, _baseline: number): Promise<number> {
  global.gc?.();
  const usage = process.memoryUsage();
  return Math.round((usage.heapUsed + usage.arrayBuffers) / n / 1024);
}

function opened(socket: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
}

function nextMessage(socket: WebSocket, type: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (raw: WebSocket.RawData) => {
      if (JSON.parse(String(raw)).type === type) {
        socket.off('message', onMessage);
        resolve();
      }
    };
    socket.on('message', onMessage);
    socket.once('close', (code) => reject(new Error(`closed ${code} before ${type}`)));
  });
}

function countMessages(socket: WebSocket, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const onMessage = (raw: WebSocket.RawData) => {
      const message = JSON.parse(String(raw));
      if (message.type === 'error') reject(new Error(JSON.stringify(message.payload)));
      if (message.type === 'next' && ++seen >= count) {
        socket.off('message', onMessage);
        resolve();
      }
    };
    socket.on('message', onMessage);
    socket.once('close', (code, reason) => reject(new Error(`closed ${code} ${reason}`)));
  });
}

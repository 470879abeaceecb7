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
 * N WebSocket subscribers of one symbol on /ws/prices (the hub, one upstream feed) over loopback:
 * delivery latency from the upstream tick to each client, and the server's memory per subscriber.
 * Baseline in the same run: a bare `ws` server broadcasting the same messages to N clients.
 * Clients and servers share this process (and its event loop) in both cases, so memory per
 * subscriber counts both ends of each connection (heap + buffers after a full GC).
 */
const SIZES = [1_000, 5_000];
const TICKS = 20;
const TICK_SPACING_MS = 250;

interface Result {
  readonly latencies: number[];
  readonly memoryPerClientKb: number;
}

export async function run(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  for (const n of SIZES) {
    const baseline = await rawBroadcast(n);
    const hub = await viaHub(n);
    for (const [name, r] of [
      ['ws broadcast (baseline)', baseline],
      ['vigil /ws/prices (hub)', hub],
    ] as const) {
      const s = summarize(r.latencies);
      rows.push({
        subscribers: n,
        server: name,
        deliveries: s.n,
        'p50 ms': s.p50,
        'p99 ms': s.p99,
        'max ms': s.max,
        'KB/client': r.memoryPerClientKb,
      });
    }
    const b = summarize(baseline.latencies);
    const h = summarize(hub.latencies);
    rows.push({
      subscribers: n,
      server: 'ratio hub/baseline',
      deliveries: '',
      'p50 ms': h.p50 / b.p50,
      'p99 ms': h.p99 / b.p99,
      'max ms': '',
      'KB/client': hub.memoryPerClientKb / baseline.memoryPerClientKb,
    });
  }
  process.stdout.write(`${table(rows)}\n`);
}

async function viaHub(n: number): Promise<Result> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const fake = createFakeProvider('bench', { capabilities: ['quote', 'stream'] });
  fake.prices.set('BTC/USDT', 50_000);
  const app = buildApp(
    await createDeps(parseConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir }), { providers: [fake] }),
    modules,
  );
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  try {
    return await measure(n, `${url.replace('http', 'ws')}/ws/prices/BTC-USDT?interval_ms=100`, (i) =>
      fake.emit('BTC/USDT', 50_000 + i, new Date()),
    );
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function rawBroadcast(n: number): Promise<Result> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  server.on('connection', (ws) => ws.send(JSON.stringify({ type: 'subscription_ack' })));
  try {
    return await measure(n, `ws://127.0.0.1:${(server.address() as AddressInfo).port}`, (i) => {
      const message = JSON.stringify({
        type: 'data',
        stream_type: 'price',
        subscription_id: 'x',
        data: [{ symbol: 'BTC/USDT', price: 50_000 + i, timestamp: new Date().toISOString() }],
        timestamp: new Date().toISOString(),
        metadata: { count: 1 },
      });
      for (const client of server.clients) client.send(message);
    });
  } finally {
    for (const client of server.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function measure(n: number, url: string, tick: (i: number) => void): Promise<Result> {
  const before = await settledMemory();
  const latencies: number[] = [];
  const clients: WebSocket[] = [];
  for (let start = 0; start < n; start += 250) {
    const batch = Array.from({ length: Math.min(250, n - start) }, () => {
      const ws = new WebSocket(url);
      clients.push(ws);
      return new Promise<void>((resolve, reject) => {
        ws.on('message', (raw) => {
          const m = JSON.parse(String(raw)) as { type: string; data?: Array<{ timestamp: string }> };
          if (m.type === 'subscription_ack') resolve();
          if (m.type === 'data')
            for (const item of m.data ?? []) latencies.push(Date.now() - Date.parse(item.timestamp));
        });
        ws.on('error', reject);
      });
    });
    await Promise.all(batch);
  }
  const memoryPerClientKb = ((await settledMemory()) - before) / 1024 / n;
  for (let i = 1; i <= TICKS; i++) {
    tick(i);
    await new Promise((resolve) => setTimeout(resolve, TICK_SPACING_MS));
  }
  for (const ws of clients) ws.terminate();
  return { latencies, memoryPerClientKb };
}

/** Heap plus off-heap buffers after a full collection (needs --expose-gc, which `npm run bench` passes). */
async function settledMemory(): Promise<number> {
  // Several rounds: buffers are released by finalizers that run between collections.
  for (let i = 0; i < 4; i++) {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

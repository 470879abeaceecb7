import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { CLIENTS, clientAddress, HealthProbe, PROBE_MS, StreamCycles } from './soak-clients.ts';
import { heaviestAllowed, heavyRequest, type MixRequest, mixRequest } from './soak-mix.ts';
import { summarize, table } from './stats.ts';

/**
 * Soak: 10,000 mixed requests (GraphQL quotes and searches at each depth, FK-DSL EVALUATE and SCAN
 * including the heaviest query the cost limit allows, REST tool routes, MCP tool calls through
 * /mcp/tools/call, invalid inputs) at a bounded concurrency, with WebSocket subscribe/unsubscribe
 * cycles on /ws/stream alongside, on the embedded database. Prints the heap and RSS (after a full
 * collection) every 1,000 requests, and the latency of GET /healthz probed every 50 ms on its own
 * connection, against the same probe on the idle server first (the baseline). The mix's rate and
 * latencies are printed beside GET /healthz sent the same way (same connections, concurrency and
 * addresses) just before it: the floor of any request. Load comes from 64 client addresses
 * (X-Forwarded-For behind one trusted proxy hop), so the per-client rate limit applies without
 * refusing the load.
 */
const REQUESTS = 10_000;
const ROUND = 1_000;
const WARM_UP = 500;
const CONCURRENCY = 16;
const HEAVY_EVERY = 250;
const IDLE_PROBE_MS = 10_000;
/** GET /healthz requests sent like the mix, for its floor. */
const FLOOR_REQUESTS = 2_000;
const FLOOR: MixRequest = { kind: 'GET /healthz (floor)', method: 'GET', path: '/healthz' };
const HEAVY_PHASE_QUERIES = 4;
const HEAVY_FAMILY = (n: number) => `SCAN ALL WHERE VOLATILITY(${n}h) > 0`;
const HEAVY_FALLBACK = 'SCAN US WHERE VOLATILITY(1y) > 0 LIMIT 1';

type Results = Map<string, { latencies: number[]; statuses: Record<string, number>; example?: string }>;

const gc = (globalThis as { gc?: () => void }).gc;

export async function run(): Promise<void> {
  if (!gc) process.stdout.write('run with --expose-gc (npm run bench does) for comparable heap samples\n');
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-soak-'));
  const config = parseConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, TRUST_PROXY_HOPS: '1' });
  const deps = await createDeps(config);
  const app = buildApp(deps, modules);
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  const compile = (deps.fkDsl as { compile?: (q: string) => unknown }).compile?.bind(deps.fkDsl);
  const n = compile ? heaviestAllowed(compile, HEAVY_FAMILY, 2, 50_000) : undefined;
  // The cold phase runs N, N-1, ... once each, on a cache that has never seen them; the soak
  // repeats those windows, so memory shows what stays after requests rather than the bar cache
  // filling towards its bound (MARKET_DATA_CACHE_MAX_BYTES) with ever new ranges.
  let heavyCount = 0;
  const heavy = () =>
    heavyRequest(
      n === undefined ? HEAVY_FALLBACK : HEAVY_FAMILY(Math.max(2, n - (heavyCount++ % HEAVY_PHASE_QUERIES))),
    );
  process.stdout.write(
    `embedded database; ${CLIENTS} client addresses (TRUST_PROXY_HOPS=1), concurrency ${CONCURRENCY}, ` +
      `rate limit ${config.rateLimit.max} per ${config.rateLimit.windowSeconds} s per client\n` +
      `heaviest allowed query: ${n === undefined ? `${HEAVY_FALLBACK} (no cost limit found: a fixed query)` : `${HEAVY_FAMILY(n)} (N=${n + 1} is over FKDSL_MAX_COST) and N-1 to N-${HEAVY_PHASE_QUERIES - 1}`}\n`,
  );

  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const results: Results = new Map();
  const send = (req: MixRequest, i: number) => sendOne(url, agent, req, i, results);
  const probe = new HealthProbe(url);
  const stats = (deps.marketData as { cacheStats?: () => { bytes: number } }).cacheStats;
  const cacheBytes = () => stats?.call(deps.marketData).bytes;
  const memory: Array<Record<string, string | number>> = [sample(probe, 'started, idle', cacheBytes)];
  try {
    // Warm-up: code paths and caches of the ordinary mix; the heavy family stays cold.
    await runPool(0, WARM_UP, (i) => send(mixRequest(i, heavy, 0), i));
    results.clear();
    const floorStarted = performance.now();
    await runPool(0, FLOOR_REQUESTS, (i) => send(FLOOR, i));
    const floorRate = FLOOR_REQUESTS / ((performance.now() - floorStarted) / 1000);
    const floor = results.get(FLOOR.kind)!;
    results.clear();

    await probe.measure(IDLE_PROBE_MS);
    const idle = probe.take();

    const heavyStart = performance.now();
    const heavyProbing = probe.start();
    await runPool(
      0,
      HEAVY_PHASE_QUERIES,
      (i) => send({ ...heavy(), kind: 'heaviest, cold cache (own phase)' }, i),
      2,
    );
    probe.stop();
    await heavyProbing;
    const heavyPhase = probe.take();
    const heavySeconds = (performance.now() - heavyStart) / 1000;

    memory.push(sample(probe, 'after warm-up', cacheBytes));
    const ws = new StreamCycles(url.replace(/^http/, 'ws'));
    const probing = probe.start();
    const started = performance.now();
    for (let done = 0; done < REQUESTS; done += ROUND) {
      await runPool(done, done + ROUND, (i) => send(mixRequest(i, heavy, HEAVY_EVERY), i));
      memory.push(sample(probe, `${done + ROUND} requests`, cacheBytes));
    }
    const seconds = (performance.now() - started) / 1000;
    await ws.stop();
    probe.stop();
    await probing;
    const soak = probe.take();

    process.stdout.write(
      `\n${REQUESTS} requests in ${seconds.toFixed(1)} s (${(REQUESTS / seconds).toFixed(0)} req/s, ` +
        `${(REQUESTS / seconds / floorRate).toFixed(3)}x the ${floorRate.toFixed(0)} req/s of GET /healthz sent the same way)\n`,
    );
    process.stdout.write(`${table(kindRows(new Map([[FLOOR.kind, floor], ...results])))}\n`);
    for (const [kind, { example }] of results)
      if (example && !kind.startsWith('invalid'))
        process.stdout.write(`unexpected answer to ${kind}: ${example}\n`);
    process.stdout.write(`\nWebSocket /ws/stream: ${ws.report()}\n`);
    process.stdout.write(
      `\nmemory after a full collection (MB), every ${ROUND} requests:\n${table(memory)}\n`,
    );
    process.stdout.write(`${flatness(memory)}\n`);
    const rows = [
      { phase: 'idle server (baseline)', ...probeRow(idle) },
      { phase: 'mixed soak', ...probeRow(soak) },
      { phase: `heaviest query, cold, 2 at a time (${heavySeconds.toFixed(1)} s)`, ...probeRow(heavyPhase) },
    ];
    process.stdout.write(`\nGET /healthz every ${PROBE_MS} ms on its own connection:\n${table(rows)}\n`);
    const ratio = (a: number[], p: 'p50' | 'p99') => (summarize(a)[p] / summarize(idle)[p]).toFixed(2);
    process.stdout.write(
      `ratio to idle: soak p50 ${ratio(soak, 'p50')}x, p99 ${ratio(soak, 'p99')}x; ` +
        `heaviest p50 ${ratio(heavyPhase, 'p50')}x, p99 ${ratio(heavyPhase, 'p99')}x\n`,
    );
  } finally {
    probe.stop();
    await agent.close();
    await probe.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function sendOne(
  base: string,
  agent: Agent,
  req: MixRequest,
  i: number,
  results: Results,
): Promise<void> {
  const t0 = performance.now();
  let outcome: string;
  let text = '';
  try {
    const res = await request(`${base}${req.path}`, {
      method: req.method,
      dispatcher: agent,
      headers: {
        'content-type': req.contentType ?? 'application/json',
        accept: 'application/graphql-response+json, application/json',
        'x-forwarded-for': clientAddress(i),
      },
      ...(req.body === undefined ? {} : { body: req.body }),
    });
    text = await res.body.text();
    outcome = classify(res.statusCode, req.graphql === true, text);
  } catch (error) {
    outcome = `failed: ${(error as Error).message.slice(0, 40)}`;
  }
  const entry = results.get(req.kind) ?? { latencies: [], statuses: {} };
  entry.latencies.push(performance.now() - t0);
  entry.statuses[outcome] = (entry.statuses[outcome] ?? 0) + 1;
  if (outcome !== 'ok' && !entry.example) entry.example = `${outcome}: ${text.slice(0, 160) || '(no body)'}`;
  results.set(req.kind, entry);
}

function classify(status: number, graphql: boolean, text: string): string {
  if (status >= 500) return `${status}`;
  if (status === 429) return '429';
  if (status >= 400) return '4xx';
  if (graphql) {
    const { errors } = JSON.parse(text) as { errors?: Array<{ extensions?: { code?: string } }> };
    if (errors?.length) return `200+${errors[0]?.extensions?.code ?? 'error'}`;
  }
  return 'ok';
}

async function runPool(from: number, to: number, one: (i: number) => Promise<void>, width = CONCURRENCY) {
  let next = from;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < to) await one(next++);
    }),
  );
}

/** One row per kind, the floor first; p50 also as a multiple of the floor's. */
function kindRows(results: Results) {
  const floor = summarize(results.get(FLOOR.kind)?.latencies ?? []).p50;
  return [...results.entries()]
    .sort(([a], [b]) => (a === FLOOR.kind ? -1 : b === FLOOR.kind ? 1 : a.localeCompare(b)))
    .map(([kind, { latencies, statuses }]) => {
      const s = summarize(latencies);
      const outcomes = Object.entries(statuses)
        .sort(([, a], [, b]) => b - a)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      const row = { kind, n: String(s.n), 'p50 ms': s.p50, 'p99 ms': s.p99, 'max ms': s.max };
      return { ...row, 'p50 x floor': s.p50 / floor, outcomes };
    });
}

function sample(probe: HealthProbe, at: string, cacheBytes: () => number | undefined) {
  probe.pause();
  gc?.();
  gc?.();
  const m = process.memoryUsage();
  probe.resume();
  const mb = (x: number) => x / 1048576;
  const peak = /VmHWM:\s+(\d+) kB/.exec(readStatus())?.[1];
  const cache = cacheBytes();
  return {
    at,
    'heapUsed MB': mb(m.heapUsed),
    'of which cache MB': cache === undefined ? '-' : mb(cache),
    'rss MB': mb(m.rss),
    'external MB': mb(m.external),
    'arrayBuffers MB': mb(m.arrayBuffers),
    'peak rss MB': peak ? Number(peak) / 1024 : '-',
  };
}

/** Linux reports the peak resident set here; elsewhere the column shows '-'. */
function readStatus(): string {
  try {
    return readFileSync('/proc/self/status', 'utf8');
  } catch {
    return '';
  }
}

/** Last samples against the first after warm-up: flat memory keeps them within a few percent. */
function flatness(memory: Array<Record<string, string | number>>): string {
  const first = memory.find((m) => m.at === `${ROUND} requests`)!;
  const last = memory.slice(-3);
  const change = (key: string) => {
    const end = last.reduce((s, m) => s + Number(m[key]), 0) / last.length;
    const pct = (100 * (end - Number(first[key]))) / Number(first[key]);
    return `${pct >= 0 ? '+' : ''}${pct.toFixed(1)}%`;
  };
  return `last 3 samples against the one at ${first.at}: heapUsed ${change('heapUsed MB')}, rss ${change('rss MB')}`;
}

function probeRow(latencies: number[]) {
  const s = summarize(latencies);
  return { probes: String(s.n), 'p50 ms': s.p50, 'p99 ms': s.p99, 'max ms': s.max };
}

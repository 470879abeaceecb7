import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { bundledServer } from './bundled-server.ts';
import { load as baseLoad } from './http-load.ts';
import { summarize, table } from './stats.ts';

/**
 * Cost of the HTTP + GraphQL stack (routing, Yoga, envelop plugins including the rate limiter,
 * metrics) for a small query over loopback, measured two ways in the same run:
 *
 * - against a bare node:http server returning the same JSON body (same client, same concurrency,
 *   same number of requests), POST from 64 client addresses (as one trusted proxy reports them);
 * - against GET /healthz of the same process, POST and GET of the query, over 50 connections from
 *   64 client addresses, and over one connection from a single client (where per-client state, such
 *   as the rate limiter's call log, is busiest).
 *
 * The rate limit is raised so that the single client's whole run fits in one window without being
 * refused (a refusal would be a 429 and stop the run); the 64 clients stay far below either limit.
 */
const REQUESTS = 4_000;
const WARMUP = 500;
const CONCURRENCY = 16;
const MANY_CONNECTIONS = 50;
const CLIENTS = 64;
const RATE_LIMIT_MAX = 1_000_000;
const QUERY_TEXT = '{ serverInfo { name version databaseMode } }';
const QUERY = JSON.stringify({ query: QUERY_TEXT });

export async function run(): Promise<void> {
  // The server's code as `npm start` runs it (bundled-server.ts).
  const { buildApp, createDeps, modules, parseConfig } = await bundledServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const config = parseConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    TRUST_PROXY_HOPS: '1',
    RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
  });
  const app = buildApp(await createDeps(config), modules);
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });

  const body = JSON.stringify({
    data: { serverInfo: { name: 'vigil', version: '0.1.0', databaseMode: 'PGLITE' } },
  });
  const bare = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  try {
    await load(`${bareUrl}/graphql`, WARMUP);
    await load(`${url}/graphql`, WARMUP);
    const baseline = await load(`${bareUrl}/graphql`, REQUESTS);
    const vigil = await load(`${url}/graphql`, REQUESTS);
    const rows = [
      { server: 'node:http (baseline)', ...baseline },
      { server: 'vigil /graphql', ...vigil },
    ];
    process.stdout.write(`${table(rows)}\n`);
    process.stdout.write(
      `ratio vigil/baseline: throughput ${(vigil['req/s'] / baseline['req/s']).toFixed(2)}x, ` +
        `p50 latency ${(vigil['p50 ms'] / baseline['p50 ms']).toFixed(2)}x, p99 ${(vigil['p99 ms'] / baseline['p99 ms']).toFixed(2)}x\n`,
    );

    const cases = [
      {
        label: `${MANY_CONNECTIONS} connections, ${CLIENTS} clients`,
        connections: MANY_CONNECTIONS,
        clients: CLIENTS,
      },
      { label: '1 connection, 1 client', connections: 1, clients: 1 },
    ];
    for (const c of cases) {
      const measure = (request: Omit<Measured, 'connections' | 'clients'>, total: number) =>
        measureRequests({ ...request, connections: c.connections, clients: c.clients }, total);
      const healthz = { url: `${url}/healthz`, method: 'GET' } as const;
      const post = { url: `${url}/graphql`, method: 'POST', body: QUERY } as const;
      const get = { url: `${url}/graphql?query=${encodeURIComponent(QUERY_TEXT)}`, method: 'GET' } as const;
      for (const r of [healthz, post, get]) await measure(r, WARMUP);
      const health = await measure(healthz, REQUESTS);
      const measured = [
        { route: 'GET /healthz', ...health },
        { route: 'POST /graphql', ...(await measure(post, REQUESTS)) },
        { route: 'GET /graphql', ...(await measure(get, REQUESTS)) },
      ];
      const withRatio = measured.map((m) => ({
        ...m,
        'x healthz': m['req/s'] / health['req/s'],
      }));
      process.stdout.write(`\nagainst /healthz, ${c.label}:\n${table(withRatio)}\n`);
    }
  } finally {
    await new Promise<void>((resolve) => bare.close(() => resolve()));
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const load = (target: string, total: number) =>
  baseLoad(target, {
    total,
    concurrency: CONCURRENCY,
    body: QUERY,
    headers: (n) => ({ 'x-forwarded-for': `198.51.100.${n % CLIENTS}` }),
  });

interface Measured {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly body?: string;
  readonly connections: number;
  /** Client addresses the requests rotate over. */
  readonly clients: number;
}

/** `total` requests over `connections` connections (one in flight on each); throughput and latency. */
async function measureRequests(m: Measured, total: number) {
  const agent = new Agent({ connections: m.connections, pipelining: 1 });
  const headers = (n: number): Record<string, string> => ({
    'x-forwarded-for': `198.51.100.${n % m.clients}`,
    // JSON for the POST; the CSRF header a GET operation needs (harmless on /healthz).
    ...(m.body ? { 'content-type': 'application/json' } : { 'x-graphql-csrf': '1' }),
  });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: m.connections }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const res = await request(m.url, {
          method: m.method,
          dispatcher: agent,
          headers: headers(next),
          ...(m.body ? { body: m.body } : {}),
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${m.method} ${m.url} answered ${res.statusCode}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  const s = summarize(latencies);
  return { requests: s.n, 'req/s': s.n / seconds, 'p50 ms': s.p50, 'p99 ms': s.p99 };
}

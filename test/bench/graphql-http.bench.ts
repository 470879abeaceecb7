import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { summarize, table } from './stats.ts';

/**
 * Cost of the HTTP + GraphQL stack (routing, Yoga, envelop plugins including the rate limiter,
 * metrics) for a small query over loopback, against a bare node:http server returning the same
 * JSON body in the same run. Same client, same concurrency, same number of requests. Requests rotate
 * over 64 client addresses (as one trusted proxy reports them) so the default rate limit (300/min
 * per client) applies without being hit.
 */
const REQUESTS = 4_000;
const CONCURRENCY = 16;
const CLIENTS = 64;
const QUERY = JSON.stringify({ query: '{ serverInfo { name version databaseMode } }' });

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const config = parseConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, TRUST_PROXY_HOPS: '1' });
  const app = buildApp(await createDeps(config, modules), modules);
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
    await load(`${bareUrl}/graphql`, 500);
    await load(`${url}/graphql`, 500);
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
  } finally {
    await new Promise<void>((resolve) => bare.close(() => resolve()));
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function load(target: string, total: number) {
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const res = await request(target, {
          method: 'POST',
          dispatcher: agent,
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `198.51.100.${next % CLIENTS}` },
          body: QUERY,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${target} answered ${res.statusCode}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  const s = summarize(latencies);
  return { requests: s.n, 'req/s': s.n / seconds, 'p50 ms': s.p50, 'p99 ms': s.p99, 'max ms': s.max };
}

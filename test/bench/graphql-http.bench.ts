import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { load as baseLoad } from './http-load.ts';
import { table } from './stats.ts';

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

const load = (target: string, total: number) =>
  baseLoad(target, {
    total,
    concurrency: CONCURRENCY,
    body: QUERY,
    headers: (n) => ({ 'x-forwarded-for': `198.51.100.${n % CLIENTS}` }),
  });

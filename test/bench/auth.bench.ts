import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { AccessGate } from '../../src/platform/access/access-gate.ts';
import { Authenticator } from '../../src/platform/access/authenticator.ts';
import { LOCAL_OPERATOR } from '../../src/platform/access/principal.ts';
import { load as baseLoad } from './http-load.ts';
import { table } from './stats.ts';

/**
 * What an API key costs a request. In-process: verifying a cached key (the store's lookup) and the
 * whole gate (reading the headers, the address, the verification), against hashing the key once,
 * the least any verification must do, in the same run. Over HTTP: `/graphql` throughput with a key
 * against the same query without one, on the same server.
 */
const CALLS = 200_000;
const REQUESTS = 4_000;
const CONCURRENCY = 16;
const QUERY = JSON.stringify({ query: '{ serverInfo { name version } }' });

export async function run(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const config = parseConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000' });
  const app = buildApp(await createDeps(config), modules);
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  try {
    const { secret } = await app.deps.apiKeys.create({ name: 'bench', scopes: ['read'] }, LOCAL_OPERATOR);
    await app.deps.apiKeys.verify(secret);

    const hash = timePerCall(() => createHash('sha256').update(secret).digest());
    const verify = await timePerCallAsync(() => app.deps.apiKeys.verify(secret));
    const gate = new AccessGate(
      new Authenticator({
        required: true,
        verify: (s) => app.deps.apiKeys.verify(s),
        maxFailuresPerMinute: 30,
      }),
      0,
    );
    const headers = new Headers({ authorization: `Bearer ${secret}` });
    const gated = await timePerCallAsync(() => gate.http(headers, undefined));
    process.stdout.write(
      `${table([
        { step: 'sha256 of the key (baseline)', 'µs/call': hash },
        { step: 'verify a cached key', 'µs/call': verify },
        { step: 'gate: headers + address + verify', 'µs/call': gated },
      ])}\n`,
    );
    process.stdout.write(
      `ratio verify/sha256 ${(verify / hash).toFixed(2)}x, gate/sha256 ${(gated / hash).toFixed(2)}x\n\n`,
    );

    await load(`${url}/graphql`, 500, {});
    const anonymous = await load(`${url}/graphql`, REQUESTS, {});
    const keyed = await load(`${url}/graphql`, REQUESTS, { authorization: `Bearer ${secret}` });
    process.stdout.write(
      `${table([
        { caller: 'no key (baseline)', ...anonymous },
        { caller: 'Bearer key', ...keyed },
      ])}\n`,
    );
    process.stdout.write(
      `ratio key/no key: throughput ${(keyed['req/s'] / anonymous['req/s']).toFixed(2)}x, ` +
        `p50 ${(keyed['p50 ms'] / anonymous['p50 ms']).toFixed(2)}x\n`,
    );
  } finally {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function timePerCall(fn: () => unknown): number {
  for (let i = 0; i < 10_000; i++) fn();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) fn();
  return ((performance.now() - started) * 1000) / CALLS;
}

async function timePerCallAsync(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 10_000; i++) await fn();
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await fn();
  return ((performance.now() - started) * 1000) / CALLS;
}

const load = (target: string, total: number, headers: Record<string, string>) =>
  baseLoad(target, { total, concurrency: CONCURRENCY, body: QUERY, headers: () => headers });

import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';
import { BUNDLE } from '../support/bundle.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

/**
 * Logging never stalls the server: with stderr piped and never read (a stuck log collector), a
 * server that logs a lot keeps answering. Each HTTP request gets one access line (method, route
 * template, status, duration, client), never its path or query string.
 */
const root = new URL('../..', import.meta.url).pathname;
const running: ChildProcess[] = [];
const databases: TestDatabase[] = [];
let t: TestApp | undefined;

afterEach(async () => {
  for (const child of running.splice(0)) child.kill('SIGKILL');
  for (const database of databases.splice(0)) await database.cleanup();
  await t?.close();
  t = undefined;
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startVigil(env: Record<string, string>, readStderr: boolean) {
  const database = await createTestDatabase('pglite');
  databases.push(database);
  const port = await freePort();
  const child = spawn(process.execPath, [BUNDLE.main], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: database.dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  running.push(child);
  let stderr = '';
  if (readStderr) child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  // The port opens early (requests wait for the app); ready is when the app serves.
  while (!(await answers(`${url}/readyz`, 500))) {
    if (child.exitCode !== null) throw new Error(`vigil exited (${child.exitCode}) before it was ready`);
    if (Date.now() > deadline) throw new Error('vigil did not get ready');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url, child, stderr: () => stderr };
}

/** Whether the URL answers 200 within `ms` (a frozen server does not). */
async function answers(url: string, ms: number): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(ms) })).status === 200;
  } catch {
    return false;
  }
}

const query = (url: string) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ __typename }' }),
    signal: AbortSignal.timeout(2_000),
  }).catch(() => undefined);

describe('logging', () => {
  it('keeps the server answering, and stopping, when stderr is never read', async () => {
    // Debug logs write several lines per request (~0.5 KB): 600 requests are far beyond a pipe's ~64 KB.
    const { url, child } = await startVigil({ LOG_LEVEL: 'debug', LOG_BUFFER_BYTES: '65536' }, false);
    for (let round = 0; round < 30; round++) {
      await Promise.all(Array.from({ length: 20 }, () => query(url)));
    }
    expect(await answers(`${url}/healthz`, 5_000)).toBe(true);

    // The exit flush gives up on a stderr nobody reads instead of waiting forever.
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    const timeout = new Promise((resolve) => setTimeout(() => resolve('still running'), 15_000));
    expect(await Promise.race([exited, timeout])).toBe(0);
  });

  it('writes one access line per request without the path or query string', async () => {
    const vigil = await startVigil({ LOG_LEVEL: 'info' }, true);
    await fetch(`${vigil.url}/healthz?token=s3cret`);
    await fetch(`${vigil.url}/no/such/path-s3cret?x=1`);
    await query(vigil.url);
    const lines = async () =>
      vigil
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request');
    // Start-up readiness checks write lines too: wait for the last request's own line.
    await expect
      .poll(async () => (await lines()).some((l) => l.method === 'POST' && l.route === '/graphql'), {
        timeout: 10_000,
      })
      .toBe(true);
    const access = await lines();
    expect(access).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ level: 30, method: 'GET', route: '/healthz', status: 200 }),
        expect.objectContaining({ method: 'GET', route: '<unmatched>', status: 404 }),
        expect.objectContaining({ method: 'POST', route: '/graphql', status: 200 }),
      ]),
    );
    for (const line of access) {
      expect(line).toMatchObject({ ms: expect.any(Number), client: 'ip:127.0.0.1' });
    }
    expect(vigil.stderr()).not.toContain('s3cret');
  });

  it('logs a client error as an info access line, without an error line or a stack', async () => {
    const { app, lines } = await appWithCapturedLogs({});
    const answer = await app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"query": ',
    });
    expect(answer.status).toBe(400);
    expect(lines()).toEqual([
      expect.objectContaining({ level: 30, msg: 'request', route: '/graphql', status: 400 }),
    ]);
    expect(JSON.stringify(lines())).not.toContain('stack');
  });

  it('writes no access line when ACCESS_LOG is false', async () => {
    const { app, lines } = await appWithCapturedLogs({ ACCESS_LOG: 'false' });
    await app.fetch('/healthz');
    expect(lines()).toEqual([]);
  });
});

/** An in-process app whose logger writes to memory (info and above). */
async function appWithCapturedLogs(env: Record<string, string>) {
  const captured: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      captured.push(String(chunk));
      done();
    },
  });
  t = await createTestApp({ env, overrides: { logger: pino({ level: 'info' }, sink) } });
  const app = t.app;
  return {
    app,
    lines: () =>
      captured
        .flatMap((c) => c.split('\n'))
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE } from './support/bundle.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Running {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** What `npm start` runs (the bundle), in its own process with a clean environment (no DATABASE_URL). */
function startVigil(env: Record<string, string>, command = [process.execPath, BUNDLE.main]): Running {
  const [file, ...args] = command;
  const child = spawn(file!, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}

async function listeningUrl(running: Running): Promise<string> {
  for (;;) {
    const line = running
      .stderr()
      .split('\n')
      .find((l) => l.includes('"vigil is listening"'));
    if (line) return (JSON.parse(line) as { url: string }).url;
    const early = await Promise.race([running.exited, new Promise((r) => setTimeout(() => r('wait'), 50))]);
    if (early !== 'wait')
      throw new Error(`vigil exited (${String(early)}) before listening:\n${running.stderr()}`);
  }
}

describe('the vigil process', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.cleanup();
    database = undefined;
  });

  it('refuses to start on invalid settings, listing every problem (watchdog thresholds too) in one run', async () => {
    const running = startVigil({
      PORT: 'eighty',
      LOG_LEVEL: 'chatty',
      SESSION_RETENTION_DAYS: '0',
      WATCHDOG_THRESHOLDS: '{"price_anomaly":{"highMov":1,"criticalMove":0.01}}',
      WATCHDOG_INTERVALS: 'nope:60',
    });
    expect(await running.exited).toBe(1);
    const stderr = running.stderr();
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toContain('PORT: must be a number');
    expect(stderr).toContain('LOG_LEVEL:');
    expect(stderr).toContain('SESSION_RETENTION_DAYS: must be at least 1');
    expect(stderr).toContain('WATCHDOG_THRESHOLDS.price_anomaly.highMov: unknown');
    expect(stderr).toContain('WATCHDOG_THRESHOLDS.price_anomaly.criticalMove: must be above highMove (0.05)');
    expect(stderr).toContain('WATCHDOG_INTERVALS: nope:60 is not name:seconds');
    expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('finds a port in use before any slow work: one plain line naming PORT, no database created', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-port-'));
    try {
      const running = startVigil({ PORT: String(port), DATA_DIR: join(dataDir, 'data'), LOG_LEVEL: 'warn' });
      expect(await running.exited).toBe(1);
      expect(running.stderr()).toBe(
        `vigil could not start: port ${port} is already in use on 127.0.0.1: stop the process that listens on 127.0.0.1:${port}, or set PORT to a free port (PORT=0 picks one)\n`,
      );
      expect(existsSync(join(dataDir, 'data'))).toBe(false);
    } finally {
      taken.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('says at once that it creates a new embedded database, and logs each phase of the start', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'vigil-new-'));
    try {
      const running = startVigil({ PORT: '0', DATA_DIR: join(dataDir, 'data'), LOG_LEVEL: 'info' });
      await listeningUrl(running);
      const logs = running
        .stderr()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { msg: string; phase?: string; ms?: number });
      const messages = logs.map((l) => l.msg);
      const creating = messages.findIndex((m) =>
        /^creating the embedded database in .*data, first start only$/.test(m),
      );
      expect(creating).toBeGreaterThanOrEqual(0);
      expect(creating).toBeLessThan(messages.indexOf('start: database opened and migrated'));
      for (const phase of [
        'configuration read',
        'port open',
        'code loaded',
        'database opened and migrated',
        'app built',
        'ready',
      ]) {
        expect(logs.find((l) => l.phase === phase)?.ms).toBeGreaterThanOrEqual(0);
      }
      running.child.kill('SIGTERM');
      expect(await running.exited).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    // Creating a new embedded database takes seconds on a quiet machine and far more on a busy one.
  }, 120_000);

  it('starts on the embedded database, serves, and exits 0 on SIGTERM after a graceful stop', async () => {
    database = await createTestDatabase('pglite');
    const running = startVigil({ PORT: '0', DATA_DIR: database.dataDir, LOG_LEVEL: 'info' });
    const url = await listeningUrl(running);
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ serverInfo { databaseMode } }' }),
    });
    expect(await answer.json()).toEqual({ data: { serverInfo: { databaseMode: 'PGLITE' } } });

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const logs = running
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg: string });
    expect(logs.map((l) => l.msg)).toEqual(
      expect.arrayContaining(['signal received', 'shutting down', 'stopped']),
    );
  });

  it('`npm start` stops gracefully on a SIGTERM sent to npm itself: no server is left behind', async () => {
    database = await createTestDatabase('pglite');
    const running = startVigil({ PORT: '0', DATA_DIR: database.dataDir, LOG_LEVEL: 'info' }, [
      'npm',
      'start',
    ]);
    const url = await listeningUrl(running);
    // The start script execs the service: npm's only child is the server, with no shell between.
    const children = childrenOf(running.child.pid!);
    expect(children).toHaveLength(1);
    expect(commandOf(children[0]!)).toMatch(/^node .*launch\.mjs/);

    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(isAlive(children[0]!)).toBe(false);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    expect(running.stderr()).toContain('"msg":"stopped"');
  });

  it('ends an open SSE subscription at once on SIGTERM instead of waiting for the shutdown deadline', async () => {
    database = await createTestDatabase('pglite');
    const running = startVigil({
      PORT: '0',
      DATA_DIR: database.dataDir,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '30000',
    });
    const url = await listeningUrl(running);
    const stream = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { time(intervalMs: 200) }' }),
    });
    const reader = stream.body!.getReader();
    await reader.read();

    const signalled = Date.now();
    running.child.kill('SIGTERM');
    // The client reads the end of its stream, and the process exits long before the 30 s deadline.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {}
    expect(await running.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(running.stderr()).not.toContain('shutdown step did not finish in time');
  });
});

/** Process ids whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const text = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
  return text
    .split('\n')
    .map((line) => Number(line.trim()))
    .filter((n) => n > 0);
}

function commandOf(pid: number): string {
  return execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8' }).trim();
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

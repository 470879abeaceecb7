import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

interface Running {
  readonly child: ChildProcess;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/** What `npm start` runs, in its own process with a clean environment (no DATABASE_URL). */
function startVigil(env: Record<string, string>): Running {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
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

  it('refuses to start on invalid settings, listing every problem, and exits non-zero', async () => {
    const running = startVigil({ PORT: 'eighty', LOG_LEVEL: 'chatty', SESSION_RETENTION_DAYS: '0' });
    expect(await running.exited).toBe(1);
    const stderr = running.stderr();
    expect(stderr).toContain('Invalid configuration');
    expect(stderr).toContain('PORT: must be a number');
    expect(stderr).toContain('LOG_LEVEL:');
    expect(stderr).toContain('SESSION_RETENTION_DAYS: must be at least 1');
  });

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
    expect(await answer.json()).toEqual({ data: { serverInfo: { databaseMode: 'pglite' } } });

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
});

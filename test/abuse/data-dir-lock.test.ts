import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireDataDirLock, DataDirInUseError } from '../../src/platform/db/data-dir-lock.ts';
import { BUNDLE } from '../support/bundle.ts';

/**
 * The embedded database directory is held by a real lock: a pid file naming some unrelated live
 * process does not block a start, a live holder (in this process or another) refuses a second
 * opener, and a holder killed with SIGKILL leaves nothing that blocks the next start.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-lock-'));
  dirs.push(dir);
  return dir;
}

/** Another process that takes the lock and keeps it until it is killed. */
async function holderProcess(dir: string): Promise<ChildProcess> {
  const script = `
    import { acquireDataDirLock } from './src/platform/db/data-dir-lock.ts';
    await acquireDataDirLock(${JSON.stringify(dir)});
    process.stdout.write('held\\n');
    setInterval(() => {}, 60_000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('held')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the holder exited (${code}) before taking the lock`)));
  });
  return child;
}

describe('the embedded database directory lock', () => {
  it('is not blocked by a stale pid file naming a live unrelated process', async () => {
    const dir = tempDir();
    // Our parent (the test runner) is alive and is no Vigil holding this directory.
    writeFileSync(join(dir, 'vigil.pid'), String(process.ppid));
    const lock = await acquireDataDirLock(dir);
    await lock.release();
  });

  it('refuses a second opener in the same process, and is free again after release', async () => {
    const dir = tempDir();
    const first = await acquireDataDirLock(dir);
    await expect(acquireDataDirLock(dir)).rejects.toThrow(DataDirInUseError);
    await expect(acquireDataDirLock(dir)).rejects.toThrow(`in use by process ${process.pid}`);
    await first.release();
    const again = await acquireDataDirLock(dir);
    await again.release();
  });

  it('refuses an opener while another process holds it, and not after that process was killed', async () => {
    const dir = tempDir();
    const holder = await holderProcess(dir);
    await expect(acquireDataDirLock(dir)).rejects.toThrow(`in use by process ${holder.pid}`);

    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const lock = await acquireDataDirLock(dir);
    await expect(acquireDataDirLock(dir)).rejects.toThrow(DataDirInUseError);
    await lock.release();
  });

  it('lets exactly one of several simultaneous openers win over a crashed holder', async () => {
    const dir = tempDir();
    const holder = await holderProcess(dir);
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => acquireDataDirLock(dir)));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    expect(won).toHaveLength(1);
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual(
      Array(3).fill(expect.stringContaining('in use by process')),
    );
    await won[0]!.value.release();
  });
});

describe('a first start interrupted while it creates the embedded database', () => {
  it('leaves no half-made database: the next start creates it anew and serves', {
    timeout: 120_000,
  }, async () => {
    const dataDir = tempDir();
    const pgliteDir = join(dataDir, 'pglite');
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
    };
    // Its own process group, so that the kill reaches the child creating the database too (as a
    // terminal's Ctrl-C reaches every process of the foreground group).
    const first = spawn(process.execPath, [BUNDLE.main], { cwd: root, env, stdio: 'ignore', detached: true });
    children.push(first);
    await vi.waitFor(() => expect(readdirSync(pgliteDir)).toContain('.creating'), {
      timeout: 60_000,
      interval: 20,
    });
    process.kill(-first.pid!, 'SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    expect(existsSync(join(pgliteDir, 'PG_VERSION'))).toBe(false);

    const second = spawn(process.execPath, [BUNDLE.main], {
      cwd: root,
      env: { ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(second);
    let stderr = '';
    const url = await new Promise<string>((resolve, reject) => {
      second.stderr!.on('data', (chunk) => {
        stderr += String(chunk);
        const line = stderr.split('\n').find((l) => l.includes('"vigil is listening"'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      });
      second.once('exit', (code) => reject(new Error(`the second start exited (${code}):\n${stderr}`)));
    });
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ serverInfo { databaseMode } }' }),
    });
    expect(await answer.json()).toEqual({ data: { serverInfo: { databaseMode: 'PGLITE' } } });
    expect(readdirSync(pgliteDir)).not.toContain('.creating');
  });
});

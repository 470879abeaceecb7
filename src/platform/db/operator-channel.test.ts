import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../errors.ts';
import { acquireDataDirLock, type DataDirLock, dataDirLockAddress } from './data-dir-lock.ts';
import { askHolder, MAX_REQUEST_BYTES } from './operator-channel.ts';

describe.skipIf(process.platform === 'win32')('the operator channel on the data directory lock', () => {
  let dir: string;
  let lock: DataDirLock | undefined;
  afterEach(async () => {
    await lock?.release();
    lock = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  const held = async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-operator-'));
    lock = await acquireDataDirLock(dir);
    return { lock, address: dataDirLockAddress(dir) };
  };

  it('finds nobody when no process holds the directory', async () => {
    dir = mkdtempSync(join(tmpdir(), 'vigil-operator-'));
    expect(await askHolder(dataDirLockAddress(dir), 'apikey.list', {})).toBeUndefined();
  });

  it('runs a command on the holder and answers its value as JSON', async () => {
    const { lock, address } = await held();
    const calls: unknown[] = [];
    lock.channel.serve({
      'keys.list': async (args) => {
        calls.push(args);
        return [{ id: 'k1', at: new Date('2027-01-01T00:00:00Z') }];
      },
    });
    expect(await askHolder(address, 'keys.list', { all: true })).toEqual({
      ok: true,
      value: [{ id: 'k1', at: '2027-01-01T00:00:00.000Z' }],
    });
    expect(calls).toEqual([{ all: true }]);
  });

  it('answers coded failures with their code, message and details; other failures as INTERNAL', async () => {
    const { lock, address } = await held();
    lock.channel.serve({
      bad: async () => {
        throw new ValidationError('name', 'must not be empty');
      },
      gone: async () => {
        throw new NotFoundError('apiKey', 'x');
      },
      broken: async () => {
        throw new TypeError('secret internals');
      },
    });
    expect(await askHolder(address, 'bad', {})).toEqual({
      ok: false,
      error: { code: 'BAD_USER_INPUT', message: 'name: must not be empty', details: { field: 'name' } },
    });
    expect(await askHolder(address, 'gone', {})).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(await askHolder(address, 'broken', {})).toEqual({
      ok: false,
      error: { code: 'INTERNAL', message: 'the command failed on the server (see its log)' },
    });
    expect(await askHolder(address, 'nope', {})).toMatchObject({
      ok: false,
      error: { code: 'NOT_FOUND', message: 'unknown command "nope"' },
    });
  });

  it('keeps a request that arrives while the holder starts until it serves commands', async () => {
    const { lock, address } = await held();
    const answer = askHolder(address, 'ping', {});
    await new Promise((resolve) => setTimeout(resolve, 50));
    lock.channel.serve({ ping: async () => 'pong' });
    expect(await answer).toEqual({ ok: true, value: 'pong' });
  });

  it('refuses an oversized request and lets a silent client go', async () => {
    const { lock, address } = await held();
    lock.channel.serve({});
    const reply = await new Promise<string>((resolve) => {
      const socket = connect(address);
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.write('x'.repeat(MAX_REQUEST_BYTES + 10));
    });
    const [pid, answer] = reply.trim().split('\n');
    expect(Number(pid)).toBe(process.pid);
    expect(JSON.parse(answer!)).toMatchObject({ ok: false, error: { code: 'BAD_USER_INPUT' } });
  });

  it('lets only its owner connect', async () => {
    const { address } = await held();
    expect(statSync(address).mode & 0o777).toBe(0o600);
  });
});

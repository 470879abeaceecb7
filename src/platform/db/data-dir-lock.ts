import { createHash } from 'node:crypto';
import { chmodSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { join, relative, resolve } from 'node:path';
import { OperatorChannel } from './operator-channel.ts';

/**
 * PGlite is a single-process database: two processes writing one data directory corrupt it.
 *
 * The lock is a local socket listening at `vigil.lock` in the directory: binding it is exclusive,
 * and the operating system drops the listener when its process ends, however it ends. A socket
 * file nobody answers on is left by a crashed process and is taken over; a live holder answers a
 * connection with its pid, for the error message. A pid file could not tell a crashed holder from
 * an unrelated process that was later given the same pid. On Windows the socket is a named pipe,
 * which has no file to leave behind.
 */
export interface DataDirLock {
  /** The commands the lock's socket answers for the local operator (see operator-channel.ts). */
  readonly channel: OperatorChannel;
  release(): Promise<void>;
}

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number | undefined,
  ) {
    super(
      `The embedded database directory ${dir} is in use by ${pid ? `process ${pid}` : 'another process'}. ` +
        'Stop that process, use another DATA_DIR, or set DATABASE_URL to share a Postgres server.',
    );
    this.name = 'DataDirInUseError';
  }
}

const LOCK_FILE = 'vigil.lock';
/** Held (exclusive create) while a stale socket file is replaced, so two openers never both do it. */
const TAKEOVER_FILE = 'vigil.lock.takeover';
/** Left by earlier versions; meaningless once the socket lock is held. */
const LEGACY_PID_FILE = 'vigil.pid';
const PROBE_TIMEOUT_MS = 2_000;
/** A takeover takes milliseconds; a marker this old was left by a process that died during one. */
const ABANDONED_TAKEOVER_MS = 10_000;
const ATTEMPTS = 20;
const RETRY_DELAY_MS = 100;
/** Unix socket paths are limited to ~104 bytes (macOS) / 108 (Linux). */
const MAX_SOCKET_PATH = 100;

export async function acquireDataDirLock(dir: string): Promise<DataDirLock> {
  const address = dataDirLockAddress(dir);
  const channel = new OperatorChannel();
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const server = await listen(address, channel);
    if (server) return held(dir, address, server, channel);
    const holder = await probe(address);
    if (holder.live) throw new DataDirInUseError(dir, holder.pid);
    if (process.platform === 'win32') continue;
    const taken = await takeOver(dir, address, channel);
    if (taken) return held(dir, address, taken, channel);
    await delay(RETRY_DELAY_MS);
  }
  throw new Error(`could not lock the embedded database directory ${dir}`);
}

function held(dir: string, address: string, server: Server, channel: OperatorChannel): DataDirLock {
  server.unref();
  // Owner only: connecting to a Unix socket needs write access to its file.
  if (process.platform !== 'win32') chmodSync(address, 0o600);
  rmSync(join(dir, LEGACY_PID_FILE), { force: true });
  let released: Promise<void> | undefined;
  return {
    channel,
    release() {
      channel.close();
      // Closing a listening socket also removes its file.
      released ??= new Promise<void>((done) => server.close(() => done()));
      return released;
    },
  };
}

/** Replaces a socket file nobody answers on, re-checked and bound while holding the takeover marker. */
async function takeOver(dir: string, address: string, channel: OperatorChannel): Promise<Server | undefined> {
  const marker = join(dir, TAKEOVER_FILE);
  try {
    writeFileSync(marker, String(process.pid), { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (Date.now() - mtimeMs(marker) > ABANDONED_TAKEOVER_MS) rmSync(marker, { force: true });
    return undefined;
  }
  try {
    if ((await probe(address)).live) return undefined;
    rmSync(address, { force: true });
    return await listen(address, channel);
  } finally {
    rmSync(marker, { force: true });
  }
}

/** Where the lock of the data directory `dir` listens (its operator channel too). */
export function dataDirLockAddress(dir: string): string {
  if (process.platform === 'win32') {
    const digest = createHash('sha256').update(resolve(dir).toLowerCase()).digest('hex').slice(0, 32);
    return `\\\\?\\pipe\\vigil-${digest}`;
  }
  const absolute = resolve(dir, LOCK_FILE);
  if (Buffer.byteLength(absolute) <= MAX_SOCKET_PATH) return absolute;
  const fromHere = relative(process.cwd(), absolute);
  if (Buffer.byteLength(fromHere) <= MAX_SOCKET_PATH) return fromHere;
  throw new Error(
    `The embedded database directory ${dir} has too long a path for its lock (at most ${MAX_SOCKET_PATH - LOCK_FILE.length - 1} bytes); use a shorter DATA_DIR.`,
  );
}

/** A listening lock server, or undefined when the address is taken. */
function listen(address: string, channel: OperatorChannel): Promise<Server | undefined> {
  const server = createServer(channel.onConnection);
  return new Promise((done, fail) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') done(undefined);
      else fail(error);
    });
    server.listen(address, () => {
      server.removeAllListeners('error');
      server.on('error', () => {});
      done(server);
    });
  });
}

interface Holder {
  readonly live: boolean;
  readonly pid?: number;
}

/**
 * Connects to the lock: refused or absent means no live holder; anything else counts as held. The
 * holder greets with its pid line (then waits for an operator command, which a probe never sends).
 */
function probe(address: string): Promise<Holder> {
  return new Promise((done) => {
    const socket = createConnection(address);
    let answer = '';
    let connected = false;
    const finish = (holder: Holder) => {
      clearTimeout(timer);
      socket.destroy();
      done(holder);
    };
    const timer = setTimeout(() => finish({ live: true }), PROBE_TIMEOUT_MS);
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      connected = true;
    });
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\n')) {
        const pid = Number.parseInt(answer, 10);
        finish(Number.isInteger(pid) && pid > 0 ? { live: true, pid } : { live: true });
      }
    });
    socket.on('end', () => {
      const pid = Number.parseInt(answer, 10);
      finish(Number.isInteger(pid) && pid > 0 ? { live: true, pid } : { live: true });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const gone = !connected && (error.code === 'ECONNREFUSED' || error.code === 'ENOENT');
      finish({ live: !gone });
    });
  });
}

function mtimeMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return Date.now();
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import WebSocket from 'ws';

/**
 * Headless Chromium (the distribution's package) driven over the Chrome DevTools Protocol with the
 * `ws` client: enough to load a page, read and click it, and take a screenshot, without a browser
 * automation dependency.
 */

/** `CHROMIUM_BIN`, else `chromium` or `chromium-browser` on the PATH. */
export function findChromium(): string | undefined {
  if (process.env.CHROMIUM_BIN) return process.env.CHROMIUM_BIN;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      const path = join(dir, name);
      try {
        accessSync(path, constants.X_OK);
        return path;
      } catch {}
    }
  }
  return undefined;
}

export interface CdpEvent {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly sessionId?: string;
}

export interface Browser {
  /** Sends a command (to a page when `sessionId` is given) and resolves with its result. */
  send<T = Record<string, unknown>>(method: string, params?: object, sessionId?: string): Promise<T>;
  /** Every event, from the browser and from attached pages. */
  onEvent(listener: (event: CdpEvent) => void): void;
  /** Opens a tab and attaches to it; the returned session id addresses its commands. */
  newPage(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts Chromium with no network but loopback: every host name but 127.0.0.1 fails to resolve and
 * every proxied request goes to a closed port, so a page that tried another host fails visibly.
 */
export async function launchChromium(binary: string): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'vigil-chromium-'));
  const args = [
    '--headless=new',
    '--remote-debugging-port=0',
    `--user-data-dir=${profile}`,
    '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    '--proxy-server=127.0.0.1:9',
    '--proxy-bypass-list=127.0.0.1',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-extensions',
    '--disable-dev-shm-usage',
    '--disable-gpu',
    '--mute-audio',
    '--window-size=1440,900',
    // Chromium refuses to start its sandbox as root (containers, CI runners).
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    'about:blank',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  // A test process that ends without closing the browser (a crash, a killed worker) takes it along.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let endpoint: string;
  try {
    endpoint = await devtoolsUrl(child);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true });
    throw error;
  }
  const socket = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });

  let nextId = 1;
  const pending = new Map<number, { resolve: (value: never) => void; reject: (error: Error) => void }>();
  const listeners: Array<(event: CdpEvent) => void> = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as {
      id?: number;
      result?: unknown;
      error?: { message: string };
    } & Partial<CdpEvent>;
    if (message.id !== undefined) {
      const waiter = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiter?.reject(new Error(`CDP: ${message.error.message}`));
      else waiter?.resolve(message.result as never);
      return;
    }
    if (message.method) for (const listener of listeners) listener(message as CdpEvent);
  });
  socket.on('close', () => {
    for (const waiter of pending.values()) waiter.reject(new Error('the browser closed its DevTools socket'));
    pending.clear();
  });

  const send = <T>(method: string, params: object = {}, sessionId?: string) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve: resolve as (value: never) => void, reject });
      socket.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });

  return {
    send,
    onEvent: (listener) => listeners.push(listener),
    async newPage() {
      const { targetId } = await send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
      const { sessionId } = await send<{ sessionId: string }>('Target.attachToTarget', {
        targetId,
        flatten: true,
      });
      return sessionId;
    },
    async close() {
      await send('Browser.close').catch(() => {});
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      socket.terminate();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Chromium prints its DevTools endpoint on stderr once it listens. */
function devtoolsUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error('Chromium printed no DevTools URL within 30 s')), 30_000);
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-8192);
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(seen);
      if (match) done(match[1]!);
    };
    const onExit = (code: number | null) =>
      fail(new Error(`Chromium exited (${code}) before listening: ${seen.trim().slice(-2000)}`));
    const cleanup = () => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining stderr so the browser never blocks on a full pipe.
      child.stderr?.resume();
    };
    const done = (url: string) => {
      cleanup();
      resolve(url);
    };
    const fail = (error: Error) => {
      cleanup();
      reject(error);
    };
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', (error) => fail(error));
  });
}

/**
 * Evaluates `expression` in the page until it returns a truthy value, and resolves with that value;
 * rejects after `timeoutMs` naming what it waited for, with the last value seen.
 */
export async function waitInPage<T>(
  browser: Browser,
  sessionId: string,
  what: string,
  expression: string,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const { result, exceptionDetails } = await browser.send<{
      result: { value?: unknown };
      exceptionDetails?: { text: string };
    }>('Runtime.evaluate', { expression, returnByValue: true }, sessionId);
    last = exceptionDetails ? exceptionDetails.text : result.value;
    if (!exceptionDetails && result.value) return result.value as T;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

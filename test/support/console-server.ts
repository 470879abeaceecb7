/**
 * The server side of the console's browser tests: the built bundle spawned on a copy of the
 * embedded database template (as `npm start` runs it), the API key CLI, GraphQL over HTTP, and a
 * local webhook receiver.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { BUNDLE } from './bundle.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

export interface VigilServer {
  readonly url: string;
  readonly dataDir: string;
  /** Everything the process wrote on stderr (its JSON log lines). */
  stderr(): string;
  /** Stops the process (the data stays) and starts it again on the same port, as an operator would. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The bundle on a copy of the migrated PGlite template, on a free port. `before` runs against the
 * data directory before the server opens it (PGlite allows one process at a time), for set-up
 * through the CLIs.
 */
export async function startVigil(
  env: Record<string, string>,
  before?: (dataDir: string) => Promise<void>,
): Promise<VigilServer> {
  const database: TestDatabase = await createTestDatabase('pglite');
  try {
    await before?.(database.dataDir);
  } catch (error) {
    await database.cleanup();
    throw error;
  }
  let stderr = '';
  const spawnOn = (port: string): ChildProcess => {
    const process_ = spawn(process.execPath, [BUNDLE.main], {
      cwd: ROOT,
      env: { ...baseEnv(), PORT: port, DATA_DIR: database.dataDir, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    process_.stderr!.on('data', (chunk) => {
      stderr = (stderr + String(chunk)).slice(-1_000_000);
    });
    return process_;
  };
  let child = spawnOn('0');
  const stop = async () => {
    await stopChild(child);
    await database.cleanup();
  };
  try {
    const url = await listeningUrl(child, () => stderr);
    const restart = async () => {
      await stopChild(child);
      stderr = '';
      child = spawnOn(new URL(url).port);
      await listeningUrl(child, () => stderr);
    };
    return { url, dataDir: database.dataDir, stderr: () => stderr, restart, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A clean environment: no DATABASE_URL or other settings of the shell that runs the tests. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
}

function listeningUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const look = () => {
      const line = stderr()
        .split('\n')
        .find((l) => l.includes('"vigil is listening"'));
      if (!line) return;
      child.stderr!.off('data', look);
      resolve((JSON.parse(line) as { url: string }).url);
    };
    child.stderr!.on('data', look);
    child.once('exit', (code) => reject(new Error(`vigil exited (${code}) before listening:\n${stderr()}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Creates an API key with the CLI (`npm run apikey -- create`) and returns its secret. */
export async function createKeyWithCli(dataDir: string, name: string, scopes: string[]): Promise<string> {
  const args = [BUNDLE.apikey, 'create', '--name', name, ...scopes.flatMap((s) => ['--scope', s]), '--json'];
  const { stdout } = await run(process.execPath, args, {
    cwd: ROOT,
    env: { ...baseEnv(), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  });
  return (JSON.parse(stdout) as { secret: string }).secret;
}

/** A GraphQL operation over HTTP, as any client sends it. */
export async function graphql<T>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  apiKey?: string,
): Promise<{ status: number; data?: T; errors?: { message: string }[] }> {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: { message: string }[] };
  return { status: response.status, ...body };
}

// ---------------------------------------------------------------------------------------------
// The webhook receiver

export interface ReceivedPost {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface WebhookReceiver {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  readonly posts: ReceivedPost[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const posts: ReceivedPost[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += String(chunk);
    });
    req.on('end', () => {
      if (req.method === 'POST') posts.push({ path: req.url ?? '', headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

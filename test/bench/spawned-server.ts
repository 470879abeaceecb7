import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The repository root: benchmarks that start the server run its commands from here. */
export const root = fileURLToPath(new URL('../..', import.meta.url));
/** What `npm start` runs. */
export const LAUNCH = ['src/cli/launch.mjs'];

export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly port: number;
  /** Milliseconds from spawn to the first 200 from /readyz. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/**
 * Starts `node <args>` on a free port and waits (up to 60 s) for /readyz to answer 200. The server
 * runs on the embedded database unless `env` names a DATABASE_URL.
 */
export async function spawnServer(
  args: readonly string[],
  env: Record<string, string>,
): Promise<SpawnedServer> {
  const port = await freePort();
  const started = performance.now();
  // The database is the caller's choice: a DATABASE_URL the benchmark itself runs with is not passed on.
  const { DATABASE_URL: _, ...inherited } = process.env;
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...inherited, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = () => stopChild(child);
  try {
    const deadline = started + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      if (performance.now() > deadline) throw new Error('the server was not ready within 60 s');
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { child, port, readyMs: performance.now() - started, stop };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A graceful stop (SIGTERM), resolved when the process has exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

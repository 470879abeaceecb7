import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * Postgres settings for the embedded database, appended to PGlite's own start parameters.
 * shared_buffers: Postgres touches its whole buffer pool when it starts, so the default (128 MB) is
 * resident from the first second. Vigil's embedded data is small and its files stay in the system's
 * cache below PGlite: 16 MB ran inserts, lookups and aggregates as fast and saves ~115 MB.
 */
export const PGLITE_SETTINGS: readonly string[] = ['-c', 'shared_buffers=16MB'];

const INIT_TIMEOUT_MS = 120_000;

/**
 * Creates a new PGlite data directory in a short-lived child process. PGlite runs initdb in a second,
 * throwaway instance plus the initdb WebAssembly module; inside the server their memories (~450 MB
 * resident) stay until a full garbage collection that an idle server may never run. A child returns
 * all of it to the system when it exits. Does nothing when the directory already holds a database.
 */
export async function initPgliteDir(dir: string): Promise<void> {
  if (existsSync(join(dir, 'PG_VERSION'))) return;
  // The CommonJS entry, so the child needs no module resolution of its own.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script =
    'require(process.argv[1]).PGlite.create(process.argv[2]).then((pg) => pg.close(), (error) => {' +
    ' process.stderr.write(String(error?.message ?? error)); process.exitCode = 1; })';
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, entry, dir],
      { timeout: INIT_TIMEOUT_MS, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 1 << 20 },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        const detail = stderr.trim().slice(0, 500);
        reject(new Error(`could not create the embedded database in ${dir}: ${detail || error.message}`));
      },
    );
  });
}

import { execFile } from 'node:child_process';
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';

/**
 * Postgres settings for the embedded database, appended to PGlite's own start parameters.
 * shared_buffers: Postgres touches its whole buffer pool when it starts, so the default (128 MB) is
 * resident from the first second. Vigil's embedded data is small and its files stay in the system's
 * cache below PGlite: 16 MB ran inserts, lookups and aggregates as fast and saves ~115 MB.
 */
export const PGLITE_SETTINGS: readonly string[] = ['-c', 'shared_buffers=16MB'];

const INIT_TIMEOUT_MS = 120_000;

/** Where a new database is created before it is moved into the data directory. */
const STAGING = '.creating';
/** The file that makes a directory a database (see isPgliteDir). */
const VERSION_FILE = 'PG_VERSION';
/** The lock of the directory (data-dir-lock.ts), held by this process while it creates. */
const KEPT = new Set(['vigil.lock', 'vigil.lock.takeover']);

/**
 * Lets V8 optimise PGlite's WebAssembly one function at a time. V8 first runs the module's functions
 * as baseline code and recompiles the hot ones with its optimising compiler in the background, by
 * default on as many threads at once as it has workers. A compile of one of Postgres's large
 * functions (expression evaluation, planning) works in tens of MB, and each worker thread's
 * allocator keeps its own peak after it: with one compile at a time the idle server measured 268-290
 * MB against 300-312 MB (existing data directory, three runs each). The optimised code is the same;
 * it only arrives a little later. The setting is V8's and so process-wide, and it concerns only
 * WebAssembly compilation; call it before the first PGlite instance of the process is created.
 */
export function serializeWasmOptimization(): void {
  setFlagsFromString('--wasm-num-compilation-tasks=1');
}

/** Whether `dir` already holds a database (else opening it creates one, which takes seconds). */
export function isPgliteDir(dir: string): boolean {
  return existsSync(join(dir, VERSION_FILE));
}

/**
 * For a process that runs a few statements and exits (a command line): PGlite's WebAssembly runs
 * as V8's baseline code only. Optimising Postgres's large functions costs more CPU than such a
 * process ever saves, and the exit waits for optimisations still compiling: `npm run apikey` on the
 * embedded database took 1.2-1.4 s of which ~0.3 s idle at exit, and takes 0.7-0.8 s this way.
 * Process-wide, like serializeWasmOptimization; call it before the first PGlite instance.
 */
export function baselineWasmOnly(): void {
  setFlagsFromString('--liftoff-only');
}

/**
 * Creates a new PGlite data directory in a short-lived child process. PGlite runs initdb in a
 * second, throwaway instance plus the initdb WebAssembly module; inside the server their memories
 * (~450 MB resident) stay until a full garbage collection that an idle server may never run. A
 * child returns all of it to the system when it exits. The database is made in a staging folder
 * and moved into place once complete (PG_VERSION last): a start interrupted during the creation
 * (Ctrl-C reaches the child too) leaves no half-made database, and the next start makes it anew.
 * Does nothing when the directory already holds a database.
 */
export async function initPgliteDir(dir: string): Promise<void> {
  if (isPgliteDir(dir)) return;
  const failed = (detail: string) => new Error(`could not create the embedded database in ${dir}: ${detail}`);
  const staging = join(dir, STAGING);
  try {
    // What an interrupted creation left (no PG_VERSION: it never finished) goes first.
    clearLeftovers(dir);
  } catch (error) {
    throw failed((error as Error).message);
  }
  // The CommonJS entry, so the child needs no module resolution of its own.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const script =
    'require(process.argv[1]).PGlite.create(process.argv[2]).then((pg) => pg.close(), (error) => {' +
    ' process.stderr.write(String(error?.message ?? error)); process.exitCode = 1; })';
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['-e', script, entry, staging],
      { timeout: INIT_TIMEOUT_MS, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 1 << 20 },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        reject(failed(stderr.trim().slice(0, 500) || error.message));
      },
    );
  });
  // Moved into place with PG_VERSION last: a directory is a database only once all of it is there.
  try {
    const names = readdirSync(staging).sort(
      (a, b) => Number(a === VERSION_FILE) - Number(b === VERSION_FILE),
    );
    for (const name of names) renameSync(join(staging, name), join(dir, name));
    rmSync(staging, { recursive: true, force: true });
  } catch (error) {
    throw failed((error as Error).message);
  }
}

function clearLeftovers(dir: string): void {
  for (const name of readdirSync(dir)) {
    if (!KEPT.has(name)) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

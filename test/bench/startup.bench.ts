import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFreshBundle } from '../support/bundle.ts';
import { withFreshDatabase } from '../support/postgres-database.ts';
import { freePort, LAUNCH, root, stopChild } from './spawned-server.ts';
import { summarize, table } from './stats.ts';

/**
 * Start time and start CPU, each beside a floor measured in the same run, so that the figures
 * read the same on a busy machine and a quiet one:
 *
 * - `node -e ""`: starting Node itself;
 * - loading the bundle: importing dist/runtime.js (every module the server loads before it is
 *   ready), against `node -e ""`;
 * - a bare PGlite (`PGlite.create` in a plain script) opening the same data directory, and
 *   creating a new one: the embedded database's own cost, which the server cannot go below;
 * - `npm start`'s command (the launcher running the bundle), from spawn to the first 200 from
 *   /readyz: on a new embedded data directory, on an existing one, and on a migrated Postgres
 *   database when DATABASE_URL is set.
 *
 * CPU is the process's user and system time (every thread) when it is ready, read from /proc on
 * Linux. Goals (issue 25): existing directory within 2x the bare open in wall time and CPU; new
 * directory within 2x of the bare creation; Postgres ready on at most 1.0 s of CPU; the bundle
 * loads on under 0.5 s of CPU.
 */
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}
type Row = Record<string, string | number>;

export async function run(): Promise<void> {
  // What npm start runs is the bundle: build it when src/ is newer (the launcher would run the sources).
  ensureFreshBundle();
  if (!existsSync('/proc/self/stat')) {
    process.stdout.write('the start benchmark reads CPU time from /proc (Linux only)\n');
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'vigil-bench-start-'));
  const rows: Row[] = [];
  const verdicts: string[] = [];
  try {
    const node = await repeat(() => script(''));
    rows.push(row('node -e ""', node));
    const load = await repeat(() =>
      script(`await import(${JSON.stringify(join(root, 'dist', 'runtime.js'))});`),
    );
    rows.push(row('load the bundle (dist/runtime.js)', load, node, 'node -e ""'));
    verdicts.push(goal('the bundle loads on under 0.5 s of CPU', p50(load, 'cpuMs') < 500));

    // New directories: each run creates its own.
    let n = 0;
    const fresh = () => join(work, `new-${n++}`);
    const bareCreate = await repeat(() => barePglite(fresh()), Math.min(RUNS, 3));
    rows.push(row('bare PGlite: create a new data directory', bareCreate));
    const newDir = await repeat(() => serverReady({ DATA_DIR: fresh() }), Math.min(RUNS, 3));
    rows.push(row('npm start, new embedded data directory', newDir, bareCreate, 'bare create'));
    verdicts.push(
      goal('new directory within 2x of the bare creation', within(newDir, bareCreate, 2, 'wallMs')),
    );

    const existing = join(work, 'existing');
    await serverReady({ DATA_DIR: existing }); // creates and migrates it
    const bareOpen = await repeat(() => barePglite(join(existing, 'pglite')));
    rows.push(row('bare PGlite: open an existing data directory', bareOpen));
    const warm = await repeat(() => serverReady({ DATA_DIR: existing }));
    rows.push(row('npm start, existing embedded data directory', warm, bareOpen, 'bare open'));
    verdicts.push(
      goal(
        'existing directory within 2x the bare open (wall and CPU)',
        within(warm, bareOpen, 2, 'wallMs') && within(warm, bareOpen, 2, 'cpuMs'),
      ),
    );

    const serverUrl = process.env.DATABASE_URL;
    if (serverUrl) {
      await withFreshDatabase(serverUrl, 'vigil_bench_start', async (url) => {
        const env = { DATA_DIR: existing, DATABASE_URL: url };
        await serverReady(env); // migrates
        const postgres = await repeat(() => serverReady(env));
        rows.push(row('npm start, Postgres (migrated)', postgres, node, 'node -e ""'));
        verdicts.push(goal('Postgres ready on at most 1.0 s of CPU', p50(postgres, 'cpuMs') <= 1_000));
      });
    } else {
      verdicts.push('Postgres: skipped (DATABASE_URL is not set)');
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(
    `p50 of ${RUNS} runs (3 for new directories); CPU = user + system time of the process, every thread\n`,
  );
  for (const verdict of verdicts) process.stdout.write(`${verdict}\n`);
}

function row(label: string, samples: readonly Sample[], floor?: readonly Sample[], floorName = ''): Row {
  const wall = p50(samples, 'wallMs');
  const cpu = p50(samples, 'cpuMs');
  return {
    measure: label,
    'wall ms': Math.round(wall),
    'CPU ms': Math.round(cpu),
    floor: floorName || '-',
    'wall / floor': floor ? `${(wall / p50(floor, 'wallMs')).toFixed(2)}x` : '-',
    'CPU / floor': floor ? `${(cpu / p50(floor, 'cpuMs')).toFixed(2)}x` : '-',
  };
}

function p50(samples: readonly Sample[], key: keyof Sample): number {
  return summarize(samples.map((s) => s[key])).p50;
}

function within(samples: readonly Sample[], floor: readonly Sample[], ratio: number, key: keyof Sample) {
  return p50(samples, key) <= ratio * p50(floor, key);
}

function goal(text: string, met: boolean): string {
  return `${met ? 'met' : 'NOT met'}: ${text}`;
}

async function repeat(measure: () => Promise<Sample>, runs = RUNS): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    const sample = await measure();
    process.stderr.write(`  ${Math.round(sample.wallMs)} ms, CPU ${Math.round(sample.cpuMs)} ms\n`);
    samples.push(sample);
  }
  return samples;
}

/**
 * CPU milliseconds a live process has used so far, every thread, with the children it has waited
 * for (the one that creates a new embedded database) (Linux).
 */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/**
 * A module script in a fresh Node: wall from spawn to exit, CPU as the script reports it at its end
 * (or when it set `used` to a `process.cpuUsage()` of its own).
 */
function script(source: string): Promise<Sample> {
  const code = `let used;\n${source}\nconst u = used ?? process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000));`;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += String(chunk);
    });
    child.once('error', reject);
    child.once('exit', (status) => {
      if (status !== 0) return reject(new Error(`the script exited with ${status}`));
      resolve({ wallMs: performance.now() - started, cpuMs: Number(out) });
    });
  });
}

/** PGlite as a plain script would use it: create or open `dir`, answer one query, report. */
function barePglite(dir: string): Promise<Sample> {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  return script(
    `const { PGlite } = await import(${JSON.stringify(entry)});\n` +
      `const pg = await PGlite.create(${JSON.stringify(dir)}); await pg.query('select 1');\n` +
      // CPU is read before the close (the server's is read when it is ready); a directory left
      // unclosed would make the next open recover it.
      `used = process.cpuUsage(); await pg.close();`,
  );
}

/** `npm start`'s command on a free port until the first 200 from /readyz; then a graceful stop. */
async function serverReady(env: Record<string, string>): Promise<Sample> {
  const port = await freePort();
  const { DATABASE_URL: _, ...inherited } = process.env;
  const started = performance.now();
  const child = spawn(process.execPath, LAUNCH, {
    cwd: root,
    env: { ...inherited, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const deadline = started + 120_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
      if (performance.now() > deadline) throw new Error('the server was not ready within 120 s');
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) return { wallMs: performance.now() - started, cpuMs: cpuOf(child.pid!) };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    await stopChild(child);
  }
}

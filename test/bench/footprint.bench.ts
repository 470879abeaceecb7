import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFreshDatabase } from '../support/postgres-database.ts';
import { LAUNCH, root, spawnServer } from './spawned-server.ts';
import { summarize, table } from './stats.ts';

/**
 * Memory and CPU at idle: the resident set of the `npm start` process (the bundle npm install built) once
 * /readyz answers and it has idled `FOOTPRINT_IDLE_SECONDS` (default 30; the simulated market,
 * watchdogs and job polling keep running), and its peak since spawn. On the embedded database with
 * a new and an existing data directory and, when DATABASE_URL is set, on Postgres. Peers measured in
 * the same run: Postgres mode (the same server without the database in its process) and a bare
 * node:http server (the runtime's own floor). The idle figure is the median of one reading a second
 * over the last ten seconds, so a collection that happens to run at the end does not decide it; the
 * idle CPU is the process's CPU time per second from five seconds after it answered on (what the
 * simulated market, the watchdogs and job polling cost with no client). Goal: under 300 MB on the embedded database.
 */
const IDLE_SECONDS = Number(process.env.FOOTPRINT_IDLE_SECONDS ?? 30);
const SAMPLED_SECONDS = Math.min(10, IDLE_SECONDS);
const BARE = [
  '-e',
  "require('node:http').createServer((q, s) => s.end('ok')).listen(+process.env.PORT, '127.0.0.1')",
];

interface Reading {
  readonly 'idle RSS MB': number;
  readonly 'peak RSS MB': number;
  readonly 'idle CPU ms/s': number;
}

export async function run(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'main.js'))) {
    process.stdout.write('no bundle in dist/: run `npm run build` first\n');
    return;
  }
  const rows: Array<Record<string, string | number>> = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-footprint-'));
  try {
    const bare = await measure(BARE, {});
    rows.push({ server: 'bare node:http (floor)', ...bare });
    const fresh = await measure(LAUNCH, { DATA_DIR: dataDir });
    rows.push({ server: 'vigil, embedded, new data directory', ...fresh });
    const existing = await measure(LAUNCH, { DATA_DIR: dataDir });
    rows.push({ server: 'vigil, embedded, existing data directory', ...existing });
    const serverUrl = process.env.DATABASE_URL;
    let onPostgres: Reading | undefined;
    if (serverUrl) {
      onPostgres = await withFreshDatabase(serverUrl, 'vigil_bench_footprint', (url) =>
        measure(LAUNCH, { DATA_DIR: dataDir, DATABASE_URL: url }),
      );
      rows.push({ server: 'vigil, Postgres', ...onPostgres });
    } else {
      rows.push({
        server: 'vigil, Postgres (set DATABASE_URL)',
        'idle RSS MB': '-',
        'peak RSS MB': '-',
        'idle CPU ms/s': '-',
      });
    }
    process.stdout.write(`${table(rows)}\n`);
    const embedded = Math.max(fresh['idle RSS MB'], existing['idle RSS MB']);
    process.stdout.write(
      `embedded at idle: ${embedded.toFixed(0)} MB (goal < 300 MB), ` +
        `${(embedded / bare['idle RSS MB']).toFixed(1)}x the bare server` +
        (onPostgres ? `, ${(embedded / onPostgres['idle RSS MB']).toFixed(2)}x Postgres mode` : '') +
        `; idle for ${IDLE_SECONDS} s\n`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Starts the server, lets it idle, reads its resident set; then a graceful stop. */
async function measure(args: readonly string[], env: Record<string, string>): Promise<Reading> {
  const server = await spawnServer(args, env);
  try {
    const pid = server.child.pid!;
    // CPU from the first seconds after start-up on, RSS over the last ten.
    const settle = Math.min(5, IDLE_SECONDS - SAMPLED_SECONDS);
    await sleep(settle * 1000);
    const [cpuBefore, at] = [cpuMs(pid), performance.now()];
    await sleep((IDLE_SECONDS - SAMPLED_SECONDS - settle) * 1000);
    const samples: number[] = [];
    for (let i = 0; i < SAMPLED_SECONDS; i++) {
      samples.push(status(pid, 'VmRSS'));
      await sleep(1000);
    }
    const cpu = ((cpuMs(pid) - cpuBefore) / (performance.now() - at)) * 1000;
    return {
      'idle RSS MB': summarize(samples).p50,
      'peak RSS MB': status(pid, 'VmHWM'),
      'idle CPU ms/s': cpu,
    };
  } finally {
    await server.stop();
  }
}

/** A memory line of /proc/<pid>/status, in MB. */
function status(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  if (!line) throw new Error(`no ${field} for process ${pid} (this benchmark reads Linux's /proc)`);
  return Number(line.split(/\s+/)[1]) / 1024;
}

/** CPU time (user and system) the process has used, in ms, from /proc/<pid>/stat (10 ms ticks). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

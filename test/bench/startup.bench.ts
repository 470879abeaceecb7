import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFreshDatabase } from '../support/postgres-database.ts';
import { LAUNCH, root, spawnServer } from './spawned-server.ts';
import { summarize, table } from './stats.ts';

/**
 * Start time: from spawning the `npm start` command (the launcher, which runs the bundle that
 * `npm install` built) to the first 200 from /readyz, on the embedded database once its data
 * directory exists and, when DATABASE_URL is set, on Postgres. The baseline, measured in the same
 * run, is the same server started from the TypeScript sources through tsx (what `npm start` ran
 * before the bundle). Goals: under 3 s embedded, under 1 s on Postgres.
 */
const RUNS = 5;
const FROM_SOURCES = ['--import', 'tsx', 'src/main.ts'];

export async function run(): Promise<void> {
  if (!existsSync(join(root, 'dist', 'main.js'))) {
    process.stdout.write('no bundle in dist/: run `npm run build` first\n');
    return;
  }
  const rows: Array<Record<string, string | number>> = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-start-'));
  try {
    const first = await timeToReady(LAUNCH, { DATA_DIR: dataDir });
    rows.push({
      database: 'embedded, new data directory',
      'npm start p50 ms': first,
      'from sources p50 ms': '',
      ratio: '',
    });
    rows.push(await compare('embedded, existing data directory', { DATA_DIR: dataDir }));
    const serverUrl = process.env.DATABASE_URL;
    if (serverUrl) {
      await withFreshDatabase(serverUrl, 'vigil_bench_start', async (url) => {
        await timeToReady(LAUNCH, { DATA_DIR: dataDir, DATABASE_URL: url }); // migrates
        rows.push(await compare('postgres, migrated', { DATA_DIR: dataDir, DATABASE_URL: url }));
      });
    } else {
      rows.push({
        database: 'postgres (set DATABASE_URL)',
        'npm start p50 ms': '-',
        'from sources p50 ms': '-',
        ratio: '-',
      });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.stdout.write(`${table(rows)}\n`);
}

async function compare(label: string, env: Record<string, string>): Promise<Record<string, string | number>> {
  const launched: number[] = [];
  const sources: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    launched.push(await timeToReady(LAUNCH, env));
    sources.push(await timeToReady(FROM_SOURCES, env));
  }
  const a = summarize(launched).p50;
  const b = summarize(sources).p50;
  return {
    database: label,
    'npm start p50 ms': a,
    'from sources p50 ms': b,
    ratio: `${(a / b).toFixed(2)}x`,
  };
}

/** Milliseconds from spawn to the first 200 from /readyz; then a graceful stop. */
async function timeToReady(args: readonly string[], env: Record<string, string>): Promise<number> {
  const server = await spawnServer(args, env);
  await server.stop();
  return server.readyMs;
}

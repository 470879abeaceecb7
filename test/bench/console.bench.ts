import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { findChromium } from '../support/chromium.ts';
import { LAUNCH, spawnServer } from './spawned-server.ts';
import { summarize, table } from './stats.ts';

/**
 * The console's first load in headless Chromium, each run in a new browser context (nothing
 * cached): milliseconds to the load event and to the Overview drawn with its data (the watchdogs'
 * tiles), and the bytes transferred (compressed, the API's answers included). Baseline: GraphiQL
 * at /graphql on the same server, the other page Vigil serves to browsers. Goals (issue 28): under
 * 1 s on localhost, and far lighter than GraphiQL.
 */
const RUNS = 8;
const GOAL_MS = 1_000;

export async function run(): Promise<void> {
  const executablePath = findChromium();
  if (!executablePath) {
    process.stdout.write('console: skipped (no chromium on the PATH; set CHROMIUM_BIN)\n');
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-console-'));
  const server = await spawnServer(LAUNCH, { DATA_DIR: join(dataDir, 'data') });
  const browser = await chromium.launch({
    executablePath,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  try {
    const base = `http://127.0.0.1:${server.port}`;
    const pages = [
      { path: 'console (/)', url: `${base}/`, drawn: 'Price anomaly' },
      { path: 'GraphiQL (/graphql, baseline)', url: `${base}/graphql`, drawn: undefined },
    ];
    const rows: Record<string, string | number>[] = [];
    const medians: number[] = [];
    for (const page of pages) {
      const runs = await loads(browser, page.url, page.drawn);
      const load = summarize(runs.map((r) => r.load));
      const drawn = summarize(runs.map((r) => r.drawn));
      medians.push(load.p50);
      rows.push({
        page: page.path,
        runs: RUNS,
        'load p50 ms': load.p50,
        'load max ms': load.max,
        'drawn p50 ms': page.drawn ? drawn.p50 : '',
        'kB transferred': Math.max(...runs.map((r) => r.bytes)) / 1024,
      });
    }
    process.stdout.write(
      `\nfirst load in a new browser context (${RUNS} runs after one not counted)\n${table(rows)}\n`,
    );
    const [consolePage, graphiql] = rows;
    process.stdout.write(
      `console: load p50 ${Math.round(medians[0]!)} ms (goal < ${GOAL_MS}: ${medians[0]! < GOAL_MS ? 'met' : 'NOT met'}), ` +
        `drawn with data at ${Math.round(Number(consolePage!['drawn p50 ms']))} ms; ` +
        `${Number(consolePage!['kB transferred']).toFixed(0)} kB, ` +
        `${(Number(graphiql!['kB transferred']) / Number(consolePage!['kB transferred'])).toFixed(0)}x less than GraphiQL's ` +
        `${(Number(graphiql!['kB transferred']) / 1024).toFixed(1)} MB\n`,
    );
  } finally {
    await browser.close();
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function loads(
  browser: Browser,
  url: string,
  drawnText: string | undefined,
): Promise<{ load: number; drawn: number; bytes: number }[]> {
  const out: { load: number; drawn: number; bytes: number }[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const started = performance.now();
    await page.goto(url, { waitUntil: 'load' });
    const load = performance.now() - started;
    if (drawnText) await page.getByText(drawnText, { exact: true }).first().waitFor({ timeout: 30_000 });
    const drawn = performance.now() - started;
    // Whatever else the page fetched once drawn (the API's first answers) counts too.
    await page.waitForLoadState('networkidle');
    const bytes = await page.evaluate(() =>
      [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].reduce(
        (sum, entry) => sum + (entry as PerformanceResourceTiming).transferSize,
        0,
      ),
    );
    if (i > 0) out.push({ load, drawn, bytes });
    await context.close();
  }
  return out;
}

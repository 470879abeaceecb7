import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { type App, buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import { resolveInstrument } from '../../src/market-data/instruments.ts';
import { MarketDataService } from '../../src/market-data/market-data.service.ts';
import { modules } from '../../src/modules.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { type DatabaseHandle, notify } from '../../src/platform/db/database.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { createWatchdogChecks } from '../../src/watchdogs/checks/index.ts';
import { charged, FETCH_CONCURRENCY, mapLimited } from '../../src/watchdogs/checks/shared.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../../src/watchdogs/event-bus.ts';
import { parseEventQuery } from '../../src/watchdogs/event-filter.ts';
import { resolveWatchdogSettings } from '../../src/watchdogs/settings.ts';
import { createFakeProvider } from '../support/fake-provider.ts';
import { createFreshDatabase } from '../support/postgres-database.ts';
import { summarize, table } from './stats.ts';
import { benchMarketProvider, detectorCases, symbolOf } from './watchdogs-inputs.ts';

/**
 * Watchdogs: (1) the eight pure detectors over synthetic inputs for 100 and 1,000 watched symbols
 * against one plain pass over the same numbers; (2) the unusual_volume and price_anomaly checks
 * through the market-data layer (cold and warm cache) against the same market-data calls without
 * detection; (3) event -> subscriber latency through the app's event bus, in-process and over
 * /dashboard/stream, against a raw NOTIFY -> LISTEN round trip on the same database.
 */
const SIZES = [100, 1_000];
/** A fixed cycle time (a Monday noon, UTC): the market-data cache keys and windows stay put. */
const NOW = new Date(Date.UTC(2025, 5, 16, 12, 0, 0));
const EVENTS = 300;
const EVENT_SPACING_MS = 5;
/** Sent first and not counted: the app's first seconds (job schedules, pools filling) are not the steady state. */
const WARMUP = 100;
const CHANNEL = 'vigil_bench_roundtrip';
const MINUTE = 60_000;
const DAY = 86_400_000;
/** The checks' upstream calls are charged to the watchdogs' client: big enough never to refuse one here. */
const UPSTREAM_BUDGET = '100000';
const logger = createLogger('silent');
let sink = 0;

function medianMs(fn: () => number, runs: number): number {
  for (let i = 0; i < Math.min(5, runs); i++) sink += fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    sink += fn();
    times.push(performance.now() - t0);
  }
  return summarize(times).p50;
}

export async function run(): Promise<void> {
  detectors();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  const fake = createFakeProvider('bench', { capabilities: ['quote'] });
  try {
    const deps = await createDeps(
      parseConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, WATCHDOGS_RUN: 'false' }),
      { providers: [fake] },
    );
    try {
      await checks(deps.database);
    } catch (error) {
      await deps.database.close();
      throw error;
    }
    const rows = await latency('pglite', buildApp(deps, modules));
    if (process.env.DATABASE_URL) rows.push(...(await onPostgres(process.env.DATABASE_URL)));
    process.stdout.write(
      `\nevent -> subscriber latency (${EVENTS} events ${EVENT_SPACING_MS} ms apart, after ${WARMUP} not counted)\n`,
    );
    process.stdout.write(`${table(rows)}\n`);
    process.stdout.write(
      'baseline: pg_notify -> LISTEN callback on the same database; vigil: insert + NOTIFY in one ' +
        'transaction, the app bus loads the row and hands it on (in-process listener, or a ws client)\n',
    );
    if (!process.env.DATABASE_URL) process.stdout.write('Postgres: skipped (DATABASE_URL is not set)\n');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** (1) Each detector's median time, and the sum: one cycle's detection work. */
function detectors(): void {
  const rows: Array<Record<string, string | number>> = [];
  for (const n of SIZES) {
    let total = 0;
    let totalPass = 0;
    for (const c of detectorCases(n, NOW)) {
      const findings = c.detect();
      const ms = medianMs(() => c.detect(), 15);
      const pass = medianMs(() => c.plainPass(), 51);
      total += ms;
      totalPass += pass;
      rows.push({
        symbols: n,
        detector: c.name,
        input: c.shape,
        findings: String(findings),
        'median ms': ms,
        'plain pass ms': pass,
        ratio: ms / pass,
      });
    }
    rows.push({
      symbols: n,
      detector: 'all 8 (one cycle)',
      input: '',
      findings: '',
      'median ms': total,
      'plain pass ms': totalPass,
      ratio: total / totalPass,
    });
  }
  process.stdout.write('detector cycle time (pure detectors, synthetic inputs)\n');
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write('baseline: one plain pass summing every number the detector reads\n');
  // The sums are kept so the passes cannot be optimised away; NaN would mean a broken input.
  if (Number.isNaN(sink)) throw new Error('a synthetic detector input holds NaN');
}

/** (2) unusual_volume and price_anomaly checks over the market-data layer, cold and warm. */
async function checks(database: DatabaseHandle): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const signal = new AbortController().signal;
  for (const n of SIZES) {
    const symbols = Array.from({ length: n }, (_, i) => symbolOf(i));
    const config = parseConfig({
      LOG_LEVEL: 'silent',
      WATCHDOG_SYMBOLS: symbols.join(','),
      UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE: UPSTREAM_BUDGET,
    });
    const settings = resolveWatchdogSettings(config.watchdogs);
    const { cacheMaxBytes, maxSymbolsPerOperation, upstreamCallsPerClientPerMinute } = config.marketData;
    // As src/deps.ts builds it, on a clock fixed at the cycle time (so cache entries never age).
    const market = () => {
      const provider = benchMarketProvider(symbols, NOW);
      const marketData = new MarketDataService(
        [provider],
        { now: () => NOW },
        logger,
        { timeoutMs: config.marketData.timeoutMs },
        { cacheMaxBytes, maxSymbolsPerOperation, upstreamCallsPerClientPerMinute },
      );
      const byName = new Map(
        createWatchdogChecks({ marketData, database }, settings).map((c) => [c.name, c]),
      );
      return { provider, marketData, byName };
    };
    type Market = ReturnType<typeof market>;
    const instruments = symbols.map((s) => resolveInstrument(s));
    // The bars each check asks for (daily timescale), computed as the checks compute them.
    const days = Math.ceil(settings.detectors.unusual_volume.averageDays * 1.5 + 10);
    const minuteStart = Math.floor((NOW.getTime() - settings.detectors.price_anomaly.windowMs) / MINUTE);
    const ranges = {
      unusual_volume: { interval: '1d', start: new Date(NOW.getTime() - days * DAY) },
      price_anomaly: { interval: '1m', start: new Date(minuteStart * MINUTE) },
    } as const;
    for (const name of ['unusual_volume', 'price_anomaly'] as const) {
      const { interval, start } = ranges[name];
      const check = async (m: Market) => {
        const outcome = await m.byName.get(name)!.check({ now: NOW, signal });
        return { findings: outcome.findings.length, gaps: outcome.gaps.length };
      };
      const fetchOnly = async (m: Market) => {
        const results = await mapLimited(instruments, FETCH_CONCURRENCY, signal, (instrument) =>
          charged(m.marketData, () => m.marketData.bars(instrument, interval, start, NOW)),
        );
        return { findings: 0, gaps: results.filter((r) => !r.ok).length };
      };
      for (const state of ['cold', 'warm'] as const) {
        const warm = state === 'warm' ? market() : undefined;
        if (warm) await fetchOnly(warm);
        const times = { check: [] as number[], fetch: [] as number[] };
        let last = { findings: 0, gaps: 0, calls: 0 };
        globalThis.gc?.();
        // Interleaved, so collections and machine noise fall on both sides alike.
        for (let i = 0; i < (state === 'cold' ? 9 : 15); i++) {
          for (const [kind, work] of [
            ['fetch', fetchOnly],
            ['check', check],
          ] as const) {
            const m = warm ?? market();
            const callsBefore = m.provider.calls.bars;
            const t0 = performance.now();
            const r = await work(m);
            times[kind].push(performance.now() - t0);
            if (r.gaps > 0) throw new Error(`${name}: ${r.gaps} of ${n} symbols could not be fetched`);
            if (kind === 'check') last = { ...r, calls: m.provider.calls.bars - callsBefore };
          }
        }
        const full = summarize(times.check).p50;
        const base = summarize(times.fetch).p50;
        rows.push({
          symbols: n,
          check: name,
          cache: state,
          'upstream calls': String(last.calls),
          findings: String(last.findings),
          'check ms': full,
          'fetch only ms': base,
          ratio: full / base,
          'µs/symbol': (full * 1000) / n,
        });
      }
    }
  }
  process.stdout.write('\nfull check through the market-data layer (median)\n');
  process.stdout.write(`${table(rows)}\n`);
  process.stdout.write(
    `baseline: the same bars calls (concurrency ${FETCH_CONCURRENCY}, charged to the watchdogs' client) ` +
      'without subject resolution or detection; cold = new service, empty cache each run. ' +
      `Set: UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE=${UPSTREAM_BUDGET} (the fake provider is live, so ` +
      'every cache miss is charged; no run had a gap); MAX_SYMBOLS_PER_OPERATION left at its default ' +
      '(each symbol is its own operation)\n',
  );
}

/** (3) Latency rows for one app (started here, stopped here). */
async function latency(label: string, app: App): Promise<Array<Record<string, string | number>>> {
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  const { database } = app.deps;
  // Publishes as a check cycle does; not started, so it only writes (the app's bus hears it).
  const publisher = new WatchdogEventBus({ database, clock: systemClock, logger });
  const publishMs: number[] = [];
  const publish = async (i: number) => {
    const t0 = performance.now();
    await database.db.transaction((tx) => publisher.publish(tx, benchEvent(i)));
    if (i >= WARMUP) publishMs.push(performance.now() - t0);
  };
  try {
    const raw = await paced(
      (heard) =>
        database.listen(
          CHANNEL,
          (p) => heard(Number(p)),
          () => {},
        ),
      (i) => notify(database.db, CHANNEL, String(i)),
    );
    const inProcess = await paced(
      async (heard) => app.deps.watchdogs.subscribe(parseEventQuery({}), (e) => heard(e.data.seq as number)),
      publish,
    );
    const overWs = await paced((heard) => dashboardClient(url, heard), publish);
    const b = summarize(raw);
    return (
      [
        ['notify -> listen (baseline)', raw],
        ['vigil bus, in-process listener', inProcess],
        ['vigil bus, /dashboard/stream ws', overWs],
        ['publish transaction alone (both runs)', publishMs],
      ] as const
    ).map(([path, samples]) => {
      const s = summarize(samples);
      return {
        database: label,
        path,
        events: s.n,
        'p50 ms': s.p50,
        'p99 ms': s.p99,
        'max ms': s.max,
        'p50 ratio': s.p50 / b.p50,
        'p99 ratio': s.p99 / b.p99,
      };
    });
  } finally {
    await app.stop();
  }
}

/** A `ws` client on /dashboard/stream, open once its first message (stats) arrived; returns its close. */
async function dashboardClient(url: string, heard: (i: number) => void): Promise<() => void> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/dashboard/stream`);
  await new Promise<void>((resolve, reject) => {
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as { type: string; data: { data?: { seq?: unknown } } };
      // Events heard before the stats went out are held back; later ones go out as heard.
      if (m.type === 'stats') resolve();
      if (m.type === 'event' && typeof m.data.data?.seq === 'number') heard(m.data.data.seq);
    });
    ws.once('error', reject);
  });
  return () => ws.terminate();
}

function benchEvent(seq: number): NewWatchdogEvent {
  return {
    watchdog: 'price_anomaly',
    eventType: 'price_anomaly',
    severity: 'high',
    symbol: 'S0001',
    asset: { symbol: 'S0001', assetType: 'equity' },
    description: 'S0001 moved +6.00% in 15 min',
    data: { seq, change: 0.06 },
  };
}

/**
 * Listens, then sends WARMUP + EVENTS messages EVENT_SPACING_MS apart, one after the other, and
 * resolves with the latency of each measured one: from just before it was sent to when it was
 * heard. Rejects, naming the count, if some never arrive.
 */
async function paced(
  listen: (heard: (i: number) => void) => Promise<() => unknown>,
  send: (i: number) => Promise<unknown>,
): Promise<number[]> {
  const total = WARMUP + EVENTS;
  const startedAt = new Map<number, number>();
  const latencies: number[] = [];
  let done: () => void = () => {};
  const all = new Promise<void>((resolve) => {
    done = resolve;
  });
  let count = 0;
  const heard = (i: number) => {
    const t0 = startedAt.get(i);
    if (t0 === undefined) return;
    startedAt.delete(i);
    if (i >= WARMUP) latencies.push(performance.now() - t0);
    if (++count === total) done();
  };
  const stop = await listen(heard);
  let timer: NodeJS.Timeout | undefined;
  try {
    globalThis.gc?.();
    for (let i = 0; i < total; i++) {
      startedAt.set(i, performance.now());
      await send(i);
      await new Promise((resolve) => setTimeout(resolve, EVENT_SPACING_MS));
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`heard ${count} of ${total} within 30 s`)), 30_000);
    });
    await Promise.race([all, timeout]);
    return latencies;
  } finally {
    clearTimeout(timer);
    await stop();
  }
}

/** (3) on Postgres: a fresh database for the run, dropped afterwards. */
async function onPostgres(serverUrl: string): Promise<Array<Record<string, string | number>>> {
  const database = await createFreshDatabase(serverUrl, 'vigil_bench');
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-'));
  try {
    const config = parseConfig({
      LOG_LEVEL: 'silent',
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      WATCHDOGS_RUN: 'false',
    });
    const fake = createFakeProvider('bench', { capabilities: ['quote'] });
    return await latency('postgres', buildApp(await createDeps(config, { providers: [fake] }), modules));
  } finally {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

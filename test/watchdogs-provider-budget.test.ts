/**
 * Interactive callers first: with a 5-a-minute provider (Alpha Vantage, on a loopback stand-in),
 * the watchdogs' checks that run at start must not take the budget a client's first call needs,
 * and what they had to skip is said in their health, not counted as failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { parseInstrument } from '../src/market-data/instruments.ts';
import { MarketDataService } from '../src/market-data/market-data.service.ts';
import { createAlphaVantageProvider } from '../src/market-data/providers/alphavantage.provider.ts';
import { modules } from '../src/modules.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { Jobs } from '../src/platform/jobs/jobs.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createWatchdogChecks } from '../src/watchdogs/checks/index.ts';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { WatchdogRunner } from '../src/watchdogs/runner.ts';
import { resolveWatchdogSettings } from '../src/watchdogs/settings.ts';
import { WatchdogService } from '../src/watchdogs/watchdog.service.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';
import { type FixtureServer, startFixtureServer } from './support/fixture-server.ts';
import { ManualClock } from './support/manual-clock.ts';

const logger = createLogger('silent');
const DAY = 86_400_000;
const WATCHED = ['AAPL', 'MSFT', 'NVDA'];
/** A Wednesday after the close: daily bars up to the day before. */
const NOW = Date.parse('2025-06-11T21:00:00Z');

/** TIME_SERIES_DAILY as Alpha Vantage writes it: 120 calendar days of sessions before NOW. */
function dailySeries(): object {
  const series: Record<string, Record<string, string>> = {};
  for (let d = 1; d <= 120; d++) {
    const day = new Date(NOW - d * DAY);
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6) continue;
    const close = 100 + (d % 7);
    series[day.toISOString().slice(0, 10)] = {
      '1. open': String(close - 1),
      '2. high': String(close + 1),
      '3. low': String(close - 2),
      '4. close': String(close),
      '5. volume': String(1_000_000 + (d % 5) * 10_000),
    };
  }
  return { 'Meta Data': { '1. Information': 'Daily Prices' }, 'Time Series (Daily)': series };
}

const GLOBAL_QUOTE = {
  'Global Quote': {
    '01. symbol': 'AAPL',
    '02. open': '200.00',
    '03. high': '203.00',
    '04. low': '199.00',
    '05. price': '202.50',
    '06. volume': '51000000',
    '07. latest trading day': '2025-06-11',
    '08. previous close': '200.00',
    '09. change': '2.50',
    '10. change percent': '1.2500%',
  },
};

describe('a 5-a-minute provider: interactive callers first', () => {
  let server: FixtureServer;
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  let service: WatchdogService;
  let runner: WatchdogRunner;
  let marketData: MarketDataService;

  beforeAll(async () => {
    server = await startFixtureServer([
      { path: '/query', query: { function: 'TIME_SERIES_DAILY' }, reply: { body: dailySeries() } },
      { path: '/query', query: { function: 'EARNINGS' }, reply: { body: { quarterlyEarnings: [] } } },
      { path: '/query', query: { function: 'GLOBAL_QUOTE' }, reply: { body: GLOBAL_QUOTE } },
    ]);
    database = await createTestDatabase();
    handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger,
      tables: tablesOf(modules),
      poolSize: 3,
    });
    await runMigrations(handle, MIGRATIONS_FOLDER);
    jobs = new Jobs(handle, { logger });
    await jobs.start();
    const clock = new ManualClock(NOW);
    // The provider as the registry builds it: its own default rate limit, the default deadline.
    const provider = createAlphaVantageProvider({
      baseUrl: server.url,
      apiKey: 'k',
      timeoutMs: 8_000,
      clock,
    });
    marketData = new MarketDataService([provider], clock, logger, { timeoutMs: 8_000 });
    const settings = resolveWatchdogSettings({
      run: true,
      symbols: WATCHED,
      correlationPairs: [],
      intervalSeconds: 60,
      intervals: [],
      thresholds: '{}',
      eventRetentionDays: 30,
      eventMaxListeners: 100,
      demo: false,
    });
    const bus = new WatchdogEventBus({ database: handle, clock, logger });
    runner = new WatchdogRunner({
      database: handle,
      jobs,
      bus,
      clock,
      logger,
      definitions: createWatchdogChecks({ marketData, database: handle }, settings),
      rearm: settings.rearm,
      run: false,
    });
    service = new WatchdogService({ database: handle, clock, logger, bus, runner, eventRetentionDays: 30 });
    await service.start();
  });
  afterAll(async () => {
    await service?.stop();
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
    await server?.close();
  });

  it("answers a client's first quote while the checks run at start, and the checks say what they skipped", async () => {
    // The two watchdogs Alpha Vantage serves (daily bars, earnings), started together as at start.
    const results = await Promise.all([
      runner.runCheck('unusual_volume', -1, 60_000),
      runner.runCheck('earnings_anomaly', -1, 60_000),
    ]);
    // One spare call went to the checks; the other five were skipped, not queued ahead of clients.
    expect(server.requests).toHaveLength(1);

    const started = performance.now();
    const quote = await marketData.withinOperation('client-1', () =>
      marketData.quote(parseInstrument('AAPL')),
    );
    expect(quote.value.price).toBe(202.5);
    expect(quote.lineage.used).toEqual(['alphavantage']);
    expect(performance.now() - started).toBeLessThan(2_000);

    // Skipped for want of budget is neither a failure nor silence: the health says it in words.
    expect(results.every((r) => r === 'degraded' || r === 'deferred')).toBe(true);
    expect(results).toContain('deferred');
    const health = await service.health();
    for (const name of ['unusual_volume', 'earnings_anomaly'] as const) {
      const h = health.find((w) => w.name === name)!;
      expect(h, name).toMatchObject({ checks: 1, errors: 0, consecutiveFailures: 0, status: 'degraded' });
      expect(h.lastError, name).toMatch(
        /skipped for want of provider budget .*serve interactive callers first/,
      );
    }
    // The provider's health is no worse for it: a skip says nothing about the upstream.
    expect(marketData.health().every((s) => s.failures === 0)).toBe(true);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { parseConfig } from '../src/config.ts';
import { MarketDataService } from '../src/market-data/market-data.service.ts';
import type { MarketDataProvider } from '../src/market-data/providers/provider.ts';
import { ProviderError } from '../src/market-data/providers/provider-errors.ts';
import { createSimulatedProvider } from '../src/market-data/providers/simulated/simulated.provider.ts';
import { EQUITIES, TRADED_COINS } from '../src/market-data/providers/simulated/universe.ts';
import { modules } from '../src/modules.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createWatchdogChecks } from '../src/watchdogs/checks/index.ts';
import { EVENT_TYPE_INFO, WATCHDOG_EVENT_TYPES, WATCHDOG_NAMES } from '../src/watchdogs/registry.ts';
import { resolveWatchdogSettings, type WatchdogSettings } from '../src/watchdogs/settings.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';
import { createFakeProvider } from './support/fake-provider.ts';
import { ManualClock } from './support/manual-clock.ts';

const logger = createLogger('silent');
const PAIRS = parseConfig({}).watchdogs.correlationPairs;
/** Every coin and stock of the simulated market: demo rotates its conditions over all of them. */
const ALL = [...TRADED_COINS.map((c) => `${c.symbol}/USDT`), ...EQUITIES.map((e) => e.symbol)];

function settingsFor(demo: boolean, symbols: readonly string[] = ALL): WatchdogSettings {
  return resolveWatchdogSettings({
    run: true,
    symbols,
    correlationPairs: PAIRS,
    intervalSeconds: 60,
    intervals: [],
    thresholds: '{}',
    eventRetentionDays: 30,
    eventMaxListeners: 10_000,
    demo,
  });
}

function market(activity: 'normal' | 'demo', at: string) {
  const clock = new ManualClock(Date.parse(at));
  const provider = createSimulatedProvider({
    seed: 'watchdogs',
    activity,
    tickMs: 1_000,
    clock,
    correlationPairs: PAIRS,
  });
  return { clock, marketData: new MarketDataService([provider], clock, logger) };
}

describe('watchdog checks on the simulated market', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    database = await createTestDatabase();
    handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger,
      tables: tablesOf(modules),
      poolSize: 2,
    });
    await runMigrations(handle, MIGRATIONS_FOLDER);
  });
  afterAll(async () => {
    await handle?.close();
    await database?.cleanup();
  });

  it('in demo activity, every check finds its condition at a fixed instant (cold start)', async () => {
    const { clock, marketData } = market('demo', '2025-06-14T23:45:17Z');
    const checks = createWatchdogChecks({ marketData, database: handle }, settingsFor(true));
    expect(checks.map((c) => c.name)).toEqual([...WATCHDOG_NAMES]);
    const signal = new AbortController().signal;
    for (const check of checks) {
      const outcome = await check.check({ now: clock.now(), signal });
      expect(outcome.gaps, check.name).toEqual([]);
      expect(outcome.checked, check.name).toBeGreaterThan(0);
      const types = new Set(outcome.findings.map((f) => f.eventType));
      expect(
        WATCHDOG_EVENT_TYPES[check.name].some((t) => types.has(t)),
        `${check.name}: ${[...types].join(',')}`,
      ).toBe(true);
      for (const f of outcome.findings) {
        if (f.symbol !== null) expect(outcome.assets?.get(f.symbol)?.symbol, check.name).toBe(f.symbol);
        // Only the event types and severities its descriptor declares.
        expect(WATCHDOG_EVENT_TYPES[check.name], check.name).toContain(f.eventType);
        expect(EVENT_TYPE_INFO[f.eventType].severities, `${check.name} ${f.eventType}`).toContain(f.severity);
      }
    }
  });

  it('describes assets: name, exchange, currency; pairs carry both symbols', async () => {
    const { clock, marketData } = market('demo', '2025-06-14T23:45:17Z');
    const checks = createWatchdogChecks({ marketData, database: handle }, settingsFor(true));
    const signal = new AbortController().signal;
    const correlation = await checks
      .find((c) => c.name === 'correlation_breakdown')!
      .check({ now: clock.now(), signal });
    const f = correlation.findings[0]!;
    const asset = correlation.assets!.get(f.symbol!)!;
    expect(asset.pair).toEqual(f.subject.split('~'));
    const funding = await checks.find((c) => c.name === 'funding_rate')!.check({ now: clock.now(), signal });
    const coin = funding.assets!.get(funding.findings[0]!.symbol!)!;
    expect(coin).toMatchObject({ assetType: 'crypto', currency: 'USDT', exchange: 'Simulated exchange' });
    expect(coin.name).toMatch(/ \/ USDT$/);
  });

  it('liquidity keeps its baseline in the database and judges from it on the next cycle', async () => {
    const { clock, marketData } = market('demo', '2025-06-15T03:10:00Z');
    const [check] = createWatchdogChecks(
      { marketData, database: handle },
      settingsFor(true, ['BTC/USDT']),
    ).filter((c) => c.name === 'liquidity_drop');
    const signal = new AbortController().signal;
    await check!.check({ now: clock.now(), signal });
    const rows = await handle.db.execute<{ n: number }>(
      "select count(*)::int as n from watchdog_depth_samples where symbol = 'BTC/USDT'",
    );
    const count = (Array.isArray(rows) ? rows : (rows as { rows: { n: number }[] }).rows)[0]!.n;
    expect(count).toBeGreaterThanOrEqual(settingsFor(true).detectors.liquidity_drop.minSamples);
    await clock.advance(60_000);
    const again = await check!.check({ now: clock.now(), signal });
    expect(again.gaps).toEqual([]);
    expect(again.checked).toBe(1);
  });

  it('in normal activity, a quiet instant gives no findings for most checks', async () => {
    const { clock, marketData } = market('normal', '2025-06-11T15:03:17Z');
    const checks = createWatchdogChecks({ marketData, database: handle }, settingsFor(false));
    const signal = new AbortController().signal;
    let quiet = 0;
    for (const check of checks) {
      const outcome = await check.check({ now: clock.now(), signal });
      expect(outcome.gaps, check.name).toEqual([]);
      if (outcome.findings.length === 0) quiet++;
    }
    expect(quiet).toBeGreaterThanOrEqual(5);
  });

  it('a failing provider gives gaps, not findings', async () => {
    const clock = new ManualClock(Date.parse('2025-06-14T23:45:17Z'));
    const real = createSimulatedProvider({ seed: 'watchdogs', activity: 'demo', tickMs: 1_000, clock });
    const failure = () => Promise.reject(new ProviderError('broken', 'upstream', 'upstream error (503)'));
    const broken: MarketDataProvider = {
      ...real,
      id: 'broken',
      pastOrderBooks: false,
      bars: failure,
      orderBook: failure,
      funding: failure,
      earnings: failure,
      transfers: failure,
      venueStatus: failure,
    };
    const marketData = new MarketDataService([broken], clock, logger);
    const checks = createWatchdogChecks({ marketData, database: handle }, settingsFor(true));
    const signal = new AbortController().signal;
    for (const check of checks) {
      const outcome = await check.check({ now: clock.now(), signal });
      expect(outcome.findings, check.name).toEqual([]);
      expect(outcome.gaps.length, check.name).toBeGreaterThan(0);
      expect(outcome.gaps.length, check.name).toBeGreaterThanOrEqual(outcome.checked);
      expect(outcome.gaps[0]!.error, check.name).toMatch(/503|broken/);
    }
  });

  it('whale_movement reads large exchange trades per pair, a failing pair being a gap', async () => {
    const clock = new ManualClock(Date.parse('2025-06-14T12:00:00Z'));
    const venue = createFakeProvider('venue', {
      capabilities: ['quote', 'largeTrades'],
      assetClasses: ['crypto'],
    });
    const asked: Array<[string, string, number]> = [];
    venue.largeTrades = async ({ instrument, since, minUsd }) => {
      asked.push([instrument.symbol, since.toISOString(), minUsd]);
      if (instrument.symbol === 'ETH/USDT')
        throw new ProviderError('venue', 'upstream', 'upstream error (502)');
      const time = new Date(clock.now().getTime() - 60_000);
      return [
        {
          id: '42',
          symbol: instrument.symbol,
          venue: 'venue',
          price: 60_000,
          quantity: 25,
          usdValue: 1.5e6,
          side: 'sell',
          time,
        },
      ];
    };
    const marketData = new MarketDataService([venue], clock, logger);
    const settings = settingsFor(false, ['BTC/USDT', 'ETH/USDT', 'AAPL']);
    const [check] = createWatchdogChecks({ marketData, database: handle }, settings).filter(
      (c) => c.name === 'whale_movement',
    );
    const outcome = await check!.check({ now: clock.now(), signal: new AbortController().signal });
    const windowStart = new Date(clock.now().getTime() - settings.detectors.whale_movement.windowMs);
    expect(asked.sort()).toEqual([
      ['BTC/USDT', windowStart.toISOString(), settings.detectors.whale_movement.minUsd],
      ['ETH/USDT', windowStart.toISOString(), settings.detectors.whale_movement.minUsd],
    ]);
    expect(outcome.findings).toHaveLength(1);
    expect(outcome.findings[0]).toMatchObject({
      eventType: 'whale_movement',
      symbol: 'BTC/USDT',
      severity: 'medium',
    });
    expect((outcome.findings[0]!.data as { moves: unknown[] }).moves).toEqual([
      {
        id: 'venue:BTC/USDT:42',
        kind: 'trade',
        amount: 25,
        usdValue: 1.5e6,
        time: new Date(clock.now().getTime() - 60_000).toISOString(),
        from: 'venue',
        to: null,
      },
    ]);
    expect(outcome.gaps).toEqual([
      { subject: 'ETH/USDT', error: expect.stringMatching(/large trades for ETH\/USDT .*venue: upstream/) },
    ]);
    expect(outcome.checked).toBe(2);

    // Neither trades nor transfers: the whole check is one gap, never "no whales".
    const quotesOnly = new MarketDataService(
      [createFakeProvider('plain', { assetClasses: ['crypto'] })],
      clock,
      logger,
    );
    const [blind] = createWatchdogChecks({ marketData: quotesOnly, database: handle }, settings).filter(
      (c) => c.name === 'whale_movement',
    );
    const none = await blind!.check({ now: clock.now(), signal: new AbortController().signal });
    expect(none.findings).toEqual([]);
    expect(none.gaps.map((g) => g.subject)).toEqual(['transfers']);
    expect(none.checked).toBe(1);
  });

  it('stops when the cycle is aborted', async () => {
    const { clock, marketData } = market('demo', '2025-06-14T23:45:17Z');
    const checks = createWatchdogChecks({ marketData, database: handle }, settingsFor(true));
    const controller = new AbortController();
    controller.abort(new Error('the check ran past 1000 ms'));
    await expect(
      checks.find((c) => c.name === 'price_anomaly')!.check({ now: clock.now(), signal: controller.signal }),
    ).rejects.toThrow(/ran past/);
  });
});

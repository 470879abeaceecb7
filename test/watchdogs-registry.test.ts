import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { MarketDataService } from '../src/market-data/market-data.service.ts';
import { modules } from '../src/modules.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { Jobs } from '../src/platform/jobs/jobs.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createWatchdogChecks } from '../src/watchdogs/checks/index.ts';
import { outcomeOf, split } from '../src/watchdogs/checks/outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from '../src/watchdogs/checks/shared.ts';
import { defineWatchdog } from '../src/watchdogs/descriptor.ts';
import { type Finding, gradeAbove } from '../src/watchdogs/detectors/finding.ts';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { WATCHDOG_NAMES, WATCHDOGS, type WatchdogName } from '../src/watchdogs/registry.ts';
import { type RunnableWatchdog, WatchdogRunner } from '../src/watchdogs/runner.ts';
import { checkWatchdogSettings, type WatchdogsConfig } from '../src/watchdogs/settings.ts';
import { threshold } from '../src/watchdogs/thresholds.ts';
import { WatchdogService } from '../src/watchdogs/watchdog.service.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';
import { createFakeProvider } from './support/fake-provider.ts';
import { ManualClock } from './support/manual-clock.ts';

/**
 * What a ninth watchdog costs: one descriptor (here, with its detector and check, in this file)
 * added to a list of watchdogs. A test-only registry runs it through the settings, the checks, the
 * runner and the health exactly as the registered eight run; the production registry is untouched.
 */

interface SessionMoveSettings {
  /** Absolute change against the previous close, in percent, above which a quote is `high`. */
  readonly highPercent: number;
  /** Above this it is `critical`. */
  readonly criticalPercent: number;
}
interface SessionMoveInput {
  readonly quotes: readonly { readonly symbol: string; readonly changePercent: number | null }[];
}
type SessionMoveFinding = Finding<{ readonly changePercent: number }, 'session_move'>;

function detectSessionMove(input: SessionMoveInput, t: SessionMoveSettings): SessionMoveFinding[] {
  return input.quotes.flatMap(({ symbol, changePercent }) => {
    if (changePercent === null) return [];
    const severity = gradeAbove(Math.abs(changePercent), [
      [t.highPercent, 'high'],
      [t.criticalPercent, 'critical'],
    ]);
    if (!severity) return [];
    const description = `${symbol} is ${changePercent} % from its previous close`;
    return [
      { eventType: 'session_move', severity, symbol, subject: symbol, description, data: { changePercent } },
    ];
  });
}

const sessionMove = defineWatchdog({
  name: 'session_move',
  summary: 'Moves against the previous close.',
  events: {
    session_move: { description: 'A large move since the previous close', severities: ['high', 'critical'] },
  },
  thresholds: {
    defaults: { highPercent: 3, criticalPercent: 8 },
    demo: { highPercent: 1 },
    rules: { highPercent: threshold.positive, criticalPercent: threshold.positive },
    order: [['criticalPercent', '>', 'highPercent']],
  },
  detect: detectSessionMove,
  describe: (t) => `Moves beyond ${t.highPercent} % since the previous close`,
  check:
    ({ marketData, describe }, setup) =>
    async ({ signal }) => {
      const watched = subjectsFor(setup.symbols, marketData, 'quote');
      const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
        charged(marketData, () => marketData.quote(s.instrument)),
      );
      const { fetched, gaps } = split(watched.subjects, results);
      const quotes = fetched.map(({ subject, value }) => ({
        symbol: subject.symbol,
        changePercent: value.value.changePercent,
      }));
      return outcomeOf(watched, gaps, setup.detect({ quotes }), describe);
    },
});

/** The test's registry: the eight, and the ninth in one line. */
const NINE = [...WATCHDOGS, sessionMove];

const logger = createLogger('silent');
const config = (changes: Partial<WatchdogsConfig> = {}): WatchdogsConfig => ({
  run: false,
  symbols: ['AAA', 'BBB', 'ZZZ', 'CCC'],
  correlationPairs: [],
  intervalSeconds: 60,
  intervals: ['session_move:30'],
  thresholds: '{"session_move":{"highPercent":2}}',
  eventRetentionDays: 30,
  eventMaxListeners: 100,
  demo: false,
  ...changes,
});

describe('a ninth watchdog, registered in a test-only registry', () => {
  it('gets its interval, thresholds and validation from the settings machinery', () => {
    const { settings, problems } = checkWatchdogSettings(config(), NINE);
    expect(problems).toEqual([]);
    expect(settings.watchdogs.map((w) => w.name)).toEqual([...WATCHDOG_NAMES, 'session_move']);
    expect(settings.intervalsMs.session_move).toBe(30_000);
    expect(settings.intervalsMs.price_anomaly).toBe(60_000);
    expect(settings.detectors.session_move).toEqual({ highPercent: 2, criticalPercent: 8 });
    expect(
      checkWatchdogSettings(config({ thresholds: '{}', demo: true }), NINE).settings.detectors,
    ).toMatchObject({
      session_move: { highPercent: 1, criticalPercent: 8 },
      price_anomaly: { windowMs: 5 * 60_000 },
    });

    expect(
      checkWatchdogSettings(
        config({
          thresholds: '{"session_move":{"criticalPercent":1,"lowPercent":1}}',
          intervals: ['session_move:1'],
        }),
        NINE,
      ).problems,
    ).toEqual([
      'WATCHDOG_INTERVALS: session_move must be whole seconds from 5 to 86400, got 1',
      'WATCHDOG_THRESHOLDS.session_move.lowPercent: unknown; known: highPercent, criticalPercent',
      'WATCHDOG_THRESHOLDS.session_move.criticalPercent: must be above highPercent (3)',
    ]);
    // The production registry does not know it.
    expect(checkWatchdogSettings(config()).problems).toEqual([
      expect.stringMatching(/^WATCHDOG_INTERVALS: session_move:30 is not name:seconds/),
      expect.stringMatching(
        /^WATCHDOG_THRESHOLDS: session_move is not a watchdog; known: earnings_anomaly, /,
      ),
    ]);
  });

  describe('through the checks, the runner and the health', () => {
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let jobs: Jobs;
    let service: WatchdogService;
    let runner: WatchdogRunner;
    const clock = new ManualClock(Date.parse('2025-06-11T15:00:30Z'));

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
      jobs = new Jobs(handle, { logger });
      await jobs.start();
      const provider = createFakeProvider('fake', { capabilities: ['quote'] });
      // Change against the previous close (100), in percent: +4, -1, -10; CCC has no quote.
      for (const [symbol, price] of [
        ['AAA', 104],
        ['BBB', 99],
        ['ZZZ', 90],
      ] as const)
        provider.prices.set(symbol, price);
      const marketData = new MarketDataService([provider], clock, logger);
      const { settings } = checkWatchdogSettings(config(), NINE);
      const definitions = createWatchdogChecks({ marketData, database: handle }, settings);
      const bus = new WatchdogEventBus({ database: handle, clock, logger });
      runner = new WatchdogRunner({
        database: handle,
        jobs,
        bus,
        clock,
        logger,
        // The production types name the eight; the runner itself takes any definitions.
        definitions: definitions as RunnableWatchdog[],
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
    });

    it('lists it in the health after the eight, described from its thresholds', async () => {
      const health = await service.health();
      expect(health.map((h) => h.name)).toEqual([...WATCHDOG_NAMES, 'session_move']);
      expect(health.at(-1)).toMatchObject({
        description: 'Moves beyond 2 % since the previous close',
        intervalSeconds: 30,
        status: 'running',
        checks: 0,
      });
    });

    it('runs its check, stores its events and counts them in its health', async () => {
      const name = 'session_move' as WatchdogName;
      const slot = Math.floor(clock.now().getTime() / 30_000);
      // CCC has no quote: a gap, so the cycle is degraded, not failed.
      expect(await runner.runCheck(name, slot, 30_000)).toBe('degraded');
      const { events } = await service.events({ limit: 10 });
      expect(events.map((e) => [e.watchdog, e.eventType, e.symbol, e.severity])).toEqual([
        ['session_move', 'session_move', 'ZZZ', 'critical'],
        ['session_move', 'session_move', 'AAA', 'high'],
      ]);
      expect(events[0]!.data).toEqual({ changePercent: -10 });
      expect(await service.healthOf('session_move')).toMatchObject({
        status: 'degraded',
        checks: 1,
        events: 2,
        lastChecked: 4,
        lastGaps: 1,
      });
      // The same conditions next cycle are not new events (re-arming applies to it as to the eight).
      await clock.advance(30_000);
      expect(await runner.runCheck(name, slot + 1, 30_000)).toBe('degraded');
      expect((await service.events({ limit: 10 })).events).toHaveLength(2);
    });

    it('takes operator commands, its check job included', async () => {
      // A restart sends a check job: the job's schema lists the runner's watchdogs, this one too.
      expect(await service.restart('session_move', 'test')).toMatchObject({ enabled: true, checks: 0 });
      expect(await service.setEnabled('session_move', false, 'test')).toMatchObject({ status: 'disabled' });
      await expect(service.healthOf('tenth')).rejects.toThrow(/tenth/);
    });
  });
});

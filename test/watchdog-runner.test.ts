import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '../src/app-database.ts';
import { modules } from '../src/modules.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { Jobs } from '../src/platform/jobs/jobs.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import type { Finding } from '../src/watchdogs/detectors/finding.ts';
import { DEFAULT_REARM_SETTINGS } from '../src/watchdogs/detectors/rearm.ts';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import type { WatchdogEvent } from '../src/watchdogs/events.repository.ts';
import { type EventType, WATCHDOG_NAMES, type WatchdogName } from '../src/watchdogs/registry.ts';
import { type RunnableWatchdog, slotJobId, WatchdogRunner } from '../src/watchdogs/runner.ts';
import { WatchdogService } from '../src/watchdogs/watchdog.service.ts';
import type { CheckOutcome as AnyOutcome } from '../src/watchdogs/watchdog.ts';
import { createTestDatabase, drivers, serverUrl, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

type CheckOutcome = AnyOutcome<Finding<unknown, EventType>>;

const logger = createLogger('silent');
const MINUTE = 60_000;

async function open(database: TestDatabase): Promise<DatabaseHandle> {
  const handle = await openDatabase({
    url: database.url,
    pgliteDir: pgliteDirFor(database.dataDir),
    logger,
    tables: tablesOf(modules),
    poolSize: 3,
  });
  await runMigrations(handle, MIGRATIONS_FOLDER);
  return handle;
}

const finding = (symbol: string, severity: Finding['severity'] = 'high'): Finding<unknown, EventType> => ({
  eventType: 'price_anomaly',
  severity,
  symbol,
  subject: symbol,
  description: `${symbol} moved`,
  data: { change: 0.07 },
});

/** Definitions whose checks return whatever the test scripts next (a clean empty cycle by default). */
function scripted(intervalMs = MINUTE) {
  const next = new Map<WatchdogName, () => Promise<CheckOutcome>>();
  const calls = new Map<WatchdogName, number>();
  const definitions: RunnableWatchdog[] = WATCHDOG_NAMES.map((name) => ({
    name,
    description: `the ${name} watchdog`,
    intervalMs,
    async check() {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      const script = next.get(name);
      return script ? script() : { findings: [], checked: 1, gaps: [] };
    },
  }));
  return {
    definitions,
    calls,
    /** The next checks of `name` return `outcome` (or throw it, when it is an Error). */
    script(name: WatchdogName, outcome: CheckOutcome | Error | (() => Promise<CheckOutcome>)) {
      next.set(
        name,
        typeof outcome === 'function'
          ? outcome
          : async () => {
              if (outcome instanceof Error) throw outcome;
              return outcome;
            },
      );
    },
  };
}

describe.each(drivers)('watchdog runner on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  let clock: ManualClock;
  let bus: WatchdogEventBus;
  let runner: WatchdogRunner;
  let service: WatchdogService;
  let defs: ReturnType<typeof scripted>;
  const heard: WatchdogEvent[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await open(database);
    jobs = new Jobs(handle, { logger });
    await jobs.start();
    clock = new ManualClock(Date.parse('2025-06-11T15:00:30Z'));
    bus = new WatchdogEventBus({ database: handle, clock, logger });
    defs = scripted();
    runner = new WatchdogRunner({
      database: handle,
      jobs,
      bus,
      clock,
      logger,
      definitions: defs.definitions,
      rearm: DEFAULT_REARM_SETTINGS,
      run: false,
    });
    service = new WatchdogService({ database: handle, clock, logger, bus, runner, eventRetentionDays: 30 });
    await service.start();
    bus.subscribe((e) => {
      heard.push(e);
    });
  });
  afterAll(async () => {
    await service?.stop();
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });
  afterEach(() => {
    heard.length = 0;
  });

  const slot = () => Math.floor(clock.now().getTime() / MINUTE);
  const waitHeard = async (n: number) => {
    for (let i = 0; i < 200 && heard.length < n; i++) await new Promise((r) => setTimeout(r, 10));
    return heard;
  };

  it('starts every watchdog enabled and running, with empty counters', async () => {
    const health = await service.health();
    expect(health.map((h) => h.name)).toEqual([...WATCHDOG_NAMES]);
    expect(health.every((h) => h.enabled && h.status === 'running' && h.checks === 0)).toBe(true);
  });

  it('emits every finding of a cycle, then stays quiet while the condition persists, and escalates', async () => {
    defs.script('price_anomaly', { findings: [finding('AAA'), finding('BBB')], checked: 5, gaps: [] });
    expect(await runner.runCheck('price_anomaly', slot(), MINUTE)).toBe('ok');
    expect((await waitHeard(2)).map((e) => e.symbol).sort()).toEqual(['AAA', 'BBB']);
    heard.length = 0;

    await clock.advance(MINUTE);
    defs.script('price_anomaly', {
      findings: [finding('AAA'), finding('BBB', 'critical')],
      checked: 5,
      gaps: [],
    });
    await runner.runCheck('price_anomaly', slot(), MINUTE);
    const escalated = await waitHeard(1);
    expect(escalated.map((e) => [e.symbol, e.severity])).toEqual([['BBB', 'critical']]);

    const h = await service.healthOf('price_anomaly');
    expect(h).toMatchObject({ checks: 2, events: 3, errors: 0, consecutiveFailures: 0, status: 'running' });
    expect(h.lastEvent).toEqual(clock.now());
    const page = await service.events({ watchdogs: ['price_anomaly'] });
    expect(page.events.map((e) => [e.symbol, e.severity])).toEqual([
      ['BBB', 'critical'],
      ['BBB', 'high'],
      ['AAA', 'high'],
    ]);
    expect(page.events[0]!.asset).toEqual({ symbol: 'BBB', assetType: 'equity' });
  });

  it('counts failures: degraded, then failing from the third; a failed cycle keeps the re-arm memory', async () => {
    defs.script('funding_rate', { findings: [finding('ETH/USDT')], checked: 2, gaps: [] });
    await runner.runCheck('funding_rate', slot(), MINUTE);
    await waitHeard(1);
    heard.length = 0;
    defs.script('funding_rate', new Error('provider down'));
    for (let i = 1; i <= 3; i++) {
      await clock.advance(MINUTE);
      expect(await runner.runCheck('funding_rate', slot(), MINUTE)).toBe('failed');
      const h = await service.healthOf('funding_rate');
      expect(h.consecutiveFailures).toBe(i);
      expect(h.status).toBe(i < 3 ? 'degraded' : 'failing');
      expect(h.lastError).toBe('provider down');
    }
    // Every subject lacking data is a failure too.
    defs.script('funding_rate', {
      findings: [],
      checked: 2,
      gaps: [
        { subject: 'A', error: 'x' },
        { subject: 'B', error: 'y' },
      ],
    });
    expect(await runner.runCheck('funding_rate', slot(), MINUTE)).toBe('failed');
    // The condition is still remembered: seeing it again after the failures emits nothing.
    defs.script('funding_rate', {
      findings: [finding('ETH/USDT')],
      checked: 2,
      gaps: [{ subject: 'BTC/USDT', error: 'timeout' }],
    });
    expect(await runner.runCheck('funding_rate', slot(), MINUTE)).toBe('degraded');
    const h = await service.healthOf('funding_rate');
    expect(h).toMatchObject({ status: 'degraded', consecutiveFailures: 0, errors: 4, lastGaps: 1 });
    expect(h.lastError).toMatch(/BTC\/USDT: timeout/);
    await new Promise((r) => setTimeout(r, 100));
    expect(heard).toHaveLength(0);
  });

  it('a disabled watchdog does not check; a check that was running when it was disabled writes nothing', async () => {
    await service.setEnabled('whale_movement', false, 'test');
    const before = defs.calls.get('whale_movement') ?? 0;
    expect(await runner.runCheck('whale_movement', slot(), MINUTE)).toBe('skipped');
    expect(defs.calls.get('whale_movement') ?? 0).toBe(before);
    expect((await service.healthOf('whale_movement')).status).toBe('disabled');

    await service.setEnabled('whale_movement', true, 'test');
    let release!: () => void;
    defs.script('whale_movement', async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return { findings: [finding('BTC/USDT')], checked: 1, gaps: [] };
    });
    const running = runner.runCheck('whale_movement', slot(), MINUTE);
    while (!release) await new Promise((r) => setTimeout(r, 5));
    await service.setEnabled('whale_movement', false, 'test');
    release();
    expect(await running).toBe('skipped');
    expect((await service.events({ watchdogs: ['whale_movement'] })).events).toHaveLength(0);
  });

  it('restart clears counters and the re-arm memory (the persisting condition emits again) and enqueues a check', async () => {
    defs.script('liquidity_drop', { findings: [finding('SOL/USDT')], checked: 1, gaps: [] });
    await runner.runCheck('liquidity_drop', slot(), MINUTE);
    await runner.runCheck('liquidity_drop', slot(), MINUTE);
    expect((await service.events({ watchdogs: ['liquidity_drop'] })).events).toHaveLength(1);
    const restarted = await service.restart('liquidity_drop', 'test');
    expect(restarted).toMatchObject({ checks: 0, events: 0, errors: 0, enabled: true, updatedBy: 'test' });
    expect(await jobs.queueSize({ name: 'watchdogs.check' } as never)).toBeGreaterThan(0);
    await runner.runCheck('liquidity_drop', -1, MINUTE);
    expect((await service.events({ watchdogs: ['liquidity_drop'] })).events).toHaveLength(2);
  });

  it('skips a slot that was missed by more than one interval', async () => {
    expect(await runner.runCheck('exchange_outage', slot() - 2, MINUTE)).toBe('skipped');
    expect(await runner.runCheck('exchange_outage', slot() - 1, MINUTE)).toBe('ok');
  });

  it('reads stopped when nobody checked for three intervals', async () => {
    await clock.advance(3 * MINUTE + 1);
    const stale = (await service.health()).filter((h) => h.enabled);
    expect(stale.every((h) => h.status === 'stopped' && !h.running)).toBe(true);
    const stats = await service.stats();
    expect(stats.healthyWatchdogs).toBe(0);
    expect(stats.activeWatchdogs).toBe(7);
  });

  it('refuses unknown names with NOT_FOUND', async () => {
    await expect(service.healthOf('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(service.setEnabled('nope', false, 'x')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('slot job ids', () => {
  it('are one UUID per (watchdog, interval, slot), the same on every instance', () => {
    const id = slotJobId('price_anomaly', MINUTE, 29_000_000);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(slotJobId('price_anomaly', MINUTE, 29_000_000)).toBe(id);
    expect(slotJobId('price_anomaly', MINUTE, 29_000_001)).not.toBe(id);
    expect(slotJobId('funding_rate', MINUTE, 29_000_000)).not.toBe(id);
  });
});

describe.runIf(serverUrl)('two instances on one Postgres database', () => {
  it('run each watchdog once per interval between them, and both hear every event', async () => {
    const database = await createTestDatabase('postgres');
    const instances: Array<{
      handle: DatabaseHandle;
      jobs: Jobs;
      service: WatchdogService;
      heard: string[];
    }> = [];
    const intervalMs = 2_000;
    const runs: number[] = [];
    /** The slot each run was scheduled for (a job may start late, into the next slot's time). */
    const runSlots: number[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        let scheduled = -1;
        const handle = await open(database);
        const jobs = new Jobs(handle, { logger });
        await jobs.start();
        const clock = {
          now: () => new Date(),
          setTimeout: (f: () => void, ms: number) => setTimeout(f, ms),
          clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
        };
        const bus = new WatchdogEventBus({ database: handle, clock, logger });
        const definitions: RunnableWatchdog[] = [
          {
            name: 'price_anomaly',
            description: 'x',
            intervalMs,
            async check({ now }) {
              runs.push(now.getTime());
              runSlots.push(scheduled);
              // A new subject every check, so every check emits one event.
              return { findings: [finding(`S${runs.length}`)], checked: 1, gaps: [] };
            },
          },
          ...WATCHDOG_NAMES.filter((n) => n !== 'price_anomaly').map((name) => ({
            name,
            description: 'x',
            intervalMs: 3_600_000,
            async check() {
              return { findings: [], checked: 1, gaps: [] };
            },
          })),
        ];
        const runner = new WatchdogRunner({
          database: handle,
          jobs,
          bus,
          clock,
          logger,
          definitions,
          rearm: DEFAULT_REARM_SETTINGS,
          run: true,
        });
        const runCheck = runner.runCheck.bind(runner);
        runner.runCheck = (name, slot, ms) => {
          if (name === 'price_anomaly') scheduled = slot;
          return runCheck(name, slot, ms);
        };
        const service = new WatchdogService({
          database: handle,
          clock,
          logger,
          bus,
          runner,
          eventRetentionDays: 30,
        });
        const heard: string[] = [];
        await bus.start();
        bus.subscribe((e) => {
          if (e.watchdog === 'price_anomaly') heard.push(e.id);
        });
        instances.push({ handle, jobs, service, heard });
      }
      const t0 = Date.now();
      await Promise.all(instances.map((i) => i.service.start()));
      await new Promise((r) => setTimeout(r, 9_000));
      const elapsedSlots = (Date.now() - t0) / intervalMs;
      // Once per slot between both instances: no slot twice, and (nearly) every slot run. The slot
      // is the one the run was scheduled for: on a busy machine a job may start in the next slot's
      // time (the runner allows one slot of lateness), beside that slot's own run.
      expect(new Set(runSlots).size).toBe(runSlots.length);
      expect(runs.length).toBeGreaterThanOrEqual(Math.floor(elapsedSlots) - 1);
      expect(runs.length).toBeLessThanOrEqual(Math.ceil(elapsedSlots) + 1);
      await new Promise((r) => setTimeout(r, 300));
      const [a, b] = instances;
      expect(a!.heard.length).toBeGreaterThanOrEqual(runs.length - 1);
      expect(new Set(a!.heard)).toEqual(new Set(b!.heard));
    } finally {
      for (const i of instances) {
        await i.service.stop();
        await i.jobs.stop(1_000);
        await i.handle.close();
      }
      await database.cleanup();
    }
  }, 30_000);
});

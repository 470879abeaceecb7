import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertService } from '../src/alerts/alert.service.ts';
import type { AlertEvent } from '../src/alerts/alert-event.model.ts';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { alertDeliveries, alertFirings } from '../src/alerts/alerts.sql.ts';
import { deliverJob } from '../src/alerts/delivery/delivery.jobs.ts';
import { AlertFiring } from '../src/alerts/firing.ts';
import { SecretBox } from '../src/alerts/secrets.ts';
import { modules } from '../src/modules.ts';
import { effectiveScopes, type Principal } from '../src/platform/access/principal.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from '../src/platform/db/database.ts';
import { runMigrations } from '../src/platform/db/migrate.ts';
import { Jobs } from '../src/platform/jobs/jobs.ts';
import { tablesOf } from '../src/platform/module.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestDatabase, drivers, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

/**
 * The firing rate bound per alert (ALERT_MAX_FIRINGS_PER_MINUTE, here 3): a burst of three, then
 * one every 20 s; a firing past it is recorded as `rate_limited` and delivers nothing. The cooldown
 * is checked first, and the bound holds when many events fire one alert at once.
 */
const logger = createLogger('silent');
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../src/migrations', import.meta.url));
const owner: Principal = { kind: 'key', id: 'k1', name: 'one', scopes: effectiveScopes(['write']) };
let sequence = 0;
const event = (): AlertEvent => ({
  id: `rate-${++sequence}`,
  type: 'flash_crash',
  severity: 'critical',
  description: 'BTC/USDT fell 12% in 4 minutes',
  asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
  occurredAt: new Date('2025-06-11T15:00:00.000Z'),
  watchdog: 'price_anomaly',
  data: {},
  sample: false,
});
const body = (id: string, cooldown: number) => ({
  alert_id: id,
  name: id,
  trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
  delivery_methods: ['webhook'],
  webhook_config: { url: 'https://hooks.example.com/x' },
  cooldown_seconds: cooldown,
});

describe.each(drivers)('the firing rate bound on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  let clock: ManualClock;
  let store: AlertService;
  let firing: AlertFiring;

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger,
      tables: tablesOf(modules),
      poolSize: 8,
    });
    await runMigrations(handle, MIGRATIONS_FOLDER);
    jobs = new Jobs(handle, { logger });
    await jobs.start();
    await jobs.ensureQueue(deliverJob);
    clock = new ManualClock(Date.parse('2025-06-11T15:00:00Z'));
    store = new AlertService({ db: handle.db, clock, logger, secrets: new SecretBox(randomBytes(32)) });
    firing = new AlertFiring({ database: handle, jobs, clock, logger, maxPerMinute: 3 });
    await store.create(owner, parseAlertInput(body('loud', 0)));
    await store.create(owner, parseAlertInput(body('cooling', 600)));
    await store.create(owner, parseAlertInput(body('crowded', 0)));
  }, 60_000);
  afterAll(async () => {
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });

  const statuses = async (alertId: string) =>
    (await handle.db.select().from(alertFirings).where(eq(alertFirings.alertId, alertId)))
      .sort((a, b) => Number(a.eventId.slice(5)) - Number(b.eventId.slice(5)))
      .map((f) => f.status);
  const deliveries = async (alertId: string) =>
    (
      await handle.db
        .select()
        .from(alertDeliveries)
        .where(and(eq(alertDeliveries.owner, owner.id), eq(alertDeliveries.alertId, alertId)))
    ).length;

  it('fires a burst of the bound, then one per interval; the rest are recorded as rate_limited', async () => {
    const loud = await store.get(owner, 'loud');
    const outcomes = [];
    for (let i = 0; i < 5; i++) outcomes.push(await firing.fire(loud, event()));
    expect(outcomes).toEqual(['fired', 'fired', 'fired', 'rate_limited', 'rate_limited']);
    await clock.advance(20_000);
    expect(await firing.fire(loud, event())).toBe('fired');
    expect(await firing.fire(loud, event())).toBe('rate_limited');
    await clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect(await firing.fire(loud, event())).toBe('fired');
    expect(await firing.fire(loud, event())).toBe('rate_limited');

    expect(await statuses('loud')).toEqual([
      ...['fired', 'fired', 'fired', 'rate_limited', 'rate_limited'],
      ...['fired', 'rate_limited'],
      ...['fired', 'fired', 'fired', 'rate_limited'],
    ]);
    // Only firings that fired deliver and count.
    expect(await deliveries('loud')).toBe(7);
    expect((await store.get(owner, 'loud')).triggerCount).toBe(7);
  });

  it('the cooldown holds first: a firing within it is `cooldown`, not `rate_limited`', async () => {
    const cooling = await store.get(owner, 'cooling');
    expect(await firing.fire(cooling, event())).toBe('fired');
    expect(await firing.fire(cooling, event())).toBe('cooldown');
    expect(await statuses('cooling')).toEqual(['fired', 'cooldown']);
  });

  it('without a cooldown, fires whatever order concurrent firings took their times in', async () => {
    // Two firings that run at once take their `now` before their transactions; the later one
    // may commit first. The earlier one still fires, and last_triggered keeps the later time.
    await store.create(owner, parseAlertInput(body('unhurried', 0)));
    const unhurried = await store.get(owner, 'unhurried');
    const ahead = new AlertFiring({
      database: handle,
      jobs,
      clock: new ManualClock(clock.now().getTime() + 1_000),
      logger,
      maxPerMinute: 3,
    });
    expect(await ahead.fire(unhurried, event())).toBe('fired');
    expect(await firing.fire(unhurried, event())).toBe('fired');
    const after = await store.get(owner, 'unhurried');
    expect(after.triggerCount).toBe(2);
    expect(after.lastTriggered?.getTime()).toBe(clock.now().getTime() + 1_000);
  });

  it('holds when many events fire one alert at once', async () => {
    const crowded = await store.get(owner, 'crowded');
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => firing.fire(crowded, event())));
    expect(outcomes.filter((o) => o === 'fired')).toHaveLength(3);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(9);
    expect(await deliveries('crowded')).toBe(3);
  });
});

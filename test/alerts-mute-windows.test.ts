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
 * An alert's mute window (weekdays 16:00-09:30 New York time, outside market hours): a firing
 * inside it is recorded as `silenced` (naming the window) and delivers nothing; outside it fires.
 * The window is read from the alert's stored row, on whichever instance fires.
 */
const logger = createLogger('silent');
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../src/migrations', import.meta.url));
const owner: Principal = { kind: 'key', id: 'k1', name: 'one', scopes: effectiveScopes(['write']) };
let sequence = 0;
const event = (): AlertEvent => ({
  id: `mute-${++sequence}`,
  type: 'flash_crash',
  severity: 'critical',
  description: 'AAPL fell 12% in 4 minutes',
  asset: { symbol: 'AAPL', assetType: 'stock' },
  occurredAt: new Date('2026-01-01T00:00:00.000Z'),
  watchdog: 'price_anomaly',
  data: {},
  sample: false,
});

describe.each(drivers)('mute windows on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  let store: AlertService;
  let firing: AlertFiring;
  // Monday 2026-01-05 20:59 UTC = 15:59 in New York (UTC-5): a minute before the window.
  const clock = new ManualClock(Date.parse('2026-01-05T20:59:00Z'));

  beforeAll(async () => {
    database = await createTestDatabase(driver);
    handle = await openDatabase({
      url: database.url,
      pgliteDir: pgliteDirFor(database.dataDir),
      logger,
      tables: tablesOf(modules),
      poolSize: 4,
    });
    await runMigrations(handle, MIGRATIONS_FOLDER);
    jobs = new Jobs(handle, { logger });
    await jobs.start();
    await jobs.ensureQueue(deliverJob);
    store = new AlertService({ db: handle.db, clock, logger, secrets: new SecretBox(randomBytes(32)) });
    firing = new AlertFiring({ database: handle, jobs, clock, logger });
    await store.create(
      owner,
      parseAlertInput({
        alert_id: 'aapl',
        name: 'AAPL crash',
        trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
        delivery_methods: ['webhook'],
        webhook_config: { url: 'https://hooks.example.com/x' },
        cooldown_seconds: 0,
        mute_windows: [
          { days: ['sat'], start: '10:00', end: '11:00', time_zone: 'Europe/London' },
          {
            days: ['mon', 'tue', 'wed', 'thu', 'fri'],
            start: '16:00',
            end: '09:30',
            time_zone: 'America/New_York',
          },
        ],
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });

  const fire = async () => {
    const e = event();
    const outcome = await firing.fire(await store.get(owner, 'aapl'), e);
    const [row] = await handle.db
      .select()
      .from(alertFirings)
      .where(and(eq(alertFirings.alertId, 'aapl'), eq(alertFirings.eventId, e.id)));
    const deliveries = await handle.db
      .select()
      .from(alertDeliveries)
      .where(eq(alertDeliveries.firingId, row!.id));
    return { outcome, status: row!.status, silencedBy: row!.silencedBy, deliveries: deliveries.length };
  };

  it('fires outside the window and is silenced inside it, across midnight, until market open', async () => {
    expect(await fire()).toEqual({ outcome: 'fired', status: 'fired', silencedBy: null, deliveries: 1 });
    await clock.advance(60_000); // 16:00 New York
    expect(await fire()).toEqual({
      outcome: 'silenced',
      status: 'silenced',
      silencedBy: 'mute_window:1',
      deliveries: 0,
    });
    await clock.advance(17 * 3_600_000 + 29 * 60_000); // Tuesday 09:29 New York
    expect((await fire()).status).toBe('silenced');
    await clock.advance(60_000); // 09:30: the market is open
    expect(await fire()).toMatchObject({ status: 'fired', deliveries: 1 });
    expect((await store.get(owner, 'aapl')).triggerCount).toBe(2);
  });
});

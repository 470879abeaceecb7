/**
 * Acknowledgement, resolution and grouping as the engine records them, on each database driver:
 * which firings deliver, which notices are stored, and to which targets. Two sets of services over
 * one database stand for two instances.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { and, asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertService } from '../src/alerts/alert.service.ts';
import type { AlertEvent } from '../src/alerts/alert-event.model.ts';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { alertDeliveries, alertEpisodes, alertFirings, alertGroups } from '../src/alerts/alerts.sql.ts';
import { deliverJob } from '../src/alerts/delivery/delivery.jobs.ts';
import { AlertEpisodes } from '../src/alerts/episodes.service.ts';
import { AlertFiring } from '../src/alerts/firing.ts';
import { flushGroupJob } from '../src/alerts/groups.jobs.ts';
import { AlertGroups } from '../src/alerts/groups.service.ts';
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

const logger = createLogger('silent');
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../src/migrations', import.meta.url));
const owner: Principal = { kind: 'key', id: 'k1', name: 'ops-one', scopes: effectiveScopes(['write']) };

const event = (id: string, symbol = 'BTC/USDT', over: Partial<AlertEvent> = {}): AlertEvent => ({
  id,
  type: 'flash_crash',
  severity: 'critical',
  description: `${symbol} fell 12% in 4 minutes`,
  asset: { symbol, assetType: 'crypto' },
  occurredAt: new Date('2025-06-11T15:00:00.000Z'),
  watchdog: 'price_anomaly',
  data: { change: -0.12 },
  sample: false,
  ...over,
});

/** Webhook and PagerDuty targets (never reached: nothing runs the deliveries here). */
const body = (id: string, over: Record<string, unknown> = {}) => ({
  alert_id: id,
  name: `alert ${id}`,
  trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
  delivery_methods: ['webhook', 'pagerduty'],
  webhook_config: { url: 'https://hooks.example.com/x' },
  pagerduty_config: { routing_key: 'R0UT1NGKEY0000000000000000000000' },
  cooldown_seconds: 0,
  ...over,
});

describe.each(drivers)('episodes and groups on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  let clock: ManualClock;
  let store: AlertService;
  let firing: AlertFiring;
  let groups: AlertGroups;
  let episodes: AlertEpisodes;

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
    await jobs.ensureQueue(flushGroupJob);
    clock = new ManualClock(Date.parse('2025-06-11T15:00:00Z'));
    store = new AlertService({ db: handle.db, clock, logger, secrets: new SecretBox(randomBytes(32)) });
    groups = new AlertGroups({ database: handle, jobs, clock, logger });
    episodes = new AlertEpisodes({ database: handle, jobs, clock, logger, groups });
    firing = new AlertFiring({ database: handle, jobs, clock, logger, groups });
  });
  afterAll(async () => {
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });

  const create = (wire: Record<string, unknown>) => store.create(owner, parseAlertInput(wire));
  const key = (id: string) => ({ owner: owner.id, id });
  const firingsOf = (alertId: string) =>
    handle.db
      .select()
      .from(alertFirings)
      .where(and(eq(alertFirings.owner, owner.id), eq(alertFirings.alertId, alertId)))
      .orderBy(asc(alertFirings.firedAt), asc(alertFirings.eventId));
  const deliveriesOf = async (firingId: string) =>
    (await handle.db.select().from(alertDeliveries).where(eq(alertDeliveries.firingId, firingId)))
      .map((d) => d.method)
      .sort();
  const firingOf = async (alertId: string, eventId: string) =>
    (await firingsOf(alertId)).find((f) => f.eventId === eventId)!;

  it('holds the repeats of an acknowledged condition until it resolves, and tells PagerDuty alone', async () => {
    const alert = await create(body('ack'));
    expect(await firing.fire(alert, event('a1'))).toBe('fired');
    const first = await firingOf('ack', 'a1');
    expect(await deliveriesOf(first.id)).toEqual(['pagerduty', 'webhook']);

    const acked = await episodes.acknowledge(key('ack'), first.id, 'ops-one', 'looking into it');
    expect(acked.episode).toMatchObject({
      state: 'acknowledged',
      acknowledgedBy: 'ops-one',
      acknowledgementNote: 'looking into it',
    });
    const ack = await firingOf('ack', `ack:${first.episodeId}`);
    expect(ack.kind).toBe('acknowledged');
    expect(await deliveriesOf(ack.id)).toEqual(['pagerduty']);
    // Acknowledging again keeps the first acknowledgement and sends nothing more.
    const again = await episodes.acknowledge(key('ack'), first.id, 'someone-else', null);
    expect(again.episode?.acknowledgedBy).toBe('ops-one');

    // The same condition again: recorded, not sent. Another asset is another condition: sent.
    expect(await firing.fire(alert, event('a2'))).toBe('acknowledged');
    expect(await deliveriesOf((await firingOf('ack', 'a2')).id)).toEqual([]);
    expect(await firing.fire(alert, event('a3', 'ETH/USDT'))).toBe('fired');
    expect((await firingOf('ack', 'a2')).episodeId).toBe(first.episodeId);

    // Resolved by hand, the condition fires again in a new episode.
    const resolved = await episodes.resolve(key('ack'), first.id, 'ops-one', 'fixed upstream');
    expect(resolved.episode).toMatchObject({
      state: 'resolved',
      resolvedReason: 'manual',
      resolvedBy: 'ops-one',
    });
    expect(await firing.fire(alert, event('a4'))).toBe('fired');
    expect((await firingOf('ack', 'a4')).episodeId).not.toBe(first.episodeId);
    // send_resolved is off: no resolved notice was stored.
    expect((await firingsOf('ack')).filter((f) => f.kind === 'resolved')).toEqual([]);
    await expect(episodes.acknowledge(key('ack'), first.id, 'ops-one', null)).rejects.toMatchObject({
      code: 'EPISODE_RESOLVED',
    });
  });

  it('refuses a firing with no episode, or of another alert', async () => {
    const alert = await create(body('noep', { cooldown_seconds: 600 }));
    await create(body('other'));
    await firing.fire(alert, event('n1'));
    const n1 = await firingOf('noep', 'n1');
    await episodes.resolve(key('noep'), n1.id, 'ops-one', null);
    // Held by the cooldown with no open episode of its condition: it joins none.
    expect(await firing.fire(alert, event('n2'))).toBe('cooldown');
    const n2 = await firingOf('noep', 'n2');
    expect(n2.episodeId).toBeNull();
    await expect(episodes.acknowledge(key('noep'), n2.id, 'ops-one', null)).rejects.toMatchObject({
      code: 'FIRING_HAS_NO_EPISODE',
    });
    await expect(episodes.acknowledge(key('noep'), 'no-such-firing', 'ops-one', null)).rejects.toMatchObject({
      code: 'FIRING_NOT_FOUND',
    });
    await expect(episodes.resolve(key('other'), n1.id, 'ops-one', null)).rejects.toMatchObject({
      code: 'FIRING_NOT_FOUND',
    });
    // Resolving again answers the episode as it is.
    expect((await episodes.resolve(key('noep'), n1.id, 'someone', 'again')).episode).toMatchObject({
      resolvedBy: 'ops-one',
    });
  });

  it('resolves a quiet condition after its resolve timeout and sends the resolution where asked', async () => {
    const alert = await create(body('quiet', { send_resolved: true, resolve_timeout_seconds: 120 }));
    await firing.fire(alert, event('q1'));
    await clock.advance(60_000);
    await firing.fire(alert, event('q2'));
    await clock.advance(90_000);
    // 90 s since the last event: not yet.
    await episodes.sweep();
    const [open] = await handle.db.select().from(alertEpisodes).where(eq(alertEpisodes.alertId, 'quiet'));
    expect(open?.resolvedAt).toBeNull();
    expect(open?.firings).toBe(2);
    await clock.advance(31_000);
    expect(await episodes.sweep()).toBeGreaterThanOrEqual(1);
    const notice = (await firingsOf('quiet')).find((f) => f.kind === 'resolved')!;
    expect(notice.notice).toMatchObject({ reason: 'timeout', duration_seconds: 60 + 90 + 31 - 0 });
    expect(await deliveriesOf(notice.id)).toEqual(['pagerduty', 'webhook']);
  });

  it('groups firings: one notification after group_wait, news at most once per group_interval, reminders', async () => {
    const grouping = {
      group_by: ['asset'],
      group_wait_seconds: 30,
      group_interval_seconds: 300,
      repeat_interval_seconds: 3600,
    };
    const alert = await create(body('grp', { grouping, resolve_timeout_seconds: 86_400 }));
    expect(await firing.fire(alert, event('g1'))).toBe('grouped');
    await clock.advance(1);
    expect(await firing.fire(alert, event('g2'))).toBe('grouped');
    expect(await firing.fire(alert, event('g3', 'ETH/USDT'))).toBe('grouped');
    expect(await deliveriesOf((await firingOf('grp', 'g1')).id)).toEqual([]);
    const rows = await handle.db.select().from(alertGroups).where(eq(alertGroups.alertId, 'grp'));
    expect(rows.map((g) => g.groupKey).sort()).toEqual(['asset=BTC/USDT', 'asset=ETH/USDT']);
    const btc = rows.find((g) => g.groupKey === 'asset=BTC/USDT')!;

    // Not due before group_wait; due after. Two instances flushing at once send it once.
    await groups.flush(btc.id);
    expect((await firingsOf('grp')).filter((f) => f.kind === 'group')).toEqual([]);
    await clock.advance(30_000);
    const second = new AlertGroups({ database: handle, jobs, clock, logger });
    await Promise.all([groups.flush(btc.id), second.flush(btc.id)]);
    const notices = (await firingsOf('grp')).filter((f) => f.kind === 'group');
    expect(notices).toHaveLength(1);
    expect(
      (notices[0]!.notice as { events: Array<{ event_id: string }> }).events.map((e) => e.event_id),
    ).toEqual(['g1', 'g2']);
    expect(await deliveriesOf(notices[0]!.id)).toEqual(['pagerduty', 'webhook']);
    expect((await firingOf('grp', 'g1')).status).toBe('fired');

    // A new event waits for the group interval.
    await clock.advance(10_000);
    expect(await firing.fire(alert, event('g4'))).toBe('grouped');
    await groups.flush(btc.id);
    expect((await firingsOf('grp')).filter((f) => f.kind === 'group')).toHaveLength(1);
    await clock.advance(290_000);
    await groups.flush(btc.id);
    const news = (await firingsOf('grp')).filter((f) => f.kind === 'group' && f.groupId === btc.id);
    expect(news).toHaveLength(2);
    expect((news[1]!.notice as { events: unknown[]; repeat: boolean }).events).toHaveLength(1);

    // Nothing new for the repeat interval: a reminder of the open events.
    await clock.advance(3_600_000);
    await groups.flush(btc.id);
    const reminder = (await firingsOf('grp')).filter((f) => f.kind === 'group' && f.groupId === btc.id)[2]!;
    expect(reminder.notice).toMatchObject({ repeat: true });

    // Acknowledging the group's notice stops the reminders, and PagerDuty hears of it.
    await episodes.acknowledge(key('grp'), reminder.id, 'ops-one', null);
    const ack = await firingOf('grp', `ack:group:${btc.id}`);
    expect(await deliveriesOf(ack.id)).toEqual(['pagerduty']);
    await clock.advance(3_600_000);
    await groups.flush(btc.id);
    expect((await firingsOf('grp')).filter((f) => f.kind === 'group' && f.groupId === btc.id)).toHaveLength(
      3,
    );
  });

  it('ends a group when its episodes resolve, with one resolved notice for the group', async () => {
    const grouping = {
      group_by: [],
      group_wait_seconds: 0,
      group_interval_seconds: 60,
      repeat_interval_seconds: 600,
    };
    const alert = await create(
      body('grpend', { grouping, send_resolved: true, resolve_timeout_seconds: 60 }),
    );
    await firing.fire(alert, event('h1'));
    await firing.fire(alert, event('h2', 'ETH/USDT'));
    const [group] = await handle.db.select().from(alertGroups).where(eq(alertGroups.alertId, 'grpend'));
    await groups.flush(group!.id);
    expect((await firingsOf('grpend')).filter((f) => f.kind === 'group')).toHaveLength(1);
    await clock.advance(61_000);
    await episodes.sweep();
    const resolved = (await firingsOf('grpend')).filter((f) => f.kind === 'resolved');
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.notice).toMatchObject({ incident_key: 'group/*' });
    const [ended] = await handle.db.select().from(alertGroups).where(eq(alertGroups.id, group!.id));
    expect(ended?.resolvedAt).not.toBeNull();
    // The next firing opens a new group.
    expect(await firing.fire(alert, event('h3'))).toBe('grouped');
    expect(await handle.db.select().from(alertGroups).where(eq(alertGroups.alertId, 'grpend'))).toHaveLength(
      2,
    );
  });
});

import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertService } from '../src/alerts/alert.service.ts';
import type { AlertEvent } from '../src/alerts/alert-event.model.ts';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { alertDeliveries, alertFirings, alerts } from '../src/alerts/alerts.sql.ts';
import { deliverJob } from '../src/alerts/delivery/delivery.jobs.ts';
import type { AttemptOutcome, AttemptRequest } from '../src/alerts/delivery/delivery.model.ts';
import { recoverDeliveries } from '../src/alerts/delivery/delivery.recovery.ts';
import { DeliveryRunner } from '../src/alerts/delivery/delivery.runner.ts';
import { backoffMs } from '../src/alerts/delivery/retry.rules.ts';
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

const logger = createLogger('silent');
const MIGRATIONS_FOLDER = fileURLToPath(new URL('../src/migrations', import.meta.url));
const owner: Principal = { kind: 'key', id: 'k1', name: 'one', scopes: effectiveScopes(['write']) };
const other: Principal = { kind: 'key', id: 'k2', name: 'two', scopes: effectiveScopes(['write']) };

const event = (id: string, over: Partial<AlertEvent> = {}): AlertEvent => ({
  id,
  type: 'flash_crash',
  severity: 'critical',
  description: 'BTC/USDT fell 12% in 4 minutes',
  asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
  occurredAt: new Date('2025-06-11T15:00:00.000Z'),
  watchdog: 'price_anomaly',
  data: { change: -0.12 },
  sample: false,
  ...over,
});

const body = (id: string, over: Record<string, unknown> = {}) => ({
  alert_id: id,
  name: `alert ${id}`,
  trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'], assets: ['BTC/USDT'] } },
  delivery_methods: ['webhook', 'chat'],
  webhook_config: { url: 'https://hooks.example.com/x', signing_secret: 'shh-signing' },
  chat_config: { chat_ids: ['42'], bot_token: '123:secret-token' },
  cooldown_seconds: 60,
  ...over,
});

describe.each(drivers)('alerts engine on %s', (driver) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let jobs: Jobs;
  let clock: ManualClock;
  let store: AlertService;
  let firing: AlertFiring;
  let runner: DeliveryRunner;
  const script: Array<AttemptOutcome | ((r: AttemptRequest) => AttemptOutcome)> = [];
  const requests: AttemptRequest[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(driver);
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
    await jobs.ensureQueue(deliverJob);
    clock = new ManualClock(Date.parse('2025-06-11T15:00:00Z'));
    store = new AlertService({ db: handle.db, clock, logger, secrets: new SecretBox(randomBytes(32)) });
    firing = new AlertFiring({ database: handle, jobs, clock, logger });
    runner = new DeliveryRunner({
      database: handle,
      jobs,
      clock,
      logger,
      maxAttempts: 3,
      attemptTimeoutMs: 10_000,
      random: () => 0.5,
      deliver: async (request) => {
        requests.push(request);
        const next = script.shift() ?? { status: 'delivered', responseCode: 200, latencyMs: 5 };
        return typeof next === 'function' ? next(request) : next;
      },
    });
  });
  afterAll(async () => {
    await jobs?.stop(1_000);
    await handle?.close();
    await database?.cleanup();
  });

  // Alerts as a client writes them (the wire shape), read at the edge as the surfaces do.
  const create = async (principal: Principal, wire: Record<string, unknown>) =>
    store.create(principal, parseAlertInput(wire));
  const replace = async (principal: Principal, id: string, wire: Record<string, unknown>) =>
    store.replace(principal, id, parseAlertInput(wire));

  const deliveriesOf = (alertId: string) =>
    handle.db.select().from(alertDeliveries).where(eq(alertDeliveries.alertId, alertId));

  it('keeps secrets sealed: alerts say which are set, the row holds no plain text, delivery can open them', async () => {
    const view = await create(owner, body('a1'));
    expect(view.secrets.names).toEqual(['botToken', 'signingSecret']);
    expect(JSON.stringify(view)).not.toMatch(/secret-token|shh-signing/);
    const [row] = await handle.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.owner, owner.id), eq(alerts.id, 'a1')));
    expect(JSON.stringify(row)).not.toMatch(/secret-token|shh-signing/);
    expect(row?.secretFields).toEqual(['bot_token', 'signing_secret']);
    const stored = await store.get(owner, 'a1');
    expect(store.secretsOf(stored)).toEqual({ botToken: '123:secret-token', signingSecret: 'shh-signing' });
    // Another owner's alert with the same id is another alert; the first is not theirs to see.
    await expect(store.get(other, 'a1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await create(other, body('a1'));
  });

  it('replacing without secrets keeps them; null removes one; a rejected write changes nothing', async () => {
    const { chat_config: _c, webhook_config: _w, ...rest } = body('a1');
    await replace(owner, 'a1', {
      ...rest,
      webhook_config: { url: 'https://hooks.example.com/y' },
      chat_config: { chat_ids: ['42'], bot_token: null },
    });
    const stored = await store.get(owner, 'a1');
    expect(store.secretsOf(stored)).toEqual({ signingSecret: 'shh-signing' });
    await expect(replace(owner, 'a1', { ...rest, cooldown_seconds: -5 })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
    });
    await expect(replace(owner, 'a1', body('other-id'))).rejects.toMatchObject({
      code: 'BAD_USER_INPUT',
      details: { field: 'alert_id' },
    });
    expect((await store.get(owner, 'a1')).webhook).toMatchObject({
      url: 'https://hooks.example.com/y',
    });
    await replace(owner, 'a1', body('a1'));
  });

  it('fires once per event whoever asks, holds the cooldown, and fires again after it', async () => {
    const alert = await store.get(owner, 'a1');
    expect(await firing.fire(alert, event('e1'))).toBe('fired');
    expect(await firing.fire(alert, event('e1'))).toBe('duplicate');
    expect(await firing.fire(alert, event('e2'))).toBe('cooldown');
    await clock.advance(60_000);
    expect(await firing.fire(alert, event('e3'))).toBe('fired');
    const firings = await handle.db.select().from(alertFirings).where(eq(alertFirings.alertId, 'a1'));
    expect(
      firings
        .filter((f) => f.owner === 'k1')
        .map((f) => [f.eventId, f.status])
        .sort(),
    ).toEqual([
      ['e1', 'fired'],
      ['e2', 'cooldown'],
      ['e3', 'fired'],
    ]);
    expect((await store.get(owner, 'a1')).triggerCount).toBe(2);
    // One delivery per method per firing.
    expect((await deliveriesOf('a1')).filter((d) => d.owner === 'k1')).toHaveLength(4);
  });

  it('matches events to enabled watchdog_event alerts only', async () => {
    await create(
      owner,
      body('only-eth', { trigger: { type: 'watchdog_event', event_filter: { assets: ['ETH/USDT'] } } }),
    );
    await create(owner, body('off', { enabled: false, trigger: { type: 'watchdog_event' } }));
    await clock.advance(120_000);
    const fired = await firing.onWatchdogEvent(event('e4'));
    // a1 (owner k1) and a1 (owner k2) match; only-eth and the disabled one do not.
    expect(fired).toBe(2);
  });

  it("retries with the receiver's Retry-After, keeps one delivery id, and records every attempt", async () => {
    const [delivery] = (await deliveriesOf('a1')).filter((d) => d.owner === 'k1' && d.status === 'pending');
    script.push({
      status: 'retry',
      responseCode: 503,
      latencyMs: 12,
      error: 'HTTP 503',
      retryAfterMs: 30_000,
    });
    expect(await runner.run(delivery!.id)).toBe('retrying');
    const [after] = await handle.db
      .select()
      .from(alertDeliveries)
      .where(eq(alertDeliveries.id, delivery!.id));
    expect(after).toMatchObject({ status: 'retrying', attempts: 1, lastError: 'HTTP 503' });
    expect(after!.nextAttemptAt!.getTime() - clock.now().getTime()).toBe(30_000);
    expect(await runner.run(delivery!.id)).toBe('delivered');
    expect(await runner.run(delivery!.id)).toBe('done');
    const ids = requests.slice(-2).map((r) => [r.deliveryId, r.attempt]);
    expect(ids).toEqual([
      [delivery!.id, 1],
      [delivery!.id, 2],
    ]);
    const record = await store.deliveries(owner, 'a1');
    expect(
      record.filter((r) => r.deliveryId === delivery!.id).map((r) => [r.attempt, r.status, r.responseCode]),
    ).toEqual([
      [2, 'delivered', 200],
      [1, 'retry', 503],
    ]);
  });

  it('fails for good after the last attempt, and at once on a permanent failure', async () => {
    const pending = (await deliveriesOf('a1')).filter((d) => d.owner === 'k1' && d.status === 'pending');
    for (let i = 0; i < 3; i++)
      script.push({ status: 'retry', responseCode: null, latencyMs: 3, error: 'connection refused' });
    expect(await runner.run(pending[0]!.id)).toBe('retrying');
    expect(await runner.run(pending[0]!.id)).toBe('retrying');
    expect(await runner.run(pending[0]!.id)).toBe('failed');
    const [gaveUp] = await handle.db
      .select()
      .from(alertDeliveries)
      .where(eq(alertDeliveries.id, pending[0]!.id));
    expect(gaveUp).toMatchObject({ status: 'failed', attempts: 3 });
    expect(gaveUp!.lastError).toMatch(/gave up after 3 attempts/);
    script.push({
      status: 'failed',
      responseCode: 400,
      latencyMs: 3,
      error: "Bad Request: can't parse entities",
    });
    expect(await runner.run(pending[1]!.id)).toBe('failed');
  });

  it('one attempt at a time; an attempt cut short by a dead worker is resumed by the recovery sweep', async () => {
    const alert = await store.get(owner, 'a1');
    await clock.advance(120_000);
    expect(await firing.fire(alert, event('e-crash'))).toBe('fired');
    const [delivery] = (await deliveriesOf('a1')).filter((d) => d.owner === 'k1' && d.status === 'pending');
    // A worker took it and died: the claim stays.
    await handle.db
      .update(alertDeliveries)
      .set({ status: 'sending', claimedAt: clock.now() })
      .where(eq(alertDeliveries.id, delivery!.id));
    expect(await runner.run(delivery!.id)).toBe('done');
    const sweep = () => recoverDeliveries(runner, { database: handle, jobs, clock, logger });
    const queued = await jobs.queueSize(deliverJob);
    expect(await sweep()).toBe(0);
    await clock.advance(runner.staleClaimMs + 1);
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(await jobs.queueSize(deliverJob)).toBeGreaterThan(queued);
    expect(await runner.run(delivery!.id)).toBe('delivered');
    expect(requests.at(-1)).toMatchObject({ deliveryId: delivery!.id, attempt: 1 });
  });

  it('two jobs of one delivery that start together make one attempt', async () => {
    const alert = await store.get(owner, 'a1');
    await clock.advance(120_000);
    expect(await firing.fire(alert, event('e-twice'))).toBe('fired');
    const pending = (await deliveriesOf('a1')).filter((d) => d.owner === 'k1' && d.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    const before = requests.length;
    // Started in the same turn: their claims share one statement.
    const outcomes = await Promise.all(pending.flatMap((d) => [runner.run(d.id), runner.run(d.id)]));
    expect(outcomes.filter((o) => o === 'delivered')).toHaveLength(pending.length);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(pending.length);
    expect(requests.length - before).toBe(pending.length);
  });

  it('backs off exponentially with jitter, capped, and honours Retry-After up to an hour', () => {
    expect(backoffMs(1, undefined, () => 0.5)).toBe(5_000);
    expect(backoffMs(3, undefined, () => 0.5)).toBe(20_000);
    expect(backoffMs(30, undefined, () => 0.5)).toBe(15 * 60_000);
    expect(backoffMs(1, undefined, () => 0)).toBe(4_000);
    expect(backoffMs(2, 7_000)).toBe(7_000);
    expect(backoffMs(2, 10 * 3_600_000)).toBe(3_600_000);
  });

  it('deleting an alert removes its firings and records; its pending deliveries end as failed', async () => {
    const pending = (await deliveriesOf('a1')).filter((d) => d.owner === 'k2');
    await store.delete(other, 'a1');
    await expect(store.get(other, 'a1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await runner.run(pending[0]!.id)).toBe('done');
  });
});

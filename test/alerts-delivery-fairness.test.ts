/**
 * Fair between owners: one owner's alerts aimed at a receiver that never answers take at most that
 * owner's share of the delivery workers, so another owner's webhook goes out while they hang; and a
 * destination that keeps failing is paused, its deliveries held (not failed, not attempted, holding
 * no worker) until it may be tried again. Through the running app: events published, fired and
 * delivered by the job workers to local receivers.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { alertDeliveries } from '../src/alerts/alerts.sql.ts';
import { effectiveScopes, type Principal } from '../src/platform/access/principal.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { sampleValue } from './support/metric-lint.ts';

const OWNER_SHARE = 4;
/** More than an instance's 64 workers. */
const BAD_ALERTS = 100;
const bad: Principal = { kind: 'key', id: 'k-bad', name: 'bad', scopes: effectiveScopes(['write']) };
const good: Principal = { kind: 'key', id: 'k-good', name: 'good', scopes: effectiveScopes(['write']) };

const event = (symbol: string): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'flash_crash',
  severity: 'critical',
  symbol,
  asset: { symbol, assetType: 'crypto' },
  description: `${symbol} fell 12.00% in 4 minutes`,
  data: { change: -0.12 },
});

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

async function until(what: string, ms: number, done: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('alerts: fair between owners', () => {
  let t: TestApp;
  let hanging: Server;
  let receiver: Server;
  /** Answers after 100 ms, counting the requests it holds at once. */
  let slow: Server;
  let slowNow = 0;
  let slowMost = 0;
  let slowArrived = 0;
  /** Requests the hanging receiver took (it answers none). */
  let hung = 0;
  let goodArrived = false;
  /** What the bad owner's deliveries had been through when the good webhook arrived. */
  let badAttemptsWhenGoodArrived = -1;
  let publish: (symbol: string) => Promise<unknown>;

  const badCounts = async () => {
    const rows = await t.app.deps.database.db
      .select({
        status: alertDeliveries.status,
        attempts: sql<number>`sum(${alertDeliveries.attempts})::int`,
        n: sql<number>`count(*)::int`,
      })
      .from(alertDeliveries)
      .where(eq(alertDeliveries.owner, bad.id))
      .groupBy(alertDeliveries.status);
    return {
      byStatus: Object.fromEntries(rows.map((r) => [r.status, r.n])) as Record<string, number>,
      attempts: rows.reduce((sum, r) => sum + r.attempts, 0),
    };
  };

  beforeAll(async () => {
    hanging = await listen((req) => {
      req.resume();
      hung++;
    });
    receiver = await listen((req, res) => {
      req.resume();
      req.on('end', async () => {
        res.writeHead(200).end('{"ok":true}');
        if (badAttemptsWhenGoodArrived >= 0) return;
        badAttemptsWhenGoodArrived = (await badCounts()).attempts;
        goodArrived = true;
      });
    });
    slow = await listen((req, res) => {
      req.resume();
      slowNow++;
      slowMost = Math.max(slowMost, slowNow);
      setTimeout(() => {
        slowNow--;
        slowArrived++;
        res.writeHead(200).end('{"ok":true}');
      }, 100);
    });
    t = await createTestApp({
      listen: true,
      env: {
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        ALERT_DELIVERY_TIMEOUT_MS: '2000',
        ALERT_DELIVERY_OWNER_CONCURRENCY: String(OWNER_SHARE),
        RATE_LIMIT_MAX: '10000',
        SECRETS_KEY: 'b'.repeat(64),
      },
    });
    const create = (principal: Principal, id: string, url: string, asset: string) =>
      t.app.deps.alerts.store.create(
        principal,
        parseAlertInput({
          alert_id: id,
          name: id,
          trigger: { type: 'watchdog_event', event_filter: { assets: [asset] } },
          delivery_methods: ['webhook'],
          webhook_config: { url },
          cooldown_seconds: 0,
        }),
      );
    for (let i = 0; i < BAD_ALERTS; i++) await create(bad, `hang-${i}`, urlOf(hanging), 'BAD/USDT');
    await create(good, 'fine', urlOf(receiver), 'GOOD/USDT');
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    publish = (symbol) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, event(symbol)));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    for (const s of [hanging, receiver, slow]) {
      s?.closeAllConnections();
      await new Promise((resolve) => s?.close(resolve));
    }
  });

  it("another owner's webhook goes out while one owner's receivers hang", async () => {
    // The hanging owner's deliveries first (more than the instance has workers), then the other's.
    await publish('BAD/USDT');
    await until('the hanging attempts to start', 30_000, () => hung >= OWNER_SHARE);
    await publish('GOOD/USDT');
    await until('the good webhook', 30_000, () => goodArrived);
    // It went out before any of the hanging attempts had ended (they end only at their deadline).
    expect(badAttemptsWhenGoodArrived).toBe(0);
    // The owner whose receivers hang had at most its share of the workers.
    expect(hung).toBeLessThanOrEqual(OWNER_SHARE);
  }, 60_000);

  it('a destination that keeps failing is paused: its deliveries are held, not failed or attempted', async () => {
    // The first attempts reach their deadline and fail; three in a row pause the destination.
    await until('the first attempts to end', 30_000, async () => (await badCounts()).attempts >= OWNER_SHARE);
    await until('the rest held', 30_000, async () => {
      const { byStatus } = await badCounts();
      return (byStatus.held ?? 0) >= BAD_ALERTS - 2 * OWNER_SHARE;
    });
    const { byStatus, attempts } = await badCounts();
    expect(byStatus.failed ?? 0).toBe(0);
    expect(byStatus.delivered ?? 0).toBe(0);
    // Held for the pause: no attempt used. Attempts were made only until the pause (those that
    // began before the third failure ended) and by a probe: far fewer than the deliveries.
    const held = await t.app.deps.database.db
      .select({ attempts: alertDeliveries.attempts })
      .from(alertDeliveries)
      .where(and(eq(alertDeliveries.owner, bad.id), eq(alertDeliveries.status, 'held')));
    expect(held.length).toBeGreaterThanOrEqual(BAD_ALERTS - 2 * OWNER_SHARE);
    expect(held.every((h) => h.attempts === 0)).toBe(true);
    expect(attempts).toBeLessThanOrEqual(2 * OWNER_SHARE);
    expect(byStatus.sending ?? 0).toBeLessThanOrEqual(OWNER_SHARE);
    expect(hung).toBeLessThanOrEqual(2 * OWNER_SHARE);
  }, 60_000);

  it('the metrics show it: paused destinations, the queue and its oldest delivery, attempts, holds', async () => {
    const text = await (await fetch(`${t.url}/metrics`)).text();
    const value = (name: string, labels: Record<string, string> = {}) => sampleValue(text, name, labels) ?? 0;
    expect(value('vigil_alert_delivery_paused_destinations')).toBe(1);
    expect(value('vigil_alert_delivery_queue_depth', { status: 'held' })).toBeGreaterThanOrEqual(
      BAD_ALERTS - 2 * OWNER_SHARE,
    );
    expect(value('vigil_alert_delivery_oldest_pending_seconds')).toBeGreaterThan(0);
    expect(
      value('vigil_alert_delivery_attempts_total', { method: 'webhook', outcome: 'retry' }),
    ).toBeGreaterThanOrEqual(3);
    expect(value('vigil_alert_deliveries_total', { method: 'webhook', outcome: 'delivered' })).toBe(1);
    expect(value('vigil_alert_delivery_holds_total', { reason: 'owner' })).toBeGreaterThan(0);
  }, 60_000);

  it("a burst to a receiver that answers is not held to its owner's share", async () => {
    const create = (id: string, asset: string) =>
      t.app.deps.alerts.store.create(
        good,
        parseAlertInput({
          alert_id: id,
          name: id,
          trigger: { type: 'watchdog_event', event_filter: { assets: [asset] } },
          delivery_methods: ['webhook'],
          webhook_config: { url: urlOf(slow) },
          cooldown_seconds: 0,
        }),
      );
    // The receiver answers once: it is proven.
    await create('slow-first', 'WARM/USDT');
    await publish('WARM/USDT');
    await until('the first answer', 30_000, () => slowArrived === 1);
    const burst = 6 * OWNER_SHARE;
    for (let i = 0; i < burst; i++) await create(`slow-${i}`, 'BURST/USDT');
    slowMost = 0;
    await publish('BURST/USDT');
    await until('the burst', 30_000, () => slowArrived === 1 + burst);
    // Past the owner's share (the spare workers), while the hanging owner still has its own.
    expect(slowMost).toBeGreaterThan(OWNER_SHARE);
  }, 60_000);
});

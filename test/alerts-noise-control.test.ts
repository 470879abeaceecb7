/**
 * Noise control end to end, as an operator meets it: watchdog events stored in the running app,
 * a local receiver that plays PagerDuty's Events API and a webhook endpoint, and the REST routes.
 * An acknowledgement reaches PagerDuty under the trigger's dedup key and holds the condition's
 * repeats; a resolution reaches both; a grouped alert sends one notification per group listing its
 * events, then news no sooner than its group interval.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

interface Received {
  readonly path: string;
  readonly body: Json;
  readonly at: number;
}

describe('noise control', () => {
  let t: TestApp;
  let receiver: Server;
  let base: string;
  let key: IssuedKey;
  let bus: WatchdogEventBus;
  const received: Received[] = [];
  const arrivals = new (class extends EventTarget {})();

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c;
      });
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(text), at: Date.now() });
        arrivals.dispatchEvent(new Event('arrived'));
        const pagerDuty = req.url?.startsWith('/pd');
        res
          .writeHead(pagerDuty ? 202 : 200, { 'content-type': 'application/json' })
          .end(pagerDuty ? '{"status":"success"}' : '{}');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '1000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        PAGERDUTY_EVENTS_URL: `${base}/pd/v2/enqueue`,
      },
    });
    key = await issueKey(t.app, 'on-call', ['WRITE']);
    bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
  });
  afterAll(async () => {
    await t?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(key.secret), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  const publish = (symbol: string, eventType: NewWatchdogEvent['eventType'] = 'flash_crash') =>
    t.app.deps.database.db.transaction((tx) =>
      bus.publish(tx, {
        watchdog: 'price_anomaly',
        eventType,
        severity: 'critical',
        symbol,
        asset: { symbol, assetType: 'crypto' },
        description: `${symbol} fell 12% in 4 minutes`,
        data: { change: -0.12 },
      }),
    );

  /** Waits until `pick` finds `count` arrivals (or 15 s pass), and answers them. */
  async function arrived(pick: (r: Received) => boolean, count: number): Promise<Received[]> {
    const deadline = Date.now() + 15_000;
    while (received.filter(pick).length < count && Date.now() < deadline) {
      const stop = new AbortController();
      await Promise.race([
        once(arrivals, 'arrived', { signal: stop.signal }).catch(() => undefined),
        new Promise((r) => setTimeout(r, 250)),
      ]);
      stop.abort();
    }
    return received.filter(pick);
  }

  /** The firings of an alert, newest first, once `ready` says they are all there. */
  async function firingsOf(alertId: string, ready: (firings: Json[]) => boolean): Promise<Json[]> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const { body } = await call('GET', `/api/alerts/${alertId}/firings`);
      if (ready(body) || Date.now() > deadline) return body;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('acknowledges on PagerDuty under the trigger’s key, holds repeats, and sends the resolution', async () => {
    const created = await call('POST', '/api/alerts', {
      alert_id: 'crash-desk',
      name: 'Crash desk',
      trigger: {
        type: 'watchdog_event',
        event_filter: { event_types: ['flash_crash'], assets: ['SOL/USDT'] },
      },
      delivery_methods: ['pagerduty', 'webhook'],
      pagerduty_config: { routing_key: 'R0UT1NGKEY0000000000000000000000' },
      webhook_config: { url: `${base}/hook/desk` },
      cooldown_seconds: 0,
      send_resolved: true,
    });
    expect(created.status, created.text).toBe(201);
    await publish('SOL/USDT');
    const [trigger] = await arrived((r) => r.path.startsWith('/pd') && r.body.event_action === 'trigger', 1);
    expect(trigger?.body.dedup_key).toBe('vigil/crash-desk/flash_crash/SOL/USDT');

    const [fired] = await firingsOf('crash-desk', (f) => f.length >= 1);
    const acked = await call('POST', `/api/alerts/crash-desk/firings/${fired.firing_id}/acknowledge`, {
      note: 'on it',
    });
    expect(acked.status, acked.text).toBe(200);
    expect(acked.body.episode).toMatchObject({
      state: 'acknowledged',
      acknowledged_by: 'on-call',
      acknowledgement_note: 'on it',
    });
    const [ack] = await arrived((r) => r.body.event_action === 'acknowledge', 1);
    expect(ack?.body).toEqual({
      routing_key: 'R0UT1NGKEY0000000000000000000000',
      event_action: 'acknowledge',
      dedup_key: trigger?.body.dedup_key,
    });

    // A repeat of the acknowledged condition is recorded and sends nothing.
    const before = received.length;
    await publish('SOL/USDT');
    const firings = await firingsOf('crash-desk', (f) => f.some((x: Json) => x.status === 'acknowledged'));
    expect(firings.map((f: Json) => f.status)).toContain('acknowledged');

    const resolved = await call('POST', `/api/alerts/crash-desk/firings/${fired.firing_id}/resolve`, {
      note: 'exchange back',
    });
    expect(resolved.body.episode, resolved.text).toMatchObject({
      state: 'resolved',
      resolved_reason: 'manual',
    });
    const [pdResolve] = await arrived((r) => r.body.event_action === 'resolve', 1);
    expect(pdResolve?.body.dedup_key).toBe(trigger?.body.dedup_key);
    const [hookResolve] = await arrived(
      (r) => r.path === '/hook/desk' && r.body.notice?.kind === 'resolved',
      1,
    );
    expect(hookResolve?.body.notice).toMatchObject({
      reason: 'manual',
      by: 'on-call',
      note: 'exchange back',
    });
    // Between the acknowledgement and the resolution, nothing else was sent.
    expect(
      received
        .slice(before)
        .map((r) => r.body.event_action ?? r.body.notice?.kind ?? 'event')
        .sort(),
    ).toEqual(['resolve', 'resolved']);
  });

  it('sends one notification per group listing its events, then news after the group interval', async () => {
    const created = await call('POST', '/api/alerts', {
      alert_id: 'crash-groups',
      name: 'Crash groups',
      trigger: {
        type: 'watchdog_event',
        event_filter: { event_types: ['flash_crash'], assets: ['ADA/USDT', 'XRP/USDT'] },
      },
      delivery_methods: ['webhook'],
      webhook_config: { url: `${base}/hook/groups` },
      cooldown_seconds: 0,
      grouping: {
        group_by: ['asset'],
        group_wait_seconds: 1,
        group_interval_seconds: 3,
        repeat_interval_seconds: 3600,
      },
    });
    expect(created.status, created.text).toBe(201);
    const started = Date.now();
    await publish('ADA/USDT');
    await publish('ADA/USDT');
    await publish('XRP/USDT');
    const firsts = await arrived((r) => r.path === '/hook/groups', 2);
    expect(firsts).toHaveLength(2);
    expect(firsts.every((r) => r.at - started >= 900)).toBe(true);
    const byAsset = new Map(firsts.map((r) => [r.body.notice.labels.asset, r.body.notice]));
    expect(byAsset.get('ADA/USDT')).toMatchObject({
      kind: 'group',
      group_key: 'asset=ADA/USDT',
      repeat: false,
    });
    expect(byAsset.get('ADA/USDT').events).toHaveLength(2);
    expect(byAsset.get('XRP/USDT').events).toHaveLength(1);

    // News of a notified group waits for the group interval after its notification.
    const adaSent = firsts.find((r) => r.body.notice.labels.asset === 'ADA/USDT')!.at;
    await publish('ADA/USDT');
    const all = await arrived((r) => r.path === '/hook/groups', 3);
    expect(all).toHaveLength(3);
    expect(all[2]!.at - adaSent).toBeGreaterThanOrEqual(2_900);
    expect(all[2]!.body.notice.events).toHaveLength(1);
    const firings = await firingsOf('crash-groups', () => true);
    expect(firings.filter((f: Json) => f.kind === 'event').every((f: Json) => f.status === 'fired')).toBe(
      true,
    );
  });
  it('sends the resolution of a custom condition that stopped matching, with the episode’s length', async () => {
    const alert = (condition: string) => ({
      alert_id: 'rsi-watch',
      name: 'RSI watch',
      trigger: { type: 'custom_condition', condition },
      delivery_methods: ['webhook'],
      webhook_config: { url: `${base}/hook/rsi` },
      cooldown_seconds: 0,
      send_resolved: true,
    });
    expect((await call('POST', '/api/alerts', alert('SCAN [BTC/USDT] WHERE RSI < 101'))).status).toBe(201);
    // The minute job's work, run now (a 60 s check interval divides every minute).
    await t.app.deps.alerts.evaluateScheduled();
    const [fired] = await arrived((r) => r.path === '/hook/rsi', 1);
    expect(fired?.body.event.type).toBe('custom_condition');
    // The condition no longer matches: its episode has cleared.
    expect(
      (await call('PUT', '/api/alerts/rsi-watch', alert('SCAN [BTC/USDT] WHERE RSI > 101'))).status,
    ).toBe(200);
    await t.app.deps.alerts.evaluateScheduled();
    const [, resolved] = await arrived((r) => r.path === '/hook/rsi', 2);
    expect(resolved?.body.notice).toMatchObject({
      kind: 'resolved',
      incident_key: 'custom_condition/-',
      reason: 'cleared',
      duration_seconds: expect.any(Number),
    });
    const [episode] = (await call('GET', '/api/alerts/rsi-watch/episodes')).body;
    expect(episode).toMatchObject({ state: 'resolved', resolved_reason: 'cleared' });
  });
});

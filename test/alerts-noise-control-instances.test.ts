/**
 * Noise control across a restart and across instances: a group waiting for its notification when
 * its instance stops is notified by the next one (the notification is a stored job, the group a
 * row), once; on Postgres, an acknowledgement made through one instance holds the repeats another
 * instance fires, and two instances sharing the database send a group's notification once.
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, defaultDriver, type TestDatabase } from './support/databases.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies are checked by the expectations, not by types.
type Json = any;

const anyone = anonymousPrincipal(false);

const crash = (symbol: string): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'flash_crash',
  severity: 'critical',
  symbol,
  asset: { symbol, assetType: 'crypto' },
  description: `${symbol} fell 12.00% in 4 minutes`,
  data: { change: -0.12 },
});

describe('noise control across a restart and instances', () => {
  let database: TestDatabase;
  let receiver: Server;
  let base: string;
  const received: Array<{ path: string; body: Json }> = [];
  const arrivals = new EventTarget();
  let env: Record<string, string>;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => {
        text += c;
      });
      req.on('end', () => {
        received.push({ path: req.url ?? '', body: JSON.parse(text) });
        arrivals.dispatchEvent(new Event('arrived'));
        res
          .writeHead(req.url?.startsWith('/pd') ? 202 : 200, { 'content-type': 'application/json' })
          .end('{}');
      });
    });
    receiver.listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    env = {
      ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
      RATE_LIMIT_MAX: '10000',
      SECRETS_KEY: randomBytes(32).toString('hex'),
      PAGERDUTY_EVENTS_URL: `${base}/pd/v2/enqueue`,
    };
    database = await createTestDatabase(defaultDriver);
  });
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => undefined);
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await database?.cleanup();
  });

  const start = async () => {
    const app = await createTestApp({ listen: true, database, env });
    apps.push(app);
    return app;
  };
  const publish = (t: TestApp, symbol: string) => {
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    return t.app.deps.database.db.transaction((tx) => bus.publish(tx, crash(symbol)));
  };
  async function arrived(pick: (r: { path: string; body: Json }) => boolean, count: number) {
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

  it('notifies a group whose instance stopped before its notification, once, from the next instance', async () => {
    const first = await start();
    await first.app.deps.alerts.store.create(
      anyone,
      parseAlertInput({
        alert_id: 'grouped',
        name: 'Grouped crashes',
        trigger: {
          type: 'watchdog_event',
          event_filter: { event_types: ['flash_crash'], assets: ['DOT/USDT'] },
        },
        delivery_methods: ['webhook'],
        webhook_config: { url: `${base}/hook/grouped` },
        cooldown_seconds: 0,
        grouping: { group_wait_seconds: 2, group_interval_seconds: 60, repeat_interval_seconds: 3600 },
      }),
    );
    await publish(first, 'DOT/USDT');
    await publish(first, 'DOT/USDT');
    // Wait until both firings are recorded in the group, then stop before the group wait ends.
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const firings = await first.app.deps.alerts.firingRecord.firings(anyone, 'grouped', {});
      if (firings.filter((f) => f.status === 'grouped').length === 2) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await first.close();
    apps.splice(apps.indexOf(first), 1);
    expect(received.filter((r) => r.path === '/hook/grouped')).toEqual([]);

    // The next instance; on Postgres, a second one beside it.
    await start();
    if (defaultDriver === 'postgres') await start();
    const notices = await arrived((r) => r.path === '/hook/grouped', 1);
    expect(notices[0]?.body.notice).toMatchObject({ kind: 'group', group_key: '*' });
    expect(notices[0]?.body.notice.events).toHaveLength(2);
    // However many instances run, the notification went once.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(received.filter((r) => r.path === '/hook/grouped')).toHaveLength(1);
  });

  it.runIf(defaultDriver === 'postgres')(
    'holds, on one instance, the repeats of a condition acknowledged through another',
    async () => {
      const [one, two] = apps;
      await one!.app.deps.alerts.store.create(
        anyone,
        parseAlertInput({
          alert_id: 'paged',
          name: 'Paged crashes',
          trigger: {
            type: 'watchdog_event',
            event_filter: { event_types: ['flash_crash'], assets: ['LINK/USDT'] },
          },
          delivery_methods: ['pagerduty'],
          pagerduty_config: { routing_key: 'R0UT1NGKEY0000000000000000000000' },
          cooldown_seconds: 0,
        }),
      );
      await publish(one!, 'LINK/USDT');
      await arrived(
        (r) => r.body.event_action === 'trigger' && r.body.dedup_key === 'vigil/paged/flash_crash/LINK/USDT',
        1,
      );
      const [fired] = await two!.app.deps.alerts.firingRecord.firings(anyone, 'paged', {});
      await two!.app.deps.alerts.firingRecord.acknowledge(anyone, 'paged', fired!.id, null);
      await arrived((r) => r.body.event_action === 'acknowledge', 1);
      await publish(one!, 'LINK/USDT');
      const deadline = Date.now() + 10_000;
      let statuses: string[] = [];
      while (Date.now() < deadline) {
        statuses = (await one!.app.deps.alerts.firingRecord.firings(anyone, 'paged', {})).map(
          (f) => f.status,
        );
        if (statuses.includes('acknowledged')) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(statuses).toContain('acknowledged');
      expect(
        received
          .filter((r) => r.body.dedup_key === 'vigil/paged/flash_crash/LINK/USDT')
          .map((r) => r.body.event_action),
      ).toEqual(['trigger', 'acknowledge']);
    },
  );
});

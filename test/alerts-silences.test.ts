import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { alertDeliveries, alertFirings } from '../src/alerts/alerts.sql.ts';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { createTestDatabase, defaultDriver, type TestDatabase } from './support/databases.ts';

/**
 * Silences end to end: a silence created through GraphQL holds the firings it matches (recorded as
 * `silenced`, nothing reaches the webhook receiver) while an alert it does not match delivers; it
 * holds across a restart and, on Postgres, across instances (it is a row the firing reads in its
 * transaction); once expired, the alert delivers again.
 */
const ENV = {
  ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
  RATE_LIMIT_MAX: '10000',
  SECRETS_KEY: randomBytes(32).toString('hex'),
};
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

const SILENCE = `mutation($input: AlertSilenceInput!) {
  createAlertSilence(input: $input) { id state comment createdBy matchers { assets alertIds } startsAt endsAt }
}`;

describe('alert silences end to end', () => {
  let database: TestDatabase;
  let t: TestApp;
  let server: Server;
  let url = '';
  const received: string[] = [];
  let publish: (e: NewWatchdogEvent) => Promise<{ id: string }>;

  const start = async () => {
    t = await createTestApp({ listen: true, database, env: ENV });
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    publish = (e) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, e));
  };

  /** The firing of `alertId` for the event `eventId`, once its job ran. */
  const firingOf = async (alertId: string, eventId: string) => {
    for (let i = 0; i < 400; i++) {
      const [row] = await t.app.deps.database.db
        .select()
        .from(alertFirings)
        .where(and(eq(alertFirings.alertId, alertId), eq(alertFirings.eventId, eventId)));
      if (row) return row;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no firing of ${alertId} for ${eventId}`);
  };
  const deliveriesOf = async (firingId: string) =>
    t.app.deps.database.db.select().from(alertDeliveries).where(eq(alertDeliveries.firingId, firingId));
  const receivedFor = async (alertId: string, count: number) => {
    for (let i = 0; i < 400 && received.filter((a) => a === alertId).length < count; i++)
      await new Promise((r) => setTimeout(r, 25));
    return received.filter((a) => a === alertId).length;
  };

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c) => chunks.push(c));
      request.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString()).alert_id);
        response.end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    database = await createTestDatabase();
    await start();
    for (const [id, symbol] of [
      ['btc', 'BTC/USDT'],
      ['eth', 'ETH/USDT'],
    ] as const) {
      await t.app.deps.alerts.store.create(
        anyone,
        parseAlertInput({
          alert_id: id,
          name: id,
          trigger: {
            type: 'watchdog_event',
            event_filter: { event_types: ['flash_crash'], assets: [symbol] },
          },
          delivery_methods: ['webhook'],
          webhook_config: { url },
          cooldown_seconds: 0,
        }),
      );
    }
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await new Promise((r) => server?.close(r));
    await database?.cleanup();
  });

  let silenceId = '';

  it('silences the alert a silence matches by asset, across a restart; another alert delivers', async () => {
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const created = await graphql<{ createAlertSilence: Record<string, unknown> }>(t.app, SILENCE, {
      input: { matchers: { assets: ['btc/usdt'] }, endsAt, comment: 'exchange maintenance' },
    });
    expect(created.body.errors).toBeUndefined();
    const silence = created.body.data!.createAlertSilence;
    expect(silence).toMatchObject({
      state: 'ACTIVE',
      comment: 'exchange maintenance',
      matchers: { assets: ['BTC/USDT'], alertIds: [] },
      endsAt,
    });
    silenceId = String(silence.id);

    await t.close();
    await start();
    const btc = await publish(crash('BTC/USDT'));
    const eth = await publish(crash('ETH/USDT'));
    expect(await receivedFor('eth', 1)).toBe(1);
    const held = await firingOf('btc', btc.id);
    expect(held).toMatchObject({ status: 'silenced', silencedBy: `silence:${silenceId}` });
    expect(await deliveriesOf(held.id)).toEqual([]);
    expect((await firingOf('eth', eth.id)).status).toBe('fired');
    expect(received).not.toContain('btc');
    expect((await t.app.deps.alerts.store.get(anyone, 'btc')).triggerCount).toBe(0);

    const listed = await graphql<{ alertSilences: Array<{ id: string }> }>(
      t.app,
      '{ alertSilences { id state } }',
    );
    expect(listed.body.data?.alertSilences).toEqual([{ id: silenceId, state: 'ACTIVE' }]);
  }, 60_000);

  it('an expired silence no longer silences', async () => {
    const expired = await graphql<{ expireAlertSilence: { state: string } }>(
      t.app,
      'mutation($id: String!) { expireAlertSilence(id: $id) { state } }',
      { id: silenceId },
    );
    expect(expired.body.data?.expireAlertSilence.state).toBe('EXPIRED');
    const btc = await publish(crash('BTC/USDT'));
    expect(await receivedFor('btc', 1)).toBe(1);
    expect((await firingOf('btc', btc.id)).status).toBe('fired');
    const listed = await graphql<{ alertSilences: unknown[] }>(t.app, '{ alertSilences { id } }');
    expect(listed.body.data?.alertSilences).toEqual([]);
  }, 30_000);

  // Two instances share a database only on Postgres (the embedded one belongs to one process).
  it.runIf(defaultDriver === 'postgres')(
    'a silence created on one instance holds the firings another instance runs',
    async () => {
      const second = await createTestApp({ listen: true, database, env: ENV });
      const created = await graphql<{ createAlertSilence: { id: string } }>(second.app, SILENCE, {
        input: {
          matchers: { alertIds: ['eth'] },
          endsAt: new Date(Date.now() + 3_600_000).toISOString(),
          comment: 'from the second instance',
        },
      });
      const id = created.body.data!.createAlertSilence.id;
      // The second instance is gone: the first one runs the firing, reading the silence the other wrote.
      await second.close();
      const eth = await publish(crash('ETH/USDT'));
      expect(await firingOf('eth', eth.id)).toMatchObject({
        status: 'silenced',
        silencedBy: `silence:${id}`,
      });
      await graphql(t.app, 'mutation($id: String!) { deleteAlertSilence(id: $id) }', { id });
    },
    60_000,
  );

  it('refuses a bad silence naming the field', async () => {
    const now = Date.now();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ endsAt: new Date(now - 1_000).toISOString(), comment: 'x' }, 'ends_at'],
      [
        {
          startsAt: new Date(now + 7_200_000).toISOString(),
          endsAt: new Date(now + 3_600_000).toISOString(),
          comment: 'x',
        },
        'ends_at',
      ],
      [{ endsAt: new Date(now + 400 * 86_400_000).toISOString(), comment: 'x' }, 'ends_at'],
      [{ endsAt: new Date(now + 3_600_000).toISOString(), comment: ' ' }, 'comment'],
      [
        { matchers: { alertIds: ['-bad'] }, endsAt: new Date(now + 3_600_000).toISOString(), comment: 'x' },
        'matchers.alert_ids.0',
      ],
    ];
    for (const [input, field] of cases) {
      const { body } = await graphql(t.app, SILENCE, { input });
      expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'INVALID_ARGUMENTS', field });
    }
    const gone = await graphql(t.app, 'mutation { deleteAlertSilence(id: "nope") }');
    expect(gone.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });
});

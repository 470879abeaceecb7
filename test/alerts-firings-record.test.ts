import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertDeliveries, alertFirings } from '../src/alerts/alerts.sql.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

/**
 * The record of firings and episodes as a user meets it: an alert fires on a watchdog event, its
 * firing is listed over REST, GraphQL and MCP (as its owner only; reading needs `read`), one is
 * acknowledged with a note, and the next firing of the same condition is recorded `acknowledged`
 * and delivers nothing until the episode is resolved by hand.
 */
type Json = Record<string, unknown>;

const crash = (): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'flash_crash',
  severity: 'critical',
  symbol: 'BTC/USDT',
  asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
  description: 'BTC/USDT fell 12.00% in 4 minutes',
  data: { change: -0.12 },
});

const FIRINGS = `query($alertId: ID!, $status: [AlertFiringStatus!]) {
  alertFirings(alertId: $alertId, status: $status) {
    id alertId status kind firedAt silencedBy groupKey
    event { eventId type severity watchdog sample asset { symbol assetType } data }
    episode { id state incidentKey firings durationSeconds }
  }
}`;
const ACKNOWLEDGE = `mutation($alertId: ID!, $firingId: ID!, $note: String) {
  acknowledgeAlertFiring(alertId: $alertId, firingId: $firingId, note: $note) { id episode { state } }
}`;

describe('the record of firings and episodes on every surface', () => {
  let t: TestApp;
  let server: Server;
  const keys = {} as Record<'owner' | 'other' | 'reader', IssuedKey>;
  const clients: Client[] = [];
  const received: Json[] = [];
  const waiters: Array<() => void> = [];
  let publish: (e: NewWatchdogEvent) => Promise<{ id: string }>;

  /** Resolves once the receiver has had `count` requests. */
  const receivedCount = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => (received.length >= count ? resolve() : waiters.push(check));
      check();
    });

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c) => chunks.push(c));
      request.on('end', () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString()));
        response.end('{"ok":true}');
        for (const w of waiters.splice(0)) w();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '10000',
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        SECRETS_KEY: randomBytes(32).toString('hex'),
      },
    });
    keys.owner = await issueKey(t.app, 'firings owner', ['WRITE']);
    keys.other = await issueKey(t.app, 'someone else', ['WRITE']);
    keys.reader = await issueKey(t.app, 'reader', ['READ']);
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    publish = (e) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, e));
    const created = await rest('POST', '/api/alerts', {
      alert_id: 'btc',
      name: 'BTC crash',
      trigger: {
        type: 'watchdog_event',
        event_filter: { event_types: ['flash_crash'], assets: ['BTC/USDT'] },
      },
      delivery_methods: ['webhook'],
      webhook_config: { url: hook },
      cooldown_seconds: 0,
    });
    expect(created.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) await client.close();
    await t?.close();
    await new Promise((r) => server?.close(r));
  });

  async function rest(method: string, path: string, body?: unknown, key = keys.owner.secret) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...bearer(key) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Json & Json[] };
  }
  async function tool(name: string, args: Json, key = keys.owner.secret) {
    const client = new Client({ name: 'vigil-firings-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: bearer(key) } }),
    );
    clients.push(client);
    return (await client.callTool({ name, arguments: args })) as Json;
  }
  /** The firing of the alert for `eventId`, once its job ran (the firing job follows the event's commit). */
  const firingOf = async (eventId: string) => {
    for (let i = 0; i < 400; i++) {
      const [row] = await t.app.deps.database.db
        .select()
        .from(alertFirings)
        .where(and(eq(alertFirings.alertId, 'btc'), eq(alertFirings.eventId, eventId)));
      if (row) return row;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`no firing for ${eventId}`);
  };
  const deliveriesOf = async (firingId: string) =>
    t.app.deps.database.db.select().from(alertDeliveries).where(eq(alertDeliveries.firingId, firingId));

  let firingId = '';
  let eventId = '';

  it('lists a firing over REST, GraphQL and MCP, to its owner only', async () => {
    eventId = (await publish(crash())).id;
    await receivedCount(1);
    const listed = await rest('GET', '/api/alerts/btc/firings');
    expect(listed.status).toBe(200);
    expect(listed.body).toHaveLength(1);
    const firing = listed.body[0]!;
    firingId = String(firing.firing_id);
    expect(firing).toMatchObject({
      alert_id: 'btc',
      status: 'fired',
      kind: 'event',
      silenced_by: null,
      group_key: null,
      event: {
        event_id: eventId,
        type: 'flash_crash',
        severity: 'critical',
        asset: { symbol: 'BTC/USDT', asset_type: 'crypto' },
        watchdog: 'price_anomaly',
        data: { change: -0.12 },
        metadata: {},
      },
    });
    // The event is the one the receiver got, in the webhook body's shape.
    expect(firing.event).toEqual(received[0]!.event);
    expect(firing.episode).toMatchObject({
      incident_key: 'flash_crash/BTC/USDT',
      state: 'firing',
      firings: 1,
      acknowledged_by: null,
      resolved_at: null,
    });

    const viaGraphql = await graphql<{ alertFirings: Json[] }>(
      t.app,
      FIRINGS,
      { alertId: 'btc' },
      bearer(keys.owner.secret),
    );
    expect(viaGraphql.body.errors).toBeUndefined();
    expect(viaGraphql.body.data!.alertFirings).toEqual([
      expect.objectContaining({
        id: firingId,
        status: 'FIRED',
        kind: 'EVENT',
        event: expect.objectContaining({
          eventId,
          severity: 'CRITICAL',
          watchdog: 'PRICE_ANOMALY',
          sample: false,
        }),
        episode: expect.objectContaining({ state: 'FIRING', incidentKey: 'flash_crash/BTC/USDT' }),
      }),
    ]);

    const viaTool = (await tool('list-alert-firings', { alert_id: 'btc', status: ['fired'] }))
      .structuredContent as {
      firings: Json[];
    };
    const { duration_seconds: _counted, ...episode } = firing.episode as Json;
    expect(viaTool.firings).toEqual([
      { ...firing, episode: { ...episode, duration_seconds: expect.any(Number) } },
    ]);
    const byAlias = await tool('list-alert-firings', { alertId: 'btc', status: ['silenced'] });
    expect(byAlias.structuredContent).toEqual({ firings: [] });

    expect((await rest('GET', '/api/alerts/btc/firings?status=fired,test')).body).toHaveLength(1);
    expect((await rest('GET', '/api/alerts/btc/firings?status=silenced')).body).toEqual([]);
    const badStatus = await rest('GET', '/api/alerts/btc/firings?status=loud');
    expect(badStatus.status).toBe(400);
    expect(JSON.stringify(badStatus.body)).toContain('status');
    const badLimit = await rest('GET', '/api/alerts/btc/firings?limit=501');
    expect(badLimit.status).toBe(400);
    expect(JSON.stringify(badLimit.body)).toContain('limit');
    // Another owner's alert is not found, as an unknown one is.
    expect((await rest('GET', '/api/alerts/btc/firings', undefined, keys.other.secret)).status).toBe(404);
    expect((await rest('GET', '/api/alerts/nope/episodes')).status).toBe(404);
  });

  it('refuses an acknowledgement without the write scope, of another owner, of an unknown firing or with a long note', async () => {
    const path = `/api/alerts/btc/firings/${firingId}/acknowledge`;
    expect((await rest('POST', path, {}, keys.reader.secret)).status).toBe(403);
    expect((await rest('POST', path, {}, keys.other.secret)).status).toBe(404);
    const long = await rest('POST', path, { note: 'x'.repeat(1_001) });
    expect(long.status).toBe(422);
    expect(JSON.stringify(long.body)).toContain('note');
    const stray = await rest('POST', path, { comment: 'x' });
    expect(stray.status).toBe(400);
    expect(JSON.stringify(stray.body)).toContain('comment');
    const unknown = await rest('POST', '/api/alerts/btc/firings/no-such-firing/acknowledge');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ error: { code: 'FIRING_NOT_FOUND' } });
    const refused = await tool(
      'resolve-alert-firing',
      { alert_id: 'btc', firing_id: firingId },
      keys.reader.secret,
    );
    expect(refused.isError).toBe(true);
  });

  it('refuses to acknowledge a test-send, which belongs to no episode', async () => {
    expect((await rest('POST', '/api/alerts/btc/test')).status).toBe(200);
    await receivedCount(2);
    const [test] = (await rest('GET', '/api/alerts/btc/firings?status=test')).body;
    expect(test).toMatchObject({ kind: 'event', episode: null, event: { metadata: { test: true } } });
    const refused = await rest('POST', `/api/alerts/btc/firings/${test!.firing_id}/acknowledge`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ error: { code: 'FIRING_HAS_NO_EPISODE' } });
  });

  it('acknowledges with a note: the next firing of the condition is recorded acknowledged and delivers nothing', async () => {
    const acked = await rest('POST', `/api/alerts/btc/firings/${firingId}/acknowledge`, { note: 'on it' });
    expect(acked.status).toBe(200);
    expect(acked.body).toMatchObject({
      firing_id: firingId,
      episode: { state: 'acknowledged', acknowledged_by: 'firings owner', acknowledgement_note: 'on it' },
    });
    const episode = acked.body.episode as Json;
    // Acknowledging again keeps the first acknowledgement.
    const again = await rest('POST', `/api/alerts/btc/firings/${firingId}/acknowledge`, { note: 'later' });
    expect(again.body.episode).toMatchObject({
      acknowledged_at: episode.acknowledged_at,
      acknowledgement_note: 'on it',
    });

    const repeat = await firingOf((await publish(crash())).id);
    expect(repeat.status).toBe('acknowledged');
    expect(repeat.episodeId).toBe(episode.episode_id);
    expect(await deliveriesOf(repeat.id)).toEqual([]);
    const episodes = await rest('GET', '/api/alerts/btc/episodes?state=acknowledged');
    expect(episodes.body).toEqual([expect.objectContaining({ episode_id: episode.episode_id, firings: 2 })]);

    const resolved = await tool('resolve-alert-firing', {
      alert_id: 'btc',
      firing_id: repeat.id,
      note: 'fixed',
    });
    expect(resolved.isError).toBeFalsy();
    expect((resolved.structuredContent as Json).episode).toMatchObject({
      state: 'resolved',
      resolved_reason: 'manual',
      resolved_by: 'firings owner',
      resolution_note: 'fixed',
    });
    const late = await graphql(t.app, ACKNOWLEDGE, { alertId: 'btc', firingId }, bearer(keys.owner.secret));
    expect(late.body.errors?.[0]?.extensions).toMatchObject({ code: 'EPISODE_RESOLVED' });
    expect(
      (await tool('list-alert-episodes', { alert_id: 'btc', state: ['resolved'] })).structuredContent,
    ).toEqual({
      episodes: [expect.objectContaining({ episode_id: episode.episode_id, state: 'resolved' })],
    });
    // Nothing but the first firing and the test-send reached the receiver.
    expect(received).toHaveLength(2);
  });
});

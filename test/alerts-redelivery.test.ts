/**
 * Redelivery of failed deliveries over GraphQL, REST and MCP, against a real webhook receiver on
 * 127.0.0.1 that refuses (400: failed at once) and then accepts. A redelivered delivery keeps its
 * id (the X-Vigil-Delivery header the receiver sees) and its earlier attempts, numbers its new
 * attempts on, and has ALERT_DELIVERY_MAX_ATTEMPTS more of them; a target removed from the alert
 * is not sent to again; what is not failed, unknown, someone else's or asked with a read key is
 * refused.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const REDELIVER = `mutation($id: String!, $deliveryId: String) {
  redeliverAlertDeliveries(id: $id, deliveryId: $deliveryId) {
    alertId deliveries { deliveryId method target attempts skipped }
  }
}`;
const RECORD = `query($id: String!) { alertDeliveries(id: $id) { deliveryId attempt status responseCode } }`;

describe('redelivery of failed alert deliveries', () => {
  let t: TestApp;
  let hook: Server;
  let base = '';
  /** Status codes to answer, in order; 204 once they are used up. */
  const script: number[] = [];
  const hits: Array<{ path: string; headers: IncomingHttpHeaders }> = [];
  const keys = {} as Record<'owner' | 'other' | 'reader', IssuedKey>;
  let client: Client;
  let eventNo = 0;

  beforeAll(async () => {
    hook = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        hits.push({ path: req.url ?? '', headers: req.headers });
        const status = script.shift() ?? 204;
        res.writeHead(status, status === 503 ? { 'retry-after': '1' } : {}).end();
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(hook.address() as AddressInfo).port}`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '1000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        // Two attempts a round: a redelivery that could not retry would fail on its first 503.
        ALERT_DELIVERY_MAX_ATTEMPTS: '2',
      },
    });
    keys.owner = await issueKey(t.app, 'redelivery owner', ['WRITE']);
    keys.other = await issueKey(t.app, 'someone else', ['WRITE']);
    keys.reader = await issueKey(t.app, 'reader', ['READ']);
    client = new Client({ name: 'vigil-redelivery-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: bearer(keys.owner.secret) },
      }),
    );
    const created = await rest('POST', '/api/alerts', {
      alert_id: 'redo',
      name: 'Redo',
      trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
      delivery_methods: ['webhook'],
      webhook_config: { url: `${base}/hook` },
      cooldown_seconds: 0,
    });
    expect(created.status, created.text).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await t?.close();
    hook?.closeAllConnections();
    await new Promise((resolve) => hook?.close(resolve));
  });

  async function rest(method: string, path: string, body?: unknown, key = keys.owner.secret) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  async function gql(query: string, variables: Record<string, unknown>, key = keys.owner.secret) {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...bearer(key) },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as Json;
  }

  /** Publishes a matching watchdog event (the alert fires once per event: cooldown 0). */
  async function fire(): Promise<void> {
    const { database, clock, logger } = t.app.deps;
    const bus = new WatchdogEventBus({ database, clock, logger });
    eventNo += 1;
    await database.db.transaction((tx) =>
      bus.publish(tx, {
        watchdog: 'price_anomaly',
        eventType: 'flash_crash',
        severity: 'critical',
        symbol: 'BTC/USDT',
        asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
        description: `crash ${eventNo}`,
        data: { n: eventNo },
      }),
    );
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = await probe();
      if (found !== undefined) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The alert's record, oldest attempt first: `${deliveryId}:${attempt}` → status. */
  async function record(): Promise<Array<{ deliveryId: string; attempt: number; status: string }>> {
    const answer = await gql(RECORD, { id: 'redo' });
    return [...answer.data.alertDeliveries].reverse();
  }

  const attemptsOf = async (id: string) =>
    (await record()).filter((a) => a.deliveryId === id).map((a) => `${a.attempt}:${a.status}`);

  const deliveryHits = (id: string) => hits.filter((h) => h.headers['x-vigil-delivery'] === id);

  let d1 = '';
  let d2 = '';

  it('redelivers one failed delivery by id (GraphQL) and all of them (MCP), as new attempts of the same ids', async () => {
    script.push(400, 400);
    await fire();
    await fire();
    const failed = await until('two failed deliveries', async () => {
      const r = await record();
      return r.length === 2 && r.every((a) => a.status === 'FAILED') ? r : undefined;
    });
    [d1, d2] = failed.map((a) => a.deliveryId) as [string, string];
    expect(deliveryHits(d1)).toHaveLength(1);

    const one = await gql(REDELIVER, { id: 'redo', deliveryId: d1 });
    expect(one.errors).toBeUndefined();
    expect(one.data.redeliverAlertDeliveries).toEqual({
      alertId: 'redo',
      deliveries: [{ deliveryId: d1, method: 'WEBHOOK', target: `${base}/hook`, attempts: 1, skipped: null }],
    });
    await until('d1 delivered', async () =>
      (await attemptsOf(d1)).includes('2:DELIVERED') ? true : undefined,
    );
    expect(await attemptsOf(d1)).toEqual(['1:FAILED', '2:DELIVERED']);
    // The receiver saw the same delivery id both times; d2 was left alone.
    expect(deliveryHits(d1)).toHaveLength(2);
    expect(deliveryHits(d2)).toHaveLength(1);

    const all = (await client.callTool({ name: 'redeliver-alert', arguments: { alert_id: 'redo' } })) as Json;
    expect(all.isError, JSON.stringify(all)).toBeFalsy();
    expect(all.structuredContent).toEqual({
      alert_id: 'redo',
      redelivered: [{ delivery_id: d2, method: 'webhook', target: `${base}/hook`, attempts: 1 }],
      skipped: [],
    });
    await until('d2 delivered', async () =>
      (await attemptsOf(d2)).includes('2:DELIVERED') ? true : undefined,
    );
    expect(deliveryHits(d2)).toHaveLength(2);
  });

  it('refuses what is not failed, unknown, someone else’s, or asked with a read key', async () => {
    const delivered = await gql(REDELIVER, { id: 'redo', deliveryId: d1 });
    expect(delivered.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(delivered.errors[0].message).toContain(d1);
    expect(delivered.errors[0].message).toContain('its status is delivered');

    const viaRest = await rest('POST', '/api/alerts/redo/redeliver', { delivery_id: d2 });
    expect(viaRest.status, viaRest.text).toBe(400);
    expect(viaRest.text).toContain(d2);

    const unknown = await rest('POST', '/api/alerts/redo/redeliver', { delivery_id: 'no-such-delivery' });
    expect(unknown.status, unknown.text).toBe(404);
    expect(unknown.body.error?.code ?? unknown.text).toContain('NOT_FOUND');

    const other = await rest('POST', '/api/alerts/redo/redeliver', {}, keys.other.secret);
    expect(other.status, other.text).toBe(404);
    const otherOne = await gql(REDELIVER, { id: 'redo', deliveryId: d1 }, keys.other.secret);
    expect(otherOne.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const reader = await rest('POST', '/api/alerts/redo/redeliver', undefined, keys.reader.secret);
    expect(reader.status, reader.text).toBe(403);
    const readerGql = await gql(REDELIVER, { id: 'redo' }, keys.reader.secret);
    expect(readerGql.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const badBody = await rest('POST', '/api/alerts/redo/redeliver', { delivery_id: 7 });
    expect(badBody.status, badBody.text).toBe(400);
    expect(badBody.text).toContain('delivery_id');
    // Nothing was sent again by any of these.
    expect(deliveryHits(d1)).toHaveLength(2);
    expect(deliveryHits(d2)).toHaveLength(2);
  });

  it('gives a redelivery a fresh attempt budget, and skips a target removed from the alert (REST)', async () => {
    script.push(400);
    await fire();
    const d3 = await until('a third failed delivery', async () => {
      const r = await record();
      return r.find((a) => a.deliveryId !== d1 && a.deliveryId !== d2 && a.status === 'FAILED')?.deliveryId;
    });
    // The alert now posts elsewhere: d3's target is no longer the alert's.
    const moved = await rest('PUT', '/api/alerts/redo', {
      name: 'Redo',
      trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
      delivery_methods: ['webhook'],
      webhook_config: { url: `${base}/moved` },
      cooldown_seconds: 0,
    });
    expect(moved.status, moved.text).toBe(200);
    script.push(400);
    await fire();
    const d4 = await until('a failed delivery to the new target', async () => {
      const r = await record();
      return r.find((a) => ![d1, d2, d3].includes(a.deliveryId) && a.status === 'FAILED')?.deliveryId;
    });

    // Attempt 2 of d4 is answered 503: with two attempts a round it is retried, and then accepted.
    script.push(503);
    const all = await rest('POST', '/api/alerts/redo/redeliver');
    expect(all.status, all.text).toBe(200);
    expect(all.body.redelivered).toEqual([
      { delivery_id: d4, method: 'webhook', target: `${base}/moved`, attempts: 1 },
    ]);
    expect(all.body.skipped).toEqual([
      {
        delivery_id: d3,
        method: 'webhook',
        target: `${base}/hook`,
        attempts: 1,
        reason: 'the alert no longer has this webhook target',
      },
    ]);
    await until('d4 delivered', async () =>
      (await attemptsOf(d4)).includes('3:DELIVERED') ? true : undefined,
    );
    expect(await attemptsOf(d4)).toEqual(['1:FAILED', '2:RETRY', '3:DELIVERED']);
    expect(deliveryHits(d4).map((h) => h.path)).toEqual(['/moved', '/moved', '/moved']);
    expect(deliveryHits(d3)).toHaveLength(1);

    const refused = await gql(REDELIVER, { id: 'redo', deliveryId: d3 });
    expect(refused.errors?.[0]?.message).toContain('no longer has this webhook target');
  });
});

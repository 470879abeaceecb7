/**
 * PagerDuty delivery end to end: alerts written over REST and GraphQL with a routing key, sent to
 * PAGERDUTY_EVENTS_URL pointed at a local Events API (it checks the trigger as PagerDuty documents
 * it and answers as PagerDuty does: 202 {status, message, dedup_key}, or 429), the key kept secret,
 * a test-send, and a firing retried at the time Retry-After gives.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { ADMIN_KEY, bearer, type IssuedKey, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const REST_KEY = 'R3STkey0123456789abcdefABCDEF012';
const GQL_KEY = 'GQLkey00123456789abcdefABCDEF012';

/** What the Events API v2 requires of a trigger; the problems found, none when valid. */
function eventProblems(body: Json, bytes: number): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  const p = body.payload ?? {};
  check(bytes <= 512 * 1024, 'over 512 KB');
  check(typeof body.routing_key === 'string' && body.routing_key.length === 32, 'routing_key: 32 characters');
  check(['trigger', 'acknowledge', 'resolve'].includes(body.event_action), 'event_action');
  check(typeof body.dedup_key === 'string' && body.dedup_key.length <= 255, 'dedup_key ≤ 255');
  check(typeof p.summary === 'string' && [...p.summary].length <= 1_024, 'payload.summary ≤ 1024');
  check(typeof p.source === 'string' && p.source.length > 0, 'payload.source');
  check(['critical', 'error', 'warning', 'info'].includes(p.severity), 'payload.severity');
  check(!p.timestamp || !Number.isNaN(Date.parse(p.timestamp)), 'payload.timestamp: ISO 8601');
  check(p.custom_details === undefined || typeof p.custom_details === 'object', 'custom_details: object');
  return problems;
}

interface Posted {
  readonly path: string;
  readonly message: Json;
  readonly at: number;
}

describe('Alertmanager delivery', () => {
  let t: TestApp;
  let am: Server;
  let key: IssuedKey;
  const posted: Posted[] = [];
  let throttle = 0;
  const answers: string[] = [];

  beforeAll(async () => {
    am = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        let message: Json;
        try {
          message = JSON.parse(body);
        } catch {
          res.writeHead(400).end('bad JSON');
          return;
        }
        const problems = eventProblems(message, Buffer.byteLength(body));
        posted.push({ path: String(message.routing_key), message, at: Date.now() });
        if (problems.length > 0) {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { code: 'BadRequest', message: problems.join('; ') } }));
        } else if (throttle > 0) {
          throttle--;
          res
            .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
            .end('{"error":{"code":"TooManyRequests"}}');
        } else
          res
            .writeHead(202, { 'content-type': 'application/json' })
            .end(
              JSON.stringify({ status: 'success', message: 'Event processed', dedup_key: message.dedup_key }),
            );
      });
    });
    await new Promise<void>((resolve) => am.listen(0, '127.0.0.1', resolve));
    const eventsUrl = `http://127.0.0.1:${(am.address() as AddressInfo).port}/v2/enqueue`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '1000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        PAGERDUTY_EVENTS_URL: eventsUrl,
      },
    });
    key = await issueKey(t.app, 'pagerduty owner', ['WRITE']);
  });
  afterAll(async () => {
    // The routing keys are write-only: no answer ever showed one.
    for (const answer of answers) for (const k of [REST_KEY, GQL_KEY]) expect(answer).not.toContain(k);
    await t?.close();
    am?.closeAllConnections();
    await new Promise((resolve) => am?.close(resolve));
  });

  async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${t.url}${path}`, {
      method,
      headers: { ...bearer(key.secret), 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    answers.push(text);
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  const alert = (id: string, routingKey: unknown) => ({
    alert_id: id,
    name: `PD ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
    delivery_methods: ['pagerduty'],
    pagerduty_config: routingKey === undefined ? {} : { routing_key: routingKey },
    cooldown_seconds: 0,
  });

  it('takes a PagerDuty alert over REST and GraphQL, and test-sends a valid trigger', async () => {
    const created = await call('POST', '/api/alerts', alert('rest-1', REST_KEY));
    expect(created.status, created.text).toBe(201);
    expect(created.body.pagerduty_config).toEqual({ has_routing_key: true });
    const sent = await call('POST', '/api/alerts/rest-1/test');
    expect(sent.body.results, sent.text).toEqual([
      expect.objectContaining({
        method: 'pagerduty',
        target: 'pagerduty events',
        status: 'delivered',
        response_code: 202,
      }),
    ]);
    expect(posted.at(-1)!.message.payload.summary.startsWith('[test] PD rest-1: ')).toBe(true);
    expect(posted.at(-1)!.message.dedup_key).toMatch(/^vigil\/rest-1\//);

    const viaGraphql = await call('POST', '/graphql', {
      query: `mutation { createAlert(input: { alertId: "gql-1", name: "g", deliveryMethods: [PAGERDUTY],
        trigger: { type: WATCHDOG_EVENT }, pagerdutyConfig: { routingKey: "${GQL_KEY}" } })
        { alertId deliveryMethods pagerdutyConfig { hasRoutingKey } } }`,
    });
    expect(viaGraphql.body.data?.createAlert, viaGraphql.text).toEqual({
      alertId: 'gql-1',
      deliveryMethods: ['PAGERDUTY'],
      pagerdutyConfig: { hasRoutingKey: true },
    });
    const tested = await call('POST', '/graphql', {
      query: 'mutation { testAlert(id: "gql-1") { results { status responseCode } } }',
    });
    expect(tested.body.data.testAlert.results, tested.text).toEqual([
      { status: 'DELIVERED', responseCode: 202 },
    ]);
    await call('DELETE', '/api/alerts/gql-1');
  });

  it('refuses a malformed routing key, and one left out, naming the field', async () => {
    const bad = await call('POST', '/api/alerts', alert('bad-1', 'not a key'));
    expect(bad.status).toBe(422);
    expect(bad.text).toMatch(/pagerduty_config\.routing_key.*PagerDuty integration key/);
    const missing = await call('POST', '/api/alerts', alert('bad-2', undefined));
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/pagerduty_config\.routing_key.*is required/);
  });

  it('delivers a firing, cutting a long description, and retries a 429 at its Retry-After', async () => {
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    const event: NewWatchdogEvent = {
      watchdog: 'price_anomaly',
      eventType: 'flash_crash',
      severity: 'critical',
      symbol: 'BTC/USDT',
      asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
      description: `BTC/USDT fell ${'x'.repeat(70_000)}`,
      data: { change: -0.12 },
    };
    const before = posted.length;
    throttle = 1;
    await t.app.deps.database.db.transaction((tx) => bus.publish(tx, event));
    const mineOf = () => posted.slice(before).filter((p) => p.path === REST_KEY);
    const deadline = Date.now() + 20_000;
    while (mineOf().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    const mine = mineOf();
    expect(mine).toHaveLength(2);
    expect(mine[1]!.at - mine[0]!.at).toBeGreaterThanOrEqual(950);
    const { payload, dedup_key } = mine[1]!.message;
    expect(dedup_key).toBe('vigil/rest-1/flash_crash/BTC/USDT');
    expect(mine[0]!.message.dedup_key).toBe(dedup_key);
    expect(payload).toMatchObject({ severity: 'critical', component: 'BTC/USDT', source: 'vigil' });
    expect([...payload.summary]).toHaveLength(1_024);
    expect(payload.summary.endsWith('…')).toBe(true);

    let record: Json[] = [];
    for (let i = 0; i < 200 && !record.some((r) => r.status === 'delivered' && r.attempt === 2); i++) {
      record = (await call('GET', '/api/alerts/rest-1/deliveries?limit=10')).body;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(record.map((r) => [r.attempt, r.status, r.response_code]).slice(0, 2)).toEqual([
      [2, 'delivered', 202],
      [1, 'retry', 429],
    ]);
  }, 30_000);
});

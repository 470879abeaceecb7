/**
 * Alertmanager delivery end to end: alerts written over REST and GraphQL with an Alertmanager
 * receiver (a local one that checks the version 4 webhook body and answers 200, or 429 with
 * Retry-After when posted to too fast), the write-time address check of the URL,
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

/** What an Alertmanager webhook receiver reads (version 4); the problems found, none when valid. */
function bodyProblems(body: Json): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  const strings = (o: unknown) =>
    typeof o === 'object' && o !== null && Object.values(o).every((v) => typeof v === 'string');
  check(body.version === '4', 'version: "4"');
  check(['firing', 'resolved'].includes(body.status), 'status: firing or resolved');
  check(typeof body.receiver === 'string' && typeof body.groupKey === 'string', 'receiver, groupKey');
  for (const key of ['groupLabels', 'commonLabels', 'commonAnnotations'])
    check(strings(body[key]), `${key}: strings`);
  check(Array.isArray(body.alerts) && body.alerts.length > 0, 'alerts: a list');
  for (const a of body.alerts ?? []) {
    check(['firing', 'resolved'].includes(a.status), 'alert status');
    check(strings(a.labels) && typeof a.labels.alertname === 'string', 'labels with alertname');
    check(strings(a.annotations), 'annotations: strings');
    check(!Number.isNaN(Date.parse(a.startsAt)) && !Number.isNaN(Date.parse(a.endsAt)), 'startsAt, endsAt');
    check(typeof a.generatorURL === 'string', 'generatorURL');
    check(/^[0-9a-f]{16}$/.test(a.fingerprint), 'fingerprint');
  }
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
  let hookBase: string;
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
        const problems = bodyProblems(message);
        posted.push({ path: req.url ?? '', message, at: Date.now() });
        if (problems.length > 0) {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { code: 'BadRequest', message: problems.join('; ') } }));
        } else if (throttle > 0) {
          throttle--;
          res
            .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
            .end('{"error":{"code":"TooManyRequests"}}');
        } else res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => am.listen(0, '127.0.0.1', resolve));
    hookBase = `http://127.0.0.1:${(am.address() as AddressInfo).port}/am/`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '1000',
        SECRETS_KEY: randomBytes(32).toString('hex'),
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
    key = await issueKey(t.app, 'alertmanager owner', ['WRITE']);
  });
  afterAll(async () => {
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

  const alert = (id: string, webhookUrl: unknown) => ({
    alert_id: id,
    name: `AM ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
    delivery_methods: ['alertmanager'],
    alertmanager_config: { url: webhookUrl },
    cooldown_seconds: 0,
  });

  it('takes an Alertmanager alert over REST and GraphQL, and test-sends a valid body', async () => {
    const created = await call('POST', '/api/alerts', alert('rest-1', `${hookBase}rest`));
    expect(created.status, created.text).toBe(201);
    expect(created.body.alertmanager_config).toEqual({ url: `${hookBase}rest` });
    const sent = await call('POST', '/api/alerts/rest-1/test');
    expect(sent.body.results, sent.text).toEqual([
      expect.objectContaining({
        method: 'alertmanager',
        target: `${hookBase}rest`,
        status: 'delivered',
        response_code: 200,
      }),
    ]);
    expect(posted.at(-1)!.message.alerts[0].annotations.summary).toBe('[test] AM rest-1');

    const viaGraphql = await call('POST', '/graphql', {
      query: `mutation { createAlert(input: { alertId: "gql-1", name: "g", deliveryMethods: [ALERTMANAGER],
        trigger: { type: WATCHDOG_EVENT }, alertmanagerConfig: { url: "${hookBase}gql" } })
        { alertId deliveryMethods alertmanagerConfig { url } } }`,
    });
    expect(viaGraphql.body.data?.createAlert, viaGraphql.text).toEqual({
      alertId: 'gql-1',
      deliveryMethods: ['ALERTMANAGER'],
      alertmanagerConfig: { url: `${hookBase}gql` },
    });
    const tested = await call('POST', '/graphql', {
      query: 'mutation { testAlert(id: "gql-1") { results { status responseCode } } }',
    });
    expect(tested.body.data.testAlert.results, tested.text).toEqual([
      { status: 'DELIVERED', responseCode: 200 },
    ]);
    await call('DELETE', '/api/alerts/gql-1');
  });

  it('refuses a private address not allowed, naming the field', async () => {
    const foreign = await call('POST', '/api/alerts', alert('bad-1', 'http://10.1.2.3/am'));
    expect(foreign.status).toBe(422);
    expect(foreign.text).toMatch(/alertmanager_config\.url.*refused: 10\.1\.2\.3 is/);
    const missing = await call('POST', '/api/alerts', { ...alert('bad-2', ''), alertmanager_config: {} });
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/alertmanager_config\.url/);
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
    const mineOf = () => posted.slice(before).filter((p) => p.path.endsWith('/rest'));
    const deadline = Date.now() + 20_000;
    while (mineOf().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    const mine = mineOf();
    expect(mine).toHaveLength(2);
    expect(mine[1]!.at - mine[0]!.at).toBeGreaterThanOrEqual(950);
    const [firing] = mine[1]!.message.alerts;
    expect(firing.labels).toMatchObject({ alertname: 'rest-1', severity: 'critical', asset: 'BTC/USDT' });
    expect([...firing.annotations.description]).toHaveLength(64 * 1024);
    expect(firing.annotations.description.endsWith('…')).toBe(true);

    let record: Json[] = [];
    for (let i = 0; i < 200 && !record.some((r) => r.status === 'delivered' && r.attempt === 2); i++) {
      record = (await call('GET', '/api/alerts/rest-1/deliveries?limit=10')).body;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(record.map((r) => [r.attempt, r.status, r.response_code]).slice(0, 2)).toEqual([
      [2, 'delivered', 200],
      [1, 'retry', 429],
    ]);
  }, 30_000);
});

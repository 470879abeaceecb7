/**
 * Microsoft Teams delivery end to end: alerts written over REST and GraphQL with a Teams webhook (a
 * local receiver that checks the Adaptive Card message as Teams documents it and answers as
 * Workflows does: 202, 429 with Retry-After when posted to too fast), the URL kept secret, the write-time check of the URL,
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

/** What Teams requires of an incoming webhook message with an Adaptive Card; the problems found. */
function cardProblems(message: Json, bytes: number): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  check(bytes <= 28 * 1024, 'the message is over 28 KB');
  check(message.type === 'message', 'type: message');
  check(Array.isArray(message.attachments) && message.attachments.length === 1, 'one attachment');
  const attachment = message.attachments?.[0] ?? {};
  check(attachment.contentType === 'application/vnd.microsoft.card.adaptive', 'contentType: adaptive card');
  const card = attachment.content ?? {};
  check(
    card.type === 'AdaptiveCard' && typeof card.version === 'string',
    'content: an AdaptiveCard with a version',
  );
  check(Array.isArray(card.body) && card.body.length > 0, 'body: a list of elements');
  for (const element of card.body ?? []) {
    if (element.type === 'TextBlock') check(typeof element.text === 'string', 'TextBlock: text');
    else if (element.type === 'FactSet')
      check(
        (element.facts ?? []).every((f: Json) => typeof f.title === 'string' && typeof f.value === 'string'),
        'FactSet: facts of title and value',
      );
    else problems.push(`unexpected element ${element.type}`);
  }
  return problems;
}

interface Posted {
  readonly path: string;
  readonly message: Json;
  readonly at: number;
}

describe('Teams delivery', () => {
  let t: TestApp;
  let teams: Server;
  let hookBase: string;
  let key: IssuedKey;
  const posted: Posted[] = [];
  let throttle = 0;
  const answers: string[] = [];

  beforeAll(async () => {
    teams = createServer((req, res) => {
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
        const problems = cardProblems(message, Buffer.byteLength(body));
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
        } else res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => teams.listen(0, '127.0.0.1', resolve));
    hookBase = `http://127.0.0.1:${(teams.address() as AddressInfo).port}/webhookb2/tenant-1234/`;
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
    key = await issueKey(t.app, 'teams owner', ['WRITE']);
  });
  afterAll(async () => {
    for (const answer of answers) expect(answer).not.toContain('/webhookb2/tenant-1234/');
    await t?.close();
    teams?.closeAllConnections();
    await new Promise((resolve) => teams?.close(resolve));
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
    name: `Teams ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
    delivery_methods: ['teams'],
    teams_config: webhookUrl === undefined ? {} : { webhook_url: webhookUrl },
    cooldown_seconds: 0,
  });

  it('takes a Teams alert over REST and GraphQL, and test-sends a valid card', async () => {
    const created = await call('POST', '/api/alerts', alert('rest-1', `${hookBase}rest`));
    expect(created.status, created.text).toBe(201);
    expect(created.body.teams_config).toEqual({ has_webhook_url: true });
    const sent = await call('POST', '/api/alerts/rest-1/test');
    expect(sent.body.results, sent.text).toEqual([
      expect.objectContaining({
        method: 'teams',
        target: 'teams webhook',
        status: 'delivered',
        response_code: 202,
      }),
    ]);
    expect(posted.at(-1)!.message.attachments[0].content.body[0].text).toBe('[test] Teams rest-1');

    const viaGraphql = await call('POST', '/graphql', {
      query: `mutation { createAlert(input: { alertId: "gql-1", name: "g", deliveryMethods: [TEAMS],
        trigger: { type: WATCHDOG_EVENT }, teamsConfig: { webhookUrl: "${hookBase}gql" } })
        { alertId deliveryMethods teamsConfig { hasWebhookUrl } } }`,
    });
    expect(viaGraphql.body.data?.createAlert, viaGraphql.text).toEqual({
      alertId: 'gql-1',
      deliveryMethods: ['TEAMS'],
      teamsConfig: { hasWebhookUrl: true },
    });
    const tested = await call('POST', '/graphql', {
      query: 'mutation { testAlert(id: "gql-1") { results { status responseCode } } }',
    });
    expect(tested.body.data.testAlert.results, tested.text).toEqual([
      { status: 'DELIVERED', responseCode: 202 },
    ]);
    await call('DELETE', '/api/alerts/gql-1');
  });

  it('refuses a URL that is not a Teams webhook, and one left out, naming the field', async () => {
    const foreign = await call(
      'POST',
      '/api/alerts',
      alert('bad-1', 'https://teams.microsoft.com/l/channel/1'),
    );
    expect(foreign.status).toBe(422);
    expect(foreign.text).toMatch(/teams_config\.webhook_url.*Microsoft Teams/);
    const missing = await call('POST', '/api/alerts', alert('bad-2', undefined));
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/teams_config\.webhook_url.*is required/);
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
      description: `BTC/USDT fell ${'é'.repeat(40_000)}`,
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
    const [title, description] = mine[1]!.message.attachments[0].content.body;
    expect(title.color).toBe('Attention');
    expect(description.text.startsWith('BTC/USDT fell é')).toBe(true);
    expect(description.text.endsWith('…')).toBe(true);

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

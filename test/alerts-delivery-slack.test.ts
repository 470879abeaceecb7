/**
 * Slack delivery end to end: alerts written over REST and GraphQL with a Slack incoming webhook
 * (a local receiver that checks the Block Kit payload as Slack documents it and answers as Slack
 * does: 200 `ok`, 429 with Retry-After when posted to too fast), the URL kept secret, the write-time
 * check of the URL, a test-send, and a firing retried at the time Retry-After gives.
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

/** What Slack requires of an incoming webhook's Block Kit message; the problems found, none when valid. */
function blockKitProblems(message: Json): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  const length = (s: unknown) => (typeof s === 'string' ? [...s].length : Number.NaN);
  check(typeof message.text === 'string' && length(message.text) <= 40_000, 'text');
  check(Array.isArray(message.blocks) && message.blocks.length <= 50, 'blocks: at most 50');
  for (const block of message.blocks ?? []) {
    if (block.type === 'header') {
      check(block.text?.type === 'plain_text' && length(block.text.text) <= 150, 'header: plain_text ≤ 150');
    } else if (block.type === 'section') {
      check(['mrkdwn', 'plain_text'].includes(block.text?.type), 'section: text object');
      check(length(block.text?.text) <= 3_000, 'section: text ≤ 3000');
      const fields = block.fields ?? [];
      check(fields.length <= 10, 'section: at most 10 fields');
      for (const f of fields) check(f.type === 'mrkdwn' && length(f.text) <= 2_000, 'field: mrkdwn ≤ 2000');
    } else if (block.type === 'context') {
      check(Array.isArray(block.elements) && block.elements.length <= 10, 'context: 1 to 10 elements');
      for (const e of block.elements ?? []) check(length(e.text) <= 3_000, 'context element ≤ 3000');
    } else problems.push(`unknown block type ${block.type}`);
  }
  return problems;
}

interface Posted {
  readonly path: string;
  readonly message: Json;
  readonly at: number;
}

describe('Slack delivery', () => {
  let t: TestApp;
  let slack: Server;
  let hookBase: string;
  let key: IssuedKey;
  const posted: Posted[] = [];
  /** Answers to give before `ok`: 429s. */
  let throttle = 0;
  const answers: string[] = [];

  beforeAll(async () => {
    slack = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        let message: Json;
        try {
          message = JSON.parse(body);
        } catch {
          res.writeHead(400).end('invalid_payload');
          return;
        }
        const problems = blockKitProblems(message);
        if (req.method !== 'POST' || !String(req.headers['content-type']).startsWith('application/json'))
          problems.push('POST application/json');
        posted.push({ path: req.url ?? '', message, at: Date.now() });
        if (problems.length > 0) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`invalid_blocks: ${problems.join('; ')}`);
        } else if (throttle > 0) {
          throttle--;
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('rate_limited');
        } else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => slack.listen(0, '127.0.0.1', resolve));
    hookBase = `http://127.0.0.1:${(slack.address() as AddressInfo).port}/services/T000/B000/`;
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
    key = await issueKey(t.app, 'slack owner', ['WRITE']);
  });
  afterAll(async () => {
    // The webhook URL carries Slack's token: no answer ever showed it.
    for (const answer of answers) expect(answer).not.toContain('/services/T000/B000/');
    await t?.close();
    slack?.closeAllConnections();
    await new Promise((resolve) => slack?.close(resolve));
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
  const gql = (query: string, variables: Record<string, unknown>) =>
    call('POST', '/graphql', { query, variables });

  const alert = (id: string, webhookUrl: unknown) => ({
    alert_id: id,
    name: `Slack ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
    delivery_methods: ['slack'],
    slack_config: webhookUrl === undefined ? {} : { webhook_url: webhookUrl },
    cooldown_seconds: 0,
  });

  it('takes a Slack alert over REST, answers has_webhook_url, and test-sends a valid message', async () => {
    const created = await call('POST', '/api/alerts', alert('rest-1', `${hookBase}rest`));
    expect(created.status, created.text).toBe(201);
    expect(created.body.delivery_methods).toEqual(['slack']);
    expect(created.body.slack_config).toEqual({ has_webhook_url: true });
    const sent = await call('POST', '/api/alerts/rest-1/test');
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body.results).toEqual([
      expect.objectContaining({
        method: 'slack',
        target: 'slack webhook',
        status: 'delivered',
        response_code: 200,
      }),
    ]);
    const last = posted.at(-1)!;
    expect(last.path).toBe('/services/T000/B000/rest');
    expect(last.message.blocks[0].text.text).toBe('[test] Slack rest-1');
  });

  it('takes one over GraphQL, and refuses a URL that is not a Slack webhook, naming the field', async () => {
    const created = await gql(
      `mutation { createAlert(input: { alertId: "gql-1", name: "g", deliveryMethods: [SLACK],
        trigger: { type: WATCHDOG_EVENT }, slackConfig: { webhookUrl: "${hookBase}gql" } })
        { alertId deliveryMethods slackConfig { hasWebhookUrl } } }`,
      {},
    );
    expect(created.body.data?.createAlert, created.text).toEqual({
      alertId: 'gql-1',
      deliveryMethods: ['SLACK'],
      slackConfig: { hasWebhookUrl: true },
    });
    const sent = await gql('mutation { testAlert(id: "gql-1") { results { status responseCode } } }', {});
    expect(sent.body.data.testAlert.results, sent.text).toEqual([{ status: 'DELIVERED', responseCode: 200 }]);

    const foreign = await call('POST', '/api/alerts', alert('bad-1', 'https://example.com/services/x'));
    expect(foreign.status).toBe(422);
    expect(foreign.text).toMatch(/slack_config\.webhook_url.*Slack incoming webhook URL/);
    const missing = await call('POST', '/api/alerts', alert('bad-2', undefined));
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/slack_config\.webhook_url.*is required/);
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
      description: `BTC/USDT fell ${'x'.repeat(5_000)}`,
      data: { change: -0.12 },
    };
    await call('DELETE', '/api/alerts/gql-1');
    const before = posted.length;
    throttle = 1;
    await t.app.deps.database.db.transaction((tx) => bus.publish(tx, event));
    const mineOf = () => posted.slice(before).filter((p) => p.path.endsWith('/rest'));
    const deadline = Date.now() + 20_000;
    while (mineOf().length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    await new Promise((r) => setTimeout(r, 300));
    const mine = mineOf();
    expect(mine).toHaveLength(2);
    // The 429 said one second: the retry came no sooner.
    expect(mine[1]!.at - mine[0]!.at).toBeGreaterThanOrEqual(950);
    const section = mine[1]!.message.blocks[1];
    expect([...section.text.text]).toHaveLength(3_000);
    expect(section.text.text.endsWith('…')).toBe(true);
    expect(section.fields).toContainEqual({ type: 'mrkdwn', text: '*Asset*\nBTC/USDT' });

    let record: Json[] = [];
    for (let i = 0; i < 200 && !record.some((r) => r.status === 'delivered'); i++) {
      record = (await call('GET', '/api/alerts/rest-1/deliveries?limit=10')).body;
      await new Promise((r) => setTimeout(r, 25));
    }
    const fired = record.filter((r) => r.status !== 'test' && r.attempt !== undefined);
    expect(fired.map((r) => [r.attempt, r.status, r.response_code]).slice(0, 2)).toEqual([
      [2, 'delivered', 200],
      [1, 'retry', 429],
    ]);
  }, 30_000);
});

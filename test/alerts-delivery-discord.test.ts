/**
 * Discord delivery end to end: alerts written over REST and GraphQL with a Discord webhook (a local
 * receiver that checks the embed as Discord documents it and answers as Discord does: 204, 429
 * with Retry-After when posted to too fast), the URL kept secret, the write-time check of the URL,
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

/** What Discord requires of a webhook message with embeds; the problems found, none when valid. */
function embedProblems(message: Json): string[] {
  const problems: string[] = [];
  const check = (ok: boolean, problem: string) => ok || problems.push(problem);
  const n = (s: unknown) => (typeof s === 'string' ? [...s].length : 0);
  check(message.content === undefined || n(message.content) <= 2_000, 'content ≤ 2000');
  check(Array.isArray(message.embeds) && message.embeds.length >= 1 && message.embeds.length <= 10, 'embeds');
  let total = 0;
  for (const e of message.embeds ?? []) {
    check(n(e.title) <= 256, 'title ≤ 256');
    check(n(e.description) <= 4_096, 'description ≤ 4096');
    check(Number.isInteger(e.color) && e.color >= 0 && e.color <= 0xffffff, 'color: an integer RGB');
    check(!e.timestamp || !Number.isNaN(Date.parse(e.timestamp)), 'timestamp: ISO 8601');
    const fields = e.fields ?? [];
    check(fields.length <= 25, 'at most 25 fields');
    for (const f of fields) {
      check(n(f.name) >= 1 && n(f.name) <= 256, 'field name 1-256');
      check(n(f.value) >= 1 && n(f.value) <= 1_024, 'field value 1-1024');
      total += n(f.name) + n(f.value);
    }
    check(n(e.footer?.text) <= 2_048, 'footer ≤ 2048');
    total += n(e.title) + n(e.description) + n(e.footer?.text);
  }
  check(total <= 6_000, 'embeds: 6000 characters in all');
  return problems;
}

interface Posted {
  readonly path: string;
  readonly message: Json;
  readonly at: number;
}

describe('Discord delivery', () => {
  let t: TestApp;
  let discord: Server;
  let hookBase: string;
  let key: IssuedKey;
  const posted: Posted[] = [];
  let throttle = 0;
  const answers: string[] = [];

  beforeAll(async () => {
    discord = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c;
      });
      req.on('end', () => {
        let message: Json;
        try {
          message = JSON.parse(body);
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"code":50109}');
          return;
        }
        const problems = embedProblems(message);
        posted.push({ path: req.url ?? '', message, at: Date.now() });
        if (problems.length > 0) {
          res
            .writeHead(400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ code: 50035, message: `Invalid Form Body: ${problems.join('; ')}` }));
        } else if (throttle > 0) {
          throttle--;
          res
            .writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' })
            .end('{"message":"You are being rate limited.","retry_after":1,"global":false}');
        } else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => discord.listen(0, '127.0.0.1', resolve));
    hookBase = `http://127.0.0.1:${(discord.address() as AddressInfo).port}/api/webhooks/1234/`;
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
    key = await issueKey(t.app, 'discord owner', ['WRITE']);
  });
  afterAll(async () => {
    for (const answer of answers) expect(answer).not.toContain('/api/webhooks/1234/');
    await t?.close();
    discord?.closeAllConnections();
    await new Promise((resolve) => discord?.close(resolve));
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
    name: `Discord ${id}`,
    trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
    delivery_methods: ['discord'],
    discord_config: webhookUrl === undefined ? {} : { webhook_url: webhookUrl },
    cooldown_seconds: 0,
  });

  it('takes a Discord alert over REST and GraphQL, and test-sends a valid embed', async () => {
    const created = await call('POST', '/api/alerts', alert('rest-1', `${hookBase}rest`));
    expect(created.status, created.text).toBe(201);
    expect(created.body.discord_config).toEqual({ has_webhook_url: true });
    const sent = await call('POST', '/api/alerts/rest-1/test');
    expect(sent.body.results, sent.text).toEqual([
      expect.objectContaining({
        method: 'discord',
        target: 'discord webhook',
        status: 'delivered',
        response_code: 204,
      }),
    ]);
    expect(posted.at(-1)!.message.embeds[0].title).toBe('[test] Discord rest-1');

    const viaGraphql = await call('POST', '/graphql', {
      query: `mutation { createAlert(input: { alertId: "gql-1", name: "g", deliveryMethods: [DISCORD],
        trigger: { type: WATCHDOG_EVENT }, discordConfig: { webhookUrl: "${hookBase}gql" } })
        { alertId deliveryMethods discordConfig { hasWebhookUrl } } }`,
    });
    expect(viaGraphql.body.data?.createAlert, viaGraphql.text).toEqual({
      alertId: 'gql-1',
      deliveryMethods: ['DISCORD'],
      discordConfig: { hasWebhookUrl: true },
    });
    const tested = await call('POST', '/graphql', {
      query: 'mutation { testAlert(id: "gql-1") { results { status responseCode } } }',
    });
    expect(tested.body.data.testAlert.results, tested.text).toEqual([
      { status: 'DELIVERED', responseCode: 204 },
    ]);
    await call('DELETE', '/api/alerts/gql-1');
  });

  it('refuses a URL that is not a Discord webhook, and one left out, naming the field', async () => {
    const foreign = await call('POST', '/api/alerts', alert('bad-1', 'https://discord.com/channels/1/2'));
    expect(foreign.status).toBe(422);
    expect(foreign.text).toMatch(/discord_config\.webhook_url.*Discord webhook URL/);
    const missing = await call('POST', '/api/alerts', alert('bad-2', undefined));
    expect(missing.status).toBe(422);
    expect(missing.text).toMatch(/discord_config\.webhook_url.*is required/);
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
      description: `BTC/USDT fell ${'x'.repeat(7_000)}`,
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
    const [embed] = mine[1]!.message.embeds;
    expect(embed.color).toBe(0xd32f2f);
    expect([...embed.description]).toHaveLength(4_096);
    expect(embed.description.endsWith('…')).toBe(true);

    let record: Json[] = [];
    for (let i = 0; i < 200 && !record.some((r) => r.status === 'delivered' && r.attempt === 2); i++) {
      record = (await call('GET', '/api/alerts/rest-1/deliveries?limit=10')).body;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(record.map((r) => [r.attempt, r.status, r.response_code]).slice(0, 2)).toEqual([
      [2, 'delivered', 204],
      [1, 'retry', 429],
    ]);
  }, 30_000);
});

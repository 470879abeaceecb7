import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasSecret } from '../src/alerts/alert.model.ts';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import { loggerOptions } from '../src/platform/observability/logger.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

/**
 * Alerts end to end: a watchdog event committed by any instance fires the matching alert once,
 * and the delivery job posts it to a real HTTP receiver, signed; a receiver that refuses first is
 * retried with the same delivery id; the cooldown holds across a restart.
 */
interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

class Receiver {
  readonly received: Received[] = [];
  /** Status codes to answer, in order; 200 once they are used up. */
  readonly script: number[] = [];
  /** While set, requests are answered only once it resolves. */
  hold: Promise<void> | undefined;
  #server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.#server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c) => chunks.push(c));
      request.on('end', async () => {
        this.received.push({ headers: request.headers, body: Buffer.concat(chunks).toString() });
        if (this.hold) await this.hold;
        const status = this.script.shift() ?? 200;
        response.writeHead(status, status === 503 ? { 'retry-after': '1' } : {});
        response.end(status === 200 ? '{"ok":true}' : 'busy');
      });
    });
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hook`;
  }

  async until(count: number, ms = 20_000): Promise<Received[]> {
    const deadline = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`received ${this.received.length} of ${count} deliveries`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return this.received;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }
}

const event = (over: Partial<NewWatchdogEvent> = {}): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'flash_crash',
  severity: 'critical',
  symbol: 'BTC/USDT',
  asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
  description: 'BTC/USDT fell 12.00% in 4 minutes <b>&</b>',
  data: { change: -0.12 },
  ...over,
});

const ENV = {
  ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
  // The test SMTP server has no TLS: its login may go in clear text because it is listed here.
  SMTP_PLAINTEXT_AUTH_HOSTS: '127.0.0.1',
  RATE_LIMIT_MAX: '10000',
  // Postgres needs a key to seal secrets (the embedded database would generate one).
  SECRETS_KEY: randomBytes(32).toString('hex'),
};
const SECRET = 'whsec-test-signing-secret';
const anyone = anonymousPrincipal(false);

describe('alerts end to end', () => {
  let database: TestDatabase;
  let t: TestApp;
  let receiver: Receiver;
  let publish: (e: NewWatchdogEvent) => Promise<{ id: string }>;

  /** Every log line the app writes, at debug level, through the production log options. */
  const logs: string[] = [];
  const logger = pino(loggerOptions('debug'), { write: (line: string) => void logs.push(line) });

  /** Creates an alert written as a client writes it (the wire shape), read at the edge as the surfaces do. */
  const create = async (wire: Record<string, unknown>) =>
    t.app.deps.alerts.store.create(anyone, parseAlertInput(wire));

  const start = async () => {
    t = await createTestApp({ listen: true, database, env: ENV, overrides: { logger } });
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    publish = (e) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, e));
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = new Receiver();
    await receiver.start();
    await start();
    await create({
      alert_id: 'btc-crash',
      name: 'BTC crash',
      trigger: {
        type: 'watchdog_event',
        event_filter: { event_types: ['flash_crash'], assets: ['BTC/USDT'] },
      },
      delivery_methods: ['webhook'],
      webhook_config: { url: receiver.url, headers: { 'X-Team': 'ops' }, signing_secret: SECRET },
      cooldown_seconds: 3_600,
    });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.close();
    await database?.cleanup();
  });

  it('delivers a matching event once, signed, to the webhook; a non-matching one not at all', async () => {
    await publish(event({ symbol: 'ETH/USDT', asset: { symbol: 'ETH/USDT', assetType: 'crypto' } }));
    receiver.script.push(503, 503);
    const stored = await publish(event());
    const [first, second, third] = await receiver.until(3);
    // Refused twice (Retry-After: 1), then accepted: three attempts of one delivery.
    const ids = [first, second, third].map((r) => r!.headers['x-vigil-delivery']);
    expect(new Set(ids).size).toBe(1);
    const { headers, body } = third!;
    expect(headers['x-team']).toBe('ops');
    expect(headers['content-type']).toMatch(/^application\/json/);
    const timestamp = String(headers['x-vigil-timestamp']);
    const expected = createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex');
    expect(headers['x-vigil-signature']).toBe(`sha256=${expected}`);
    const payload = JSON.parse(body);
    expect(payload).toMatchObject({
      alert_id: 'btc-crash',
      alert_name: 'BTC crash',
      delivery_id: ids[0],
      event: {
        event_id: stored.id,
        type: 'flash_crash',
        severity: 'critical',
        asset: { symbol: 'BTC/USDT' },
      },
    });
    // The delivery record: three attempts, one delivery id.
    for (let i = 0; i < 100; i++) {
      const record = await t.app.deps.alerts.store.deliveries(anyone, 'btc-crash');
      if (record.some((r) => r.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const record = await t.app.deps.alerts.store.deliveries(anyone, 'btc-crash');
    expect(record.map((r) => [r.attempt, r.status, r.responseCode])).toEqual([
      [3, 'delivered', 200],
      [2, 'retry', 503],
      [1, 'retry', 503],
    ]);
    expect((await t.app.deps.alerts.store.get(anyone, 'btc-crash')).triggerCount).toBe(1);
  }, 30_000);

  it('holds the cooldown across a restart', async () => {
    await t.close();
    await start();
    await publish(event());
    // Another alert without a cooldown proves the event went round; the first stays quiet.
    await create({
      alert_id: 'all-crashes',
      name: 'all crashes',
      trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
      delivery_methods: ['webhook'],
      webhook_config: { url: receiver.url },
      cooldown_seconds: 0,
    });
    const before = receiver.received.length;
    await publish(event());
    const received = await receiver.until(before + 1);
    await new Promise((r) => setTimeout(r, 500));
    expect(received.slice(before).map((r) => JSON.parse(r.body).alert_id)).toEqual(['all-crashes']);
    expect((await t.app.deps.alerts.store.get(anyone, 'btc-crash')).triggerCount).toBe(1);
  }, 30_000);

  it('custom conditions: one FK-DSL SCAN, checked at write, firing when it starts to match', async () => {
    const condition = (c: string) => ({
      alert_id: 'scan',
      name: 'scan',
      trigger: { type: 'custom_condition', condition: c },
      delivery_methods: ['webhook'],
      webhook_config: { url: receiver.url },
      cooldown_seconds: 0,
    });
    await expect(create(condition('SCAN [BTC/USDT] WHERE'))).rejects.toMatchObject({
      code: 'INVALID_ARGUMENTS',
      details: { field: 'trigger.condition' },
    });
    await expect(create(condition('EVALUATE BTC/USDT: RSI(14)'))).rejects.toMatchObject({
      details: {
        issues: [{ field: 'trigger.condition', message: expect.stringMatching(/one FK-DSL SCAN/) }],
      },
    });
    await create(condition('SCAN [BTC/USDT, ETH/USDT] WHERE RSI < 101'));
    const before = receiver.received.length;
    // The minute job's work, run now (the check interval of 60 s divides every minute).
    await t.app.deps.alerts.evaluateScheduled();
    const [sent] = (await receiver.until(before + 1)).slice(before);
    expect(JSON.parse(sent!.body)).toMatchObject({
      alert_id: 'scan',
      event: {
        type: 'custom_condition',
        watchdog: null,
        data: { matches: [{ symbol: 'BTC/USDT' }, { symbol: 'ETH/USDT' }] },
      },
    });
    // Still matching: it does not fire again until a check finds no match.
    await t.app.deps.alerts.evaluateScheduled();
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received.length).toBe(before + 1);
  }, 30_000);

  it('email: a real SMTP server receives the message, with login, escaped HTML and the right content', async () => {
    const received: Array<{ raw: string; user: unknown; to: string[] }> = [];
    const server = new SMTPServer({
      logger: false,
      disableReverseLookup: true,
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'vigil' && auth.password === 'smtp-pass-123')
          return callback(null, { user: 'vigil' });
        return callback(new Error('bad login'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            raw: Buffer.concat(chunks).toString(),
            user: session.user,
            to: session.envelope.rcptTo.map((r) => r.address),
          });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as AddressInfo).port;
    try {
      const view = await create({
        alert_id: 'mail',
        name: 'Mail <ops>',
        trigger: { type: 'watchdog_event', event_filter: { severities: ['critical'] } },
        delivery_methods: ['email'],
        email_config: {
          smtp_host: '127.0.0.1',
          smtp_port: port,
          use_tls: false,
          smtp_user: 'vigil',
          smtp_password: 'smtp-pass-123',
          from_email: 'vigil@example.com',
          to_emails: ['ops@example.com', 'desk@example.com'],
        },
        cooldown_seconds: 0,
      });
      expect(JSON.stringify(view)).not.toContain('smtp-pass-123');
      expect(hasSecret(view, 'smtpPassword')).toBe(true);
      expect(view.email).toMatchObject({ smtpPort: port });
      await publish(event({ symbol: 'SOL/USDT', asset: { symbol: 'SOL/USDT', assetType: 'crypto' } }));
      for (let i = 0; i < 400 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      // One message per recipient (each is a delivery of its own).
      expect(received.map((m) => m.to).sort()).toEqual([['desk@example.com'], ['ops@example.com']]);
      const [mail] = received;
      expect(mail!.user).toBe('vigil');
      expect(mail!.raw).toMatch(/^Subject: .*CRITICAL.*Mail <ops>.*SOL\/USDT/im);
      expect(mail!.raw).toContain('&lt;b&gt;&amp;&lt;/b&gt;');
      for (let i = 0; i < 100 && (await t.app.deps.alerts.store.deliveries(anyone, 'mail')).length < 2; i++)
        await new Promise((r) => setTimeout(r, 25));
      const record = await t.app.deps.alerts.store.deliveries(anyone, 'mail');
      expect(record.map((r) => [r.target, r.status]).sort()).toEqual([
        ['desk@example.com', 'delivered'],
        ['ops@example.com', 'delivered'],
      ]);
      expect(JSON.stringify(record)).not.toContain('smtp-pass-123');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }, 30_000);

  it('test-send delivers now, even when disabled, and answers per method', async () => {
    await t.app.deps.alerts.store.setEnabled(anyone, 'btc-crash', false);
    const before = receiver.received.length;
    const results = await t.app.deps.alerts.testSend(anyone, 'btc-crash');
    expect(results).toEqual([
      expect.objectContaining({ method: 'webhook', status: 'delivered', responseCode: 200, error: null }),
    ]);
    const [sent] = await receiver.until(before + 1).then((r) => r.slice(before));
    expect(JSON.parse(sent!.body)).toMatchObject({ alert_id: 'btc-crash', test: true });
  });
  it('an attempt cut short by a stopped process is resumed by the next one, with the same delivery id', async () => {
    // The receiver holds the next request open: the instance stops while its attempt waits.
    let release: (() => void) | undefined;
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.hold = hung;
    const before = receiver.received.length;
    await create({
      alert_id: 'resume',
      name: 'resume',
      trigger: { type: 'watchdog_event', event_filter: { event_types: ['exchange_outage'] } },
      delivery_methods: ['webhook'],
      webhook_config: { url: receiver.url },
      cooldown_seconds: 0,
    });
    await publish(
      event({ watchdog: 'exchange_outage', eventType: 'exchange_outage', symbol: null, asset: null }),
    );
    await receiver.until(before + 1);
    await t.close();
    receiver.hold = undefined;
    // The next instance starts later than the claim can last: its start-up sweep resumes the delivery.
    const later = new ManualClock(Date.now() + 10 * 60_000);
    t = await createTestApp({ listen: true, database, env: ENV, overrides: { logger, clock: later } });
    const [cut, resumed] = (await receiver.until(before + 2)).slice(before);
    release?.();
    expect(resumed!.headers['x-vigil-delivery']).toBe(cut!.headers['x-vigil-delivery']);
    for (let i = 0; i < 100; i++) {
      const record = await t.app.deps.alerts.store.deliveries(anyone, 'resume');
      if (record.some((r) => r.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await t.app.deps.alerts.store.deliveries(anyone, 'resume')).map((r) => r.status)).toEqual([
      'delivered',
    ]);
  }, 60_000);

  it('logged something, and never a secret', () => {
    expect(logs.length).toBeGreaterThan(10);
    const text = logs.join('\n');
    for (const secret of [SECRET, 'smtp-pass-123']) expect(text).not.toContain(secret);
  });
});

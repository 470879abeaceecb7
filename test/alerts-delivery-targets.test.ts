/**
 * One target, one delivery: an alert with many chat ids or email recipients delivers to each as a
 * unit of its own (its own attempts, deadline, retries and record), through the running app: a
 * watchdog event is published, fired, and delivered by the job workers to a local chat API and a
 * real SMTP server (smtp-server) that are slow per message, with an attempt deadline far shorter
 * than the whole list takes. Every target gets the message exactly once; a recipient the server
 * refuses for now is retried alone.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAlertInput } from '../src/alerts/alert-input.wire.ts';
import { ATTEMPT_FIELDS } from '../src/alerts/alerts.documents.ts';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import { type NewWatchdogEvent, WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

const anyone = anonymousPrincipal(false);
const TOKEN = '4242:targets-test-token';
/** Per message at the chat API, per RCPT TO at the SMTP server. */
const CHAT_DELAY_MS = 300;
const RCPT_DELAY_MS = 150;
/** The attempt deadline: 50 chats one after the other take 15 s, 50 RCPTs 7.5 s. */
const TIMEOUT_MS = 3_000;
const CHATS = Array.from({ length: 50 }, (_, i) => String(1_000 + i));
const RECIPIENTS = Array.from({ length: 50 }, (_, i) => `r${i}@example.com`);
const GREYLISTED = 'r17@example.com';

const event = (symbol: string): NewWatchdogEvent => ({
  watchdog: 'price_anomaly',
  eventType: 'flash_crash',
  severity: 'critical',
  symbol,
  asset: { symbol, assetType: 'crypto' },
  description: `${symbol} fell 12.00% in 4 minutes`,
  data: { change: -0.12 },
});

/** What the last wait had seen (said when it times out). */
let progress = '';

async function until(what: string, ms: number, done: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + ms;
  progress = '';
  while (!(await done())) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${progress && ` (${progress})`}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Counts per key. */
function counts(keys: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

describe('alerts: one delivery per target', () => {
  let t: TestApp;
  let chatApi: Server;
  let smtp: SMTPServer;
  const chatsReceived: string[] = [];
  const mailsReceived: string[][] = [];
  const refusedOnce = new Set<string>();
  let publish: (e: NewWatchdogEvent) => Promise<unknown>;

  beforeAll(async () => {
    chatApi = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { chat_id: string };
        // The message is taken when the request arrives; the answer comes later (a slow API).
        chatsReceived.push(String(body.chat_id));
        setTimeout(() => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ ok: true, result: { message_id: 1 } }));
        }, CHAT_DELAY_MS);
      });
    });
    await new Promise<void>((resolve) => chatApi.listen(0, '127.0.0.1', resolve));
    smtp = new SMTPServer({
      logger: false,
      disableReverseLookup: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      onRcptTo(address, _session, callback) {
        setTimeout(() => {
          if (address.address === GREYLISTED && !refusedOnce.has(address.address)) {
            refusedOnce.add(address.address);
            return callback(Object.assign(new Error('Greylisted, try again later'), { responseCode: 450 }));
          }
          callback();
        }, RCPT_DELAY_MS);
      },
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          mailsReceived.push(session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    t = await createTestApp({
      listen: true,
      env: {
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        ALERT_DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
        CHAT_API_BASE_URL: `http://127.0.0.1:${(chatApi.address() as AddressInfo).port}`,
        CHAT_BOT_TOKEN: TOKEN,
        RATE_LIMIT_MAX: '10000',
        SECRETS_KEY: 'a'.repeat(64),
      },
    });
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: t.app.deps.clock,
      logger: t.app.deps.logger,
    });
    publish = (e) => t.app.deps.database.db.transaction((tx) => bus.publish(tx, e));
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (chatApi ? chatApi.close(() => resolve()) : resolve()));
  });

  const record = (alertId: string) => t.app.deps.alerts.store.deliveries(anyone, alertId, 500);
  /** The last attempt of each delivery, by target. */
  const finalByTarget = async (alertId: string) => {
    const attempts = await record(alertId);
    const last = new Map<string, (typeof attempts)[number]>();
    for (const a of attempts) if (!last.has(a.deliveryId)) last.set(a.deliveryId, a);
    return new Map([...last.values()].map((a) => [a.target ?? '', a]));
  };

  it('50 chat ids on a slow chat API: each chat gets the message exactly once', async () => {
    await t.app.deps.alerts.store.create(
      anyone,
      parseAlertInput({
        alert_id: 'many-chats',
        name: 'many chats',
        trigger: { type: 'watchdog_event', event_filter: { assets: ['BTC/USDT'] } },
        delivery_methods: ['chat'],
        chat_config: { chat_ids: CHATS },
        cooldown_seconds: 0,
      }),
    );
    await publish(event('BTC/USDT'));
    await until('every chat reached', 30_000, () => {
      const reached = new Set(chatsReceived).size;
      if (reached < CHATS.length)
        progress = `${reached} of ${CHATS.length} chats, ${chatsReceived.length} messages`;
      return reached === CHATS.length;
    });
    await until('every chat delivery recorded', 10_000, async () => {
      const final = await finalByTarget('many-chats');
      return CHATS.every((c) => final.get(c)?.status === 'delivered');
    });
    const perChat = counts(chatsReceived);
    expect([...perChat.keys()].sort()).toEqual([...CHATS].sort());
    expect([...perChat.values()].every((n) => n === 1)).toBe(true);
    // One delivery per chat, each with one attempt and its own delivery id.
    const attempts = await record('many-chats');
    expect(attempts).toHaveLength(CHATS.length);
    expect(new Set(attempts.map((a) => a.deliveryId)).size).toBe(CHATS.length);
    expect(attempts.every((a) => a.method === 'chat' && a.attempt === 1)).toBe(true);
  }, 60_000);

  it('50 email recipients on a slow SMTP server: all reached once, the greylisted one retried alone', async () => {
    const port = (smtp.server.address() as AddressInfo).port;
    await t.app.deps.alerts.store.create(
      anyone,
      parseAlertInput({
        alert_id: 'many-mails',
        name: 'many mails',
        trigger: { type: 'watchdog_event', event_filter: { assets: ['ETH/USDT'] } },
        delivery_methods: ['email'],
        email_config: {
          smtp_host: '127.0.0.1',
          smtp_port: port,
          use_tls: false,
          from_email: 'vigil@example.com',
          to_emails: RECIPIENTS,
        },
        cooldown_seconds: 0,
      }),
    );
    await publish(event('ETH/USDT'));
    await until('every recipient reached', 30_000, () => {
      const reached = new Set(mailsReceived.flat()).size;
      progress = `${reached} of ${RECIPIENTS.length} recipients, ${mailsReceived.length} messages`;
      return reached === RECIPIENTS.length;
    });
    await until('every recipient delivery recorded', 10_000, async () => {
      const final = await finalByTarget('many-mails');
      return RECIPIENTS.every((r) => final.get(r)?.status === 'delivered');
    });
    const perRecipient = counts(mailsReceived.flat());
    expect([...perRecipient.keys()].sort()).toEqual([...RECIPIENTS].sort());
    expect([...perRecipient.values()].every((n) => n === 1)).toBe(true);
    // The greylisted recipient: refused once (450, retried), then delivered; alone each time.
    const attempts = (await record('many-mails')).filter((a) => a.target === GREYLISTED);
    expect(attempts.map((a) => [a.attempt, a.status, a.responseCode])).toEqual([
      [2, 'delivered', 250],
      [1, 'retry', 450],
    ]);
    expect(mailsReceived.filter((to) => to.includes(GREYLISTED))).toEqual([[GREYLISTED]]);
    // Every other recipient: delivered once (a busy machine may retry one that was not reached).
    const others = (await record('many-mails')).filter((a) => a.target !== GREYLISTED);
    expect(others.filter((a) => a.status === 'delivered')).toHaveLength(RECIPIENTS.length - 1);
  }, 60_000);

  it('the record names each target and the event it delivered, on GraphQL', async () => {
    const response = await graphql<{ alertDeliveries: Array<Record<string, unknown>> }>(
      t.app,
      `query { alertDeliveries(id: "many-chats", limit: 5) { ${ATTEMPT_FIELDS} } }`,
    );
    const [first] = response.body.data?.alertDeliveries ?? [];
    expect(CHATS).toContain(first?.target);
    expect(first?.event).toMatchObject({ type: 'flash_crash', watchdog: 'PRICE_ANOMALY' });
  });
});

/**
 * What the built bundle loads on first use works in the bundle, not only on the sources: a quote
 * from a live provider (undici), and a test-send over webhook, chat (undici) and email
 * (nodemailer). A package imported where it is used lands in a chunk of its own, and a CommonJS
 * package's chunk exports only `default`: code that took named exports from such an import worked
 * under the test runner and failed in `npm start` ("Agent is not a constructor").
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE } from './support/bundle.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';
import { type FixtureServer, startFixtureServer } from './support/fixture-server.ts';
import { fixtureJson, fixturesMissing, itWithFixtures } from './support/fixtures.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

const portOf = (server: { address(): AddressInfo | string | null }) => (server.address() as AddressInfo).port;

describe('the built bundle, for what it loads on first use', () => {
  let database: TestDatabase;
  let provider: FixtureServer;
  let receiver: Server;
  let smtp: SMTPServer;
  let child: ChildProcess;
  let url: string;
  let stderr = '';
  const webhooks: unknown[] = [];
  const chats: { path: string; body: { chat_id: string } }[] = [];
  const mails: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    provider = await startFixtureServer(
      fixturesMissing
        ? []
        : [
            {
              path: '/api/v3/ticker/24hr',
              query: { symbol: 'BTCUSDT' },
              reply: 'binance/api-v3-ticker-24hr-BTCUSDT.json',
            },
          ],
    );
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += String(chunk);
      });
      req.on('end', () => {
        if (req.url?.startsWith('/bot')) {
          chats.push({ path: req.url, body: JSON.parse(body) as { chat_id: string } });
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true,"result":{}}');
          return;
        }
        webhooks.push(JSON.parse(body));
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () => {
          mails.push(...session.envelope.rcptTo.map((r) => r.address));
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const local = `http://127.0.0.1:${portOf(receiver)}`;
    child = spawn(process.execPath, [BUNDLE.main], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        PORT: '0',
        DATA_DIR: database.dataDir,
        LOG_LEVEL: 'info',
        WATCHDOGS_RUN: 'false',
        MARKET_DATA_PROVIDERS: 'binance',
        BINANCE_BASE_URL: provider.url,
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        CHAT_API_BASE_URL: local,
        CHAT_BOT_TOKEN: '123:first-use',
        SMTP_HOST: '127.0.0.1',
        SMTP_PORT: String(portOf(smtp.server)),
        SMTP_FROM_EMAIL: 'vigil@example.com',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr!.on('data', (chunk) => {
      stderr += String(chunk);
    });
    url = await new Promise<string>((resolve, reject) => {
      const look = () => {
        const line = stderr.split('\n').find((l) => l.includes('"vigil is listening"'));
        if (line) resolve((JSON.parse(line) as { url: string }).url);
      };
      child.stderr!.on('data', look);
      child.once('exit', (code) => reject(new Error(`vigil exited (${code}) before listening:\n${stderr}`)));
    });
    const body = {
      alert_id: 'first-use',
      name: 'First use',
      trigger: { type: 'watchdog_event', event_filter: {} },
      delivery_methods: ['webhook', 'chat', 'email'],
      webhook_config: { url: `${local}/hook` },
      chat_config: { chat_ids: ['1001', '1002'] },
      email_config: { use_tls: false, to_emails: ['ops@example.com', 'desk@example.com'] },
    };
    const created = await fetch(`${url}/api/alerts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(created.status, await created.clone().text()).toBe(201);
  }, 120_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await provider?.close();
    receiver?.closeAllConnections();
    await new Promise((resolve) => receiver?.close(resolve));
    await new Promise<void>((resolve) => (smtp ? smtp.close(() => resolve()) : resolve()));
    await database?.cleanup();
  });

  it('delivers a test-send over webhook, chat and email', async () => {
    const answer = await fetch(`${url}/api/alerts/first-use/test`, { method: 'POST' });
    const { results } = (await answer.json()) as {
      results: { method: string; target: string; status: string; error: string | null }[];
    };
    expect(results.map((r) => [r.method, r.status, r.error])).toEqual([
      ['webhook', 'delivered', null],
      ['chat', 'delivered', null],
      ['chat', 'delivered', null],
      ['email', 'delivered', null],
      ['email', 'delivered', null],
    ]);
    expect(webhooks).toHaveLength(1);
    expect(chats.map((c) => c.body.chat_id).sort()).toEqual(['1001', '1002']);
    expect(mails.sort()).toEqual(['desk@example.com', 'ops@example.com']);
  }, 30_000);

  itWithFixtures('answers a quote from a live provider', async () => {
    const ticker = fixtureJson<{ lastPrice: string }>('binance/api-v3-ticker-24hr-BTCUSDT.json');
    const answer = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ quote(symbol: "BTC/USDT") { quote { price } lineage { used simulated } } }',
      }),
    });
    expect(await answer.json()).toEqual({
      data: {
        quote: {
          quote: { price: Number(ticker.lastPrice) },
          lineage: { used: ['binance'], simulated: false },
        },
      },
    });
  });
});

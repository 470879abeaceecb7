/**
 * The server's SMTP login stays on the server's own connection, and no password travels without
 * TLS, proved against real SMTP servers (the smtp-server package) on loopback that record every
 * login they are offered. The targets are built as deliveries build them (`emailTarget` from the
 * alert's settings, its secrets and the server's settings) and sent with `sendEmail`. A bot token
 * reaches only its own path of the chat API (a local HTTP server records the paths asked for).
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmailConfig } from '../src/alerts/alert.model.ts';
import { sendChat } from '../src/alerts/delivery/chat.ts';
import { emailTarget, type SmtpDefaults } from '../src/alerts/delivery/deliverer.ts';
import { sendEmail } from '../src/alerts/delivery/email.ts';
import { parseAllowedHosts, type Resolver } from '../src/alerts/delivery/ssrf.ts';
import type { DeliveryContext, EmailOptions, EmailTarget } from '../src/alerts/delivery/types.ts';

const cert = readFileSync(new URL('./support/alerts-delivery-tls.cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('./support/alerts-delivery-tls.key.pem', import.meta.url), 'utf8');

const SERVER_PASSWORD = 'operator-pw-5d1e';

const ctx: DeliveryContext = {
  deliveryId: 'dlv-creds-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'alert-1', name: 'Creds', description: null },
  event: {
    id: 'ev-1',
    type: 'price_anomaly',
    severity: 'high',
    description: 'A move',
    asset: { symbol: 'AAPL', assetType: 'equity' },
    occurredAt: new Date('2025-01-02T03:04:05.000Z'),
    watchdog: 'price_anomaly',
    data: {},
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
};

/** Test names resolve to loopback; everything else is unknown (nothing leaves this machine). */
const resolver: Resolver = async (host) => {
  if (['smtp.test', 'localhost', 'other.test'].includes(host)) return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

interface Login {
  readonly username: string | undefined;
  readonly password: string | undefined;
  readonly secure: boolean;
}

interface Recorder {
  readonly port: number;
  readonly logins: Login[];
  readonly mails: number[];
  readonly connections: number[];
}

const servers: SMTPServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

/**
 * A server that takes any login (over TLS or not: `allowInsecureAuth`) and mail without one, and
 * records what it was offered.
 */
async function smtp(config: SMTPServerOptions = {}): Promise<Recorder> {
  const logins: Login[] = [];
  const mails: number[] = [];
  const connections: number[] = [];
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    allowInsecureAuth: true,
    authMethods: ['PLAIN', 'LOGIN'],
    key,
    cert,
    onConnect(_session, callback) {
      connections.push(1);
      callback();
    },
    onAuth(auth, session, callback) {
      logins.push({ username: auth.username, password: auth.password ?? undefined, secure: session.secure });
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        mails.push(1);
        callback();
      });
    },
    ...config,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, logins, mails, connections };
}

const serverSettings = (port: number, plaintextAuthHosts: string[] = []): SmtpDefaults => ({
  host: 'smtp.test',
  port,
  user: 'vigil',
  password: SERVER_PASSWORD,
  fromEmail: 'vigil@example.com',
  plaintextAuthHosts,
});

const options = (smtp: SmtpDefaults): EmailOptions => ({
  timeoutMs: 5_000,
  allowedHosts: parseAllowedHosts(['smtp.test', 'localhost', 'other.test', '127.0.0.1']),
  resolver,
  tls: { ca: cert },
  smtp,
});

const config = (over: Partial<EmailConfig> = {}): EmailConfig => ({
  useTls: true,
  toEmails: ['ops@example.com'],
  ...over,
});

/** Builds the delivery's target as a firing does, and sends it. */
async function deliver(email: EmailConfig, smtp: SmtpDefaults, alertPassword?: string) {
  const resolved = emailTarget(
    email,
    alertPassword === undefined ? {} : { smtpPassword: alertPassword },
    smtp,
  );
  if ('missing' in resolved) throw new Error(resolved.missing);
  return sendEmail(resolved.target, ctx, options(smtp));
}

const passwordsOf = (r: Recorder) => r.logins.map((l) => l.password);

describe("the server's SMTP login", () => {
  it('is used on its own connection, over TLS', async () => {
    const relay = await smtp();
    const outcome = await deliver(config(), serverSettings(relay.port));
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(relay.logins).toEqual([{ username: 'vigil', password: SERVER_PASSWORD, secure: true }]);
  });

  it('is not sent in clear text when an alert turns TLS off and leaves the host out', async () => {
    const relay = await smtp({ disabledCommands: ['STARTTLS'] });
    const outcome = await deliver(config({ useTls: false }), serverSettings(relay.port));
    // The mail goes without a login (this relay takes it); the password never went over the wire.
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(relay.mails).toHaveLength(1);
    expect(passwordsOf(relay)).not.toContain(SERVER_PASSWORD);
    expect(relay.logins).toEqual([]);
  });

  it('is not sent to another port an alert chooses on the server host', async () => {
    const relay = await smtp();
    const chosen = await smtp();
    const outcome = await deliver(config({ smtpPort: chosen.port }), serverSettings(relay.port));
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(chosen.mails).toHaveLength(1);
    expect(passwordsOf(chosen)).not.toContain(SERVER_PASSWORD);
    expect(relay.connections).toHaveLength(0);
  });

  it('is not sent under a user name an alert chooses', async () => {
    const relay = await smtp();
    await deliver(config({ smtpUser: 'attacker' }), serverSettings(relay.port));
    expect(passwordsOf(relay)).not.toContain(SERVER_PASSWORD);
    expect(relay.logins.every((l) => l.username === 'attacker')).toBe(true);
  });

  it('is not sent to a host an alert chooses', async () => {
    const relay = await smtp();
    const chosen = await smtp();
    for (const smtpHost of ['localhost', 'other.test', '127.0.0.1']) {
      await deliver(
        config({ smtpHost, smtpPort: chosen.port, smtpUser: 'vigil' }),
        serverSettings(relay.port),
      );
      await deliver(config({ smtpHost, smtpPort: relay.port }), serverSettings(relay.port));
    }
    expect(passwordsOf(chosen)).not.toContain(SERVER_PASSWORD);
    expect(passwordsOf(relay)).not.toContain(SERVER_PASSWORD);
  });

  it('goes without TLS only to a server host SMTP_PLAINTEXT_AUTH_HOSTS lists', async () => {
    const relay = await smtp({ disabledCommands: ['STARTTLS'] });
    const outcome = await deliver(config({ useTls: false }), serverSettings(relay.port, ['smtp.test']));
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(relay.logins).toEqual([{ username: 'vigil', password: SERVER_PASSWORD, secure: false }]);
  });
});

describe('the email sender, whatever the target says', () => {
  it("refuses, before connecting, a target that would carry the server's login elsewhere", async () => {
    const relay = await smtp();
    const other = await smtp();
    const smtpSettings = serverSettings(relay.port);
    const leaking: EmailTarget[] = [
      { smtpHost: 'other.test', smtpPort: relay.port, useTls: true },
      { smtpHost: 'smtp.test', smtpPort: other.port, useTls: true },
      { smtpHost: 'smtp.test', smtpPort: relay.port, useTls: false },
    ].map((t) => ({
      ...t,
      smtpUser: 'vigil',
      smtpPassword: SERVER_PASSWORD,
      serverLogin: true,
      fromEmail: 'vigil@example.com',
      toEmails: ['ops@example.com'],
    }));
    for (const target of leaking) {
      const outcome = await sendEmail(target, ctx, options(smtpSettings));
      expect(outcome, JSON.stringify(target.smtpHost)).toMatchObject({
        status: 'failed',
        responseCode: null,
        error: expect.stringContaining(
          "the server's SMTP_USER and SMTP_PASSWORD are used only with SMTP_HOST",
        ),
      });
      expect(JSON.stringify(outcome)).not.toContain(SERVER_PASSWORD);
    }
    expect(relay.connections).toHaveLength(0);
    expect(other.connections).toHaveLength(0);
  });

  it('never sends a password without TLS to a host that is not listed', async () => {
    const plain = await smtp({ disabledCommands: ['STARTTLS'] });
    const target: EmailTarget = {
      smtpHost: '127.0.0.1',
      smtpPort: plain.port,
      useTls: false,
      smtpUser: 'me',
      smtpPassword: 'alert-pw-1',
      fromEmail: 'vigil@example.com',
      toEmails: ['ops@example.com'],
    };
    const refused = await sendEmail(target, ctx, options(serverSettings(1)));
    expect(refused).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('a password is never sent without TLS'),
    });
    expect(plain.connections).toHaveLength(0);
    const listed = await sendEmail(target, ctx, options(serverSettings(1, ['127.0.0.1'])));
    expect(listed).toMatchObject({ status: 'delivered' });
    expect(plain.logins).toEqual([{ username: 'me', password: 'alert-pw-1', secure: false }]);
  });
});

describe('the chat bot token', () => {
  const http: Server[] = [];
  afterEach(async () => {
    for (const server of http.splice(0)) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it.each(['123:abc/../../admin/deleteWebhook', '123:abc/sendMessage?chat_id=666#', '..%2F..%2Fadmin'])(
    'is one path segment of the sendMessage URL, whatever it holds: %j',
    async (botToken) => {
      const paths: string[] = [];
      const server = createServer((req, res) => {
        paths.push(req.url ?? '');
        req.resume();
        req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
      });
      http.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
      const outcome = await sendChat({ botToken, chatIds: ['1'], apiBaseUrl: base }, ctx, {
        timeoutMs: 5_000,
        allowedHosts: parseAllowedHosts(['127.0.0.1']),
      });
      expect(outcome).toMatchObject({ status: 'delivered' });
      expect(paths).toHaveLength(1);
      const [path = ''] = paths;
      expect(path).toMatch(/^\/api\/bot[^/?#]+\/sendMessage$/);
      expect(decodeURIComponent(path)).toBe(`/api/bot${botToken}/sendMessage`);
    },
  );
});

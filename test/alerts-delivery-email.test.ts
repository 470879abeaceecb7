/**
 * Email delivery against a real SMTP server (the smtp-server package) on loopback: plain,
 * STARTTLS and implicit TLS with a test certificate, authentication, and SMTP rejections.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { afterEach, describe, expect, it } from 'vitest';
import { sendEmail } from '../src/alerts/delivery/email.ts';
import { parseAllowedHosts, type Resolver } from '../src/alerts/delivery/ssrf.ts';
import type { DeliveryContext, EmailOptions, EmailTarget } from '../src/alerts/delivery/types.ts';

const cert = readFileSync(new URL('./support/alerts-delivery-tls.cert.pem', import.meta.url), 'utf8');
const key = readFileSync(new URL('./support/alerts-delivery-tls.key.pem', import.meta.url), 'utf8');

const ctx = (overrides: Partial<DeliveryContext> = {}): DeliveryContext => ({
  deliveryId: 'dlv-email-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'alert-1', name: 'Tech <watch> & co', description: null },
  event: {
    id: 'ev-1',
    type: 'price_anomaly',
    severity: 'critical',
    description: 'Spike <script>alert("x")</script> & done',
    asset: { symbol: 'AAPL', assetType: 'equity' },
    occurredAt: new Date('2025-01-02T03:04:05.000Z'),
    watchdog: 'price_anomaly',
    data: { z_score: 5.1 },
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
  ...overrides,
});

/** Test names resolve to loopback; everything else is unknown. */
const resolver: Resolver = async (host) => {
  if (host === 'localhost' || host === 'smtp.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};
const options: EmailOptions = {
  timeoutMs: 5_000,
  allowedHosts: parseAllowedHosts(['127.0.0.1']),
  resolver,
  tls: { ca: cert },
};

interface Received {
  readonly raw: string;
  readonly from: string | undefined;
  readonly to: string[];
  readonly secure: boolean;
  readonly user: string | undefined;
}

const servers: SMTPServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function smtp(config: SMTPServerOptions): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    onData(stream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          raw: Buffer.concat(chunks).toString('utf8'),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          secure: session.secure,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
    ...config,
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.server.address() as AddressInfo).port, received };
}

const target = (port: number, overrides: Partial<EmailTarget> = {}): EmailTarget => ({
  smtpHost: '127.0.0.1',
  smtpPort: port,
  useTls: false,
  fromEmail: 'vigil@example.com',
  toEmails: ['ops@example.com', 'desk@example.com'],
  ...overrides,
});

/** The decoded text and HTML parts and the headers of a message nodemailer built. */
function parseMessage(raw: string): { headers: Record<string, string>; text: string; html: string } {
  const [head = '', ...rest] = raw.split('\r\n\r\n');
  const headers = headersOf(head);
  const body = rest.join('\r\n\r\n');
  const boundary = /boundary="?([^";]+)"?/.exec(headers['content-type'] ?? '')?.[1];
  const parts = boundary ? body.split(`--${boundary}`).slice(1, -1) : [];
  const decoded = parts.map((part) => {
    const [partHead = '', ...partBody] = part.replace(/^\r\n/, '').split('\r\n\r\n');
    const h = headersOf(partHead);
    const content = partBody.join('\r\n\r\n').replace(/\r\n$/, '');
    return { type: h['content-type'] ?? '', content: decode(content, h['content-transfer-encoding'] ?? '') };
  });
  return {
    headers,
    text: decoded.find((p) => p.type.startsWith('text/plain'))?.content ?? '',
    html: decoded.find((p) => p.type.startsWith('text/html'))?.content ?? '',
  };
}

function headersOf(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return out;
}

function decode(content: string, encoding: string): string {
  if (/base64/i.test(encoding)) return Buffer.from(content, 'base64').toString('utf8');
  if (/quoted-printable/i.test(encoding)) {
    const bytes = content
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return content;
}

describe('sendEmail', () => {
  it('sends to a plain relay with escaped HTML, text, subject, sender and recipients', async () => {
    const { port, received } = await smtp({ disabledCommands: ['STARTTLS', 'AUTH'] });
    const outcome = await sendEmail(target(port), ctx(), options);
    expect(outcome).toMatchObject({ status: 'delivered', responseCode: 250 });
    expect(received).toHaveLength(1);
    const [mail] = received;
    expect(mail?.from).toBe('vigil@example.com');
    expect(mail?.to).toEqual(['ops@example.com', 'desk@example.com']);
    expect(mail?.secure).toBe(false);
    const message = parseMessage(mail?.raw ?? '');
    expect(message.headers.subject).toBe('[Vigil] CRITICAL: Tech <watch> & co (AAPL)');
    expect(message.headers.from).toBe('vigil@example.com');
    expect(message.headers['x-vigil-delivery']).toBe('dlv-email-1');
    expect(message.text).toContain('Spike <script>alert("x")</script> & done');
    expect(message.text).toContain('Symbol: AAPL (equity)');
    expect(message.html).toContain('Spike &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; done');
    expect(message.html).toContain('<h2>Tech &lt;watch&gt; &amp; co</h2>');
    expect(message.html).not.toContain('<script>');
  });

  it('requires STARTTLS when use_tls is on, verifying the certificate of the named host', async () => {
    const { port, received } = await smtp({ key, cert });
    const outcome = await sendEmail(target(port, { smtpHost: 'smtp.test', useTls: true }), ctx(), {
      ...options,
      allowedHosts: parseAllowedHosts(['smtp.test']),
    });
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(received[0]?.secure).toBe(true);
  });

  it('refuses to send in clear when the server offers no STARTTLS', async () => {
    const { port, received } = await smtp({ disabledCommands: ['STARTTLS'] });
    const outcome = await sendEmail(target(port, { useTls: true }), ctx(), options);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('SMTP STARTTLS rejected: 500'),
    });
    expect(received).toHaveLength(0);
  });

  it('does not trust a certificate it cannot verify', async () => {
    const { port, received } = await smtp({ key, cert });
    const { tls: _trust, ...untrusting } = options;
    const outcome = await sendEmail(target(port, { useTls: true }), ctx(), untrusting);
    expect(outcome.status).toBe('retry');
    expect(outcome).toMatchObject({ error: expect.stringMatching(/certificate/i) });
    expect(received).toHaveLength(0);
  });

  it('speaks TLS from the first byte on an implicit-TLS port', async () => {
    const { port, received } = await smtp({ secure: true, key, cert });
    const outcome = await sendEmail(
      target(port, { smtpHost: 'localhost', useTls: true, implicitTls: true }),
      ctx({ test: true }),
      { ...options, allowedHosts: parseAllowedHosts(['localhost']) },
    );
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(received[0]?.secure).toBe(true);
    expect(parseMessage(received[0]?.raw ?? '').headers.subject).toBe(
      '[Vigil test] CRITICAL: Tech <watch> & co (AAPL)',
    );
  });

  it('logs in when a user is given; the password arrives and appears in no outcome', async () => {
    const password = 'pw-s3cret-4711';
    const logins: Array<{ username: string | undefined; password: string | undefined }> = [];
    const { port, received } = await smtp({
      key,
      cert,
      authOptional: false,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(auth, _session, callback) {
        logins.push({ username: auth.username, password: auth.password ?? undefined });
        if (auth.password === password) callback(null, { user: auth.username });
        else callback(Object.assign(new Error(`bad password ${auth.password}`), { responseCode: 535 }));
      },
    });
    const ok = await sendEmail(
      target(port, { useTls: true, smtpUser: 'vigil', smtpPassword: password }),
      ctx(),
      options,
    );
    expect(ok).toMatchObject({ status: 'delivered' });
    expect(received[0]?.user).toBe('vigil');
    expect(logins).toEqual([{ username: 'vigil', password }]);

    const wrong = 'wrong-pw-0815';
    const refused = await sendEmail(
      target(port, { useTls: true, smtpUser: 'vigil', smtpPassword: wrong }),
      ctx(),
      options,
    );
    expect(refused).toMatchObject({ status: 'failed', responseCode: 535 });
    expect(JSON.stringify(refused)).not.toContain(wrong);
    expect(JSON.stringify(refused)).toContain('[redacted]');
  });

  it('does not log in without a user', async () => {
    const logins: string[] = [];
    const { port } = await smtp({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        logins.push(String(auth.username));
        callback(null, { user: auth.username });
      },
    });
    expect(await sendEmail(target(port, { smtpPassword: 'unused' }), ctx(), options)).toMatchObject({
      status: 'delivered',
    });
    expect(logins).toEqual([]);
  });

  it('fails permanently on a 5xx rejection and retries a 4xx one', async () => {
    const codes = [550, 451];
    const { port } = await smtp({
      disabledCommands: ['STARTTLS', 'AUTH'],
      onRcptTo(_address, _session, callback) {
        const code = codes[0] ?? 250;
        callback(
          Object.assign(new Error(code === 550 ? 'mailbox unavailable' : 'try again later'), {
            responseCode: code,
          }),
        );
      },
    });
    const permanent = await sendEmail(target(port), ctx(), options);
    expect(permanent).toMatchObject({ status: 'failed', responseCode: 550 });
    expect(permanent).toMatchObject({ error: expect.stringContaining('550') });
    codes.shift();
    const temporary = await sendEmail(target(port), ctx(), options);
    expect(temporary).toMatchObject({ status: 'retry', responseCode: 451 });
  });

  it('gives up an attempt that is aborted mid-dialogue, as a retry', async () => {
    const controller = new AbortController();
    const { port, received } = await smtp({
      disabledCommands: ['STARTTLS', 'AUTH'],
      // Never answers RCPT TO: the attempt only ends through the abort.
      onRcptTo: () => controller.abort(),
    });
    const outcome = await sendEmail(target(port), ctx({ signal: controller.signal }), options);
    expect(outcome).toMatchObject({ status: 'retry', error: 'SMTP: aborted' });
    expect(received).toHaveLength(0);
  });

  it('retries when nothing listens', async () => {
    const { port } = await smtp({});
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const outcome = await sendEmail(target(port), ctx(), options);
    expect(outcome).toMatchObject({ status: 'retry', responseCode: null });
  });

  it.each([
    ['10.0.0.1', 'SMTP host refused: 10.0.0.1 is a private address'],
    ['169.254.169.254', 'SMTP host refused: 169.254.169.254 is a cloud metadata address'],
  ])('refuses the internal SMTP host %s without connecting', async (host, error) => {
    const outcome = await sendEmail(target(25, { smtpHost: host }), ctx(), options);
    expect(outcome).toMatchObject({ status: 'failed', responseCode: null, error });
  });

  it('refuses loopback unless it is allow-listed', async () => {
    const { port, received } = await smtp({ disabledCommands: ['STARTTLS', 'AUTH'] });
    const outcome = await sendEmail(target(port), ctx(), { ...options, allowedHosts: parseAllowedHosts([]) });
    expect(outcome).toMatchObject({
      status: 'failed',
      error: 'SMTP host refused: 127.0.0.1 is a loopback address',
    });
    expect(received).toHaveLength(0);
  });
});

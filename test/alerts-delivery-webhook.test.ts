/**
 * Webhook delivery against local HTTP receivers: body and headers, the signature checked the way
 * a receiver would, redirects, retry classes, secrets kept out of outcomes, and the SSRF guard
 * (refusals, the allow-list, and the connection pinned to the checked address).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PinnedConnections } from '../src/alerts/delivery/pinned-http.ts';
import { parseAllowedHosts, type Resolver } from '../src/alerts/delivery/ssrf.ts';
import type { DeliveryContext, DeliveryOptions, WebhookTarget } from '../src/alerts/delivery/types.ts';
import { sendWebhook } from '../src/alerts/delivery/webhook.ts';

const SECRET = 'whsec-signing-0042';
const AUTH = 'tok-bearer-9000';
const now = new Date('2025-01-02T03:04:06Z');

const ctx = (overrides: Partial<DeliveryContext> = {}): DeliveryContext => ({
  deliveryId: 'dlv-hook-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'alert-7', name: 'Gaps', description: 'gap watcher' },
  event: {
    id: 'ev-3',
    type: 'price_anomaly',
    severity: 'medium',
    description: 'Gap up 4%',
    asset: { symbol: 'MSFT', assetType: 'equity', market: 'US' },
    occurredAt: new Date('2025-01-02T03:04:05.000Z'),
    watchdog: 'price_anomaly',
    data: { gap_percent: 4 },
    sample: false,
  },
  now,
  signal: new AbortController().signal,
  test: false,
  ...overrides,
});

const options: DeliveryOptions = { timeoutMs: 5_000, allowedHosts: parseAllowedHosts(['127.0.0.1']) };

interface Hit {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function receiver(
  reply: (hit: Hit, res: ServerResponse) => void,
): Promise<{ url: string; port: number; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const hit = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      hits.push(hit);
      reply(hit, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hooks/vigil?x=1`, port, hits };
}

const answer =
  (status: number, headers: Record<string, string> = {}, body = '') =>
  (_hit: Hit, res: ServerResponse) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const target = (url: string, overrides: Partial<WebhookTarget> = {}): WebhookTarget => ({
  url,
  method: 'POST',
  headers: {},
  ...overrides,
});

/** What a receiver does: recompute the HMAC over "<timestamp>.<raw body>" and compare in constant time. */
function verifies(hit: Hit, secret: string): boolean {
  const timestamp = String(hit.headers['x-vigil-timestamp']);
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${hit.body}`).digest('hex')}`;
  const given = String(hit.headers['x-vigil-signature'] ?? '');
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

describe('sendWebhook', () => {
  it('posts the documented body with delivery, timestamp, signature and bearer headers', async () => {
    const { url, hits } = await receiver(answer(204));
    const outcome = await sendWebhook(
      target(url, { authToken: AUTH, signingSecret: SECRET, headers: { 'X-Team': 'desk-1' } }),
      ctx(),
      options,
    );
    expect(outcome).toMatchObject({ status: 'delivered', responseCode: 204 });
    const [hit] = hits;
    expect(hit?.method).toBe('POST');
    expect(hit?.url).toBe('/hooks/vigil?x=1');
    expect(JSON.parse(hit?.body ?? '')).toEqual({
      alert_id: 'alert-7',
      alert_name: 'Gaps',
      event: {
        event_id: 'ev-3',
        type: 'price_anomaly',
        severity: 'medium',
        description: 'Gap up 4%',
        asset: { symbol: 'MSFT', asset_type: 'equity', market: 'US' },
        timestamp: '2025-01-02T03:04:05.000Z',
        watchdog: 'price_anomaly',
        data: { gap_percent: 4 },
        metadata: {},
      },
      timestamp: '2025-01-02T03:04:06.000Z',
      delivery_id: 'dlv-hook-1',
      test: false,
    });
    expect(hit?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-vigil-delivery': 'dlv-hook-1',
      'x-vigil-timestamp': String(now.getTime() / 1_000),
      authorization: `Bearer ${AUTH}`,
      'x-team': 'desk-1',
    });
    expect(hit && verifies(hit, SECRET)).toBe(true);
    expect(hit && verifies({ ...hit, body: hit.body.replace('Gaps', 'Gaps!') }, SECRET)).toBe(false);
    expect(hit && verifies(hit, 'another-secret')).toBe(false);
  });

  it('sends PUT without signature or authorization when neither is set', async () => {
    const { url, hits } = await receiver(answer(200));
    expect(await sendWebhook(target(url, { method: 'PUT' }), ctx({ test: true }), options)).toMatchObject({
      status: 'delivered',
    });
    expect(hits[0]?.method).toBe('PUT');
    expect(hits[0]?.headers['x-vigil-signature']).toBeUndefined();
    expect(hits[0]?.headers.authorization).toBeUndefined();
    expect(JSON.parse(hits[0]?.body ?? '{}').test).toBe(true);
  });

  it('ignores custom headers that would override Vigil’s own', async () => {
    const { url, port, hits } = await receiver(answer(200));
    const headers = {
      Host: 'evil.example',
      'Content-Length': '1',
      'Content-Type': 'text/plain',
      'X-Vigil-Delivery': 'forged',
      'x-vigil-signature': 'sha256=forged',
      Authorization: 'Basic Zm9vOmJhcg==',
      'X-Ok': 'yes',
    };
    await sendWebhook(target(url, { headers, authToken: AUTH, signingSecret: SECRET }), ctx(), options);
    const hit = hits[0];
    expect(hit?.headers.host).toBe(`127.0.0.1:${port}`);
    expect(hit?.headers['content-type']).toBe('application/json');
    expect(hit?.headers['x-vigil-delivery']).toBe('dlv-hook-1');
    expect(hit?.headers.authorization).toBe(`Bearer ${AUTH}`);
    expect(hit?.headers['x-ok']).toBe('yes');
    expect(hit && verifies(hit, SECRET)).toBe(true);
  });

  it('does not follow a redirect, naming it', async () => {
    const elsewhere = await receiver(answer(200));
    const { url } = await receiver(answer(307, { location: elsewhere.url }));
    const outcome = await sendWebhook(target(url), ctx(), options);
    expect(outcome).toMatchObject({
      status: 'failed',
      responseCode: 307,
      error: `the receiver redirected (HTTP 307 to ${elsewhere.url}); redirects are not followed`,
    });
    expect(elsewhere.hits).toHaveLength(0);
  });

  it('retries a receiver that refuses, with the same delivery id, until it accepts', async () => {
    const statuses = [503, 200];
    const { url, hits } = await receiver((_hit, res) => answer(statuses.shift() ?? 500)(_hit, res));
    const first = await sendWebhook(target(url), ctx(), options);
    expect(first).toMatchObject({ status: 'retry', responseCode: 503 });
    const second = await sendWebhook(target(url), ctx({ attempt: 2 }), options);
    expect(second).toMatchObject({ status: 'delivered', responseCode: 200 });
    expect(hits.map((h) => h.headers['x-vigil-delivery'])).toEqual(['dlv-hook-1', 'dlv-hook-1']);
  });

  it.each([
    [429, { 'retry-after': '30' }, 'retry', 30_000],
    [503, { 'retry-after': 'Thu, 02 Jan 2025 03:06:06 GMT' }, 'retry', 120_000],
    [408, {}, 'retry', undefined],
    [400, {}, 'failed', undefined],
    [410, {}, 'failed', undefined],
  ] as const)('HTTP %i is %s', async (status, headers, expected, retryAfterMs) => {
    const { url } = await receiver(answer(status, headers));
    const outcome = await sendWebhook(target(url), ctx(), options);
    expect(outcome).toMatchObject({ status: expected, responseCode: status });
    expect('retryAfterMs' in outcome ? outcome.retryAfterMs : undefined).toBe(retryAfterMs);
  });

  it('keeps secrets out of the outcome even when the receiver echoes them', async () => {
    const { url } = await receiver((hit, res) => {
      res.writeHead(401);
      res.end(`denied ${hit.headers.authorization} signed ${SECRET}`);
    });
    const outcome = await sendWebhook(
      target(url, { authToken: AUTH, signingSecret: SECRET }),
      ctx(),
      options,
    );
    expect(outcome).toMatchObject({ status: 'failed', responseCode: 401 });
    expect(JSON.stringify(outcome)).not.toContain(AUTH);
    expect(JSON.stringify(outcome)).not.toContain(SECRET);
    expect(outcome).toMatchObject({
      error: expect.stringContaining('denied Bearer [redacted] signed [redacted]'),
    });
  });

  it('retries when the receiver does not answer in time or is not there', async () => {
    const silent = await receiver(() => {});
    const slow = await sendWebhook(target(silent.url), ctx(), { ...options, timeoutMs: 200 });
    expect(slow).toMatchObject({ status: 'retry', responseCode: null });
    const gone = await receiver(answer(200));
    await new Promise((resolve) => servers.pop()?.close(resolve));
    expect(await sendWebhook(target(gone.url), ctx(), options)).toMatchObject({
      status: 'retry',
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('gives up an aborted attempt as a retry', async () => {
    const controller = new AbortController();
    const { url } = await receiver(() => controller.abort());
    expect(await sendWebhook(target(url), ctx({ signal: controller.signal }), options)).toMatchObject({
      status: 'retry',
      error: 'webhook: timed out or aborted',
    });
  });

  it('fails a URL it must not send to', async () => {
    expect(await sendWebhook(target('ftp://example.com/x'), ctx(), options)).toMatchObject({
      status: 'failed',
    });
    expect(await sendWebhook(target('http://u:p@example.com/'), ctx(), options)).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('must not carry credentials'),
    });
  });
});

describe('sendWebhook SSRF guard', () => {
  const resolver: Resolver = async (host) => {
    if (host === 'intranet.example') return [{ address: '10.1.2.3', family: 4 }];
    if (host === 'hooks.example') return [{ address: '127.0.0.1', family: 4 }];
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  const guarded: DeliveryOptions = { ...options, allowedHosts: parseAllowedHosts([]), resolver };

  it.each([
    ['http://127.0.0.1:9/', 'webhook refused: 127.0.0.1 is a loopback address'],
    ['http://10.0.0.1/', 'webhook refused: 10.0.0.1 is a private address'],
    [
      'http://169.254.169.254/latest/meta-data/',
      'webhook refused: 169.254.169.254 is a cloud metadata address',
    ],
    ['http://[::1]:9/', 'webhook refused: ::1 is a loopback address'],
    ['http://[::ffff:127.0.0.1]:9/', 'webhook refused: ::ffff:7f00:1 is a loopback address'],
    [
      'https://intranet.example/hook',
      'webhook refused: intranet.example resolves to 10.1.2.3, a private address',
    ],
  ])('refuses %s', async (url, error) => {
    expect(await sendWebhook(target(url), ctx(), guarded)).toMatchObject({
      status: 'failed',
      responseCode: null,
      error,
    });
  });

  it('refuses a real local receiver that is not allow-listed, and reaches it when it is', async () => {
    const { url, hits } = await receiver(answer(200));
    expect(await sendWebhook(target(url), ctx(), guarded)).toMatchObject({ status: 'failed' });
    expect(hits).toHaveLength(0);
    expect(await sendWebhook(target(url), ctx(), options)).toMatchObject({ status: 'delivered' });
    expect(hits).toHaveLength(1);
  });

  it('connects to the checked address of a name, resolving it once', async () => {
    const { port, hits } = await receiver(answer(200));
    let lookups = 0;
    const counting: Resolver = async (host) => {
      lookups++;
      return resolver(host);
    };
    const outcome = await sendWebhook(target(`http://hooks.example:${port}/in`), ctx(), {
      ...options,
      allowedHosts: parseAllowedHosts(['127.0.0.1/32']),
      resolver: counting,
    });
    expect(outcome).toMatchObject({ status: 'delivered' });
    expect(lookups).toBe(1);
    expect(hits[0]?.headers.host).toBe(`hooks.example:${port}`);
  });

  it('keeps a connection for the next delivery only while the check gives the address it was opened to', async () => {
    // Two receivers on one port, at 127.0.0.1 and 127.0.0.2: which one answers shows where a request went.
    const sockets = new Map<string, Set<unknown>>();
    const listenOn = async (host: string, port: number) => {
      const server = createServer((req, res) => {
        const seen = sockets.get(host) ?? new Set();
        seen.add(req.socket);
        sockets.set(host, seen);
        req.resume();
        req.on('end', () => res.end('ok'));
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(port, host, resolve));
      return (server.address() as AddressInfo).port;
    };
    const port = await listenOn('127.0.0.1', 0);
    await listenOn('127.0.0.2', port);
    let address = '127.0.0.1';
    const connections = new PinnedConnections();
    const pooled: DeliveryOptions = {
      ...options,
      allowedHosts: parseAllowedHosts(['127.0.0.0/8']),
      resolver: async () => [{ address, family: 4 }],
      connections,
    };
    const send = () => sendWebhook(target(`http://hooks.example:${port}/in`), ctx(), pooled);
    try {
      for (let i = 0; i < 4; i++) expect(await send()).toMatchObject({ status: 'delivered' });
      // Kept: fewer connections than requests (the pool may open a second one while the first is
      // being handed back).
      const kept = sockets.get('127.0.0.1')?.size ?? 0;
      expect(kept).toBeLessThan(4);
      // DNS now answers another address: checked again, and reached on a connection of its own.
      address = '127.0.0.2';
      expect(await send()).toMatchObject({ status: 'delivered' });
      expect(sockets.get('127.0.0.2')?.size).toBe(1);
      expect(sockets.get('127.0.0.1')?.size).toBe(kept);
      // An address the guard refuses is refused before any kept connection could be used.
      address = '10.1.2.3';
      expect(await send()).toMatchObject({ status: 'failed', error: expect.stringContaining('private') });
    } finally {
      await connections.close();
    }
    // Closed: later requests still go out, each on a connection of its own.
    address = '127.0.0.1';
    const kept = sockets.get('127.0.0.1')?.size ?? 0;
    expect(await send()).toMatchObject({ status: 'delivered' });
    expect(await send()).toMatchObject({ status: 'delivered' });
    expect(sockets.get('127.0.0.1')?.size).toBe(kept + 2);
  });
});

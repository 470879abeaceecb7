import { createClient as createSseClient } from 'graphql-sse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymousPrincipal } from '../../src/platform/access/principal.ts';
import { createGraphqlSse } from '../../src/platform/graphql/transports/graphql-sse.ts';
import { viewerOf } from '../../src/platform/http/client-identity.ts';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * graphql-sse's protocol at /graphql/stream is held to what /graphql holds HTTP requests to
 * (bounded bodies, JSON, CSRF on GET, document limits answered as results), and its own state is
 * bounded: open streams per client, operations per reserved stream, reservations per client, and
 * a reservation nobody opens is dropped.
 */

const TIME = 'subscription { time(intervalMs: 100) }';
const TOKEN = 'x-graphql-event-stream-token';

/** Reads an event stream until `done` holds for the text so far; then stops reading. */
async function readUntil(response: Response, done: (text: string) => boolean): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!done(text)) {
    const chunk = await reader.read();
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}

describe('graphql-sse at /graphql/stream', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        GRAPHQL_MAX_BODY_BYTES: '1024',
        WS_MAX_CONNECTIONS_PER_CLIENT: '2',
        GRAPHQL_WS_MAX_SUBSCRIPTIONS: '1',
        ALLOWED_ORIGINS: 'https://app.example',
      },
    });
  });
  afterAll(async () => t?.close());

  const stream = (init: RequestInit & { headers?: Record<string, string> } = {}) =>
    fetch(`${t.url}/graphql/stream`, init);
  const subscribe = (query: string, headers: Record<string, string> = {}) =>
    stream({
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query }),
    });

  it('reads bodies as /graphql does: bounded, and JSON only', async () => {
    const large = await subscribe(`subscription { time(intervalMs: 100) } # ${'x'.repeat(2000)}`);
    expect(large.status).toBe(413);
    expect((await large.json()).errors[0].extensions).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      limitBytes: 1024,
    });
    const form = await stream({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: TIME });
    expect(form.status).toBe(415);
  });

  it('needs a header a browser would preflight on GET', async () => {
    const url = `${t.url}/graphql/stream?query=${encodeURIComponent(TIME)}`;
    const plain = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(plain.status).toBe(403);
    expect((await plain.json()).errors[0].extensions.code).toBe('CSRF_HEADER_REQUIRED');
    const preflighted = await fetch(url, { headers: { accept: 'text/event-stream', 'x-graphql-csrf': '1' } });
    expect(preflighted.status).toBe(200);
    expect(await readUntil(preflighted, (text) => text.includes('"time"'))).toContain('event: next');
  });

  it('lets a listed origin use it across origins, and no other', async () => {
    const preflight = (origin: string) =>
      stream({
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': TOKEN,
        },
      });
    const listed = await preflight('https://app.example');
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(listed.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(
      (await preflight('https://elsewhere.example')).headers.get('access-control-allow-origin'),
    ).toBeNull();
    const reserved = await stream({ method: 'PUT', headers: { origin: 'https://app.example' } });
    expect(reserved.status).toBe(201);
    expect(reserved.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('answers document errors as results, with their codes', async () => {
    const sse = createSseClient({ url: `${t.url}/graphql/stream`, retryAttempts: 0 });
    try {
      const codes = await Promise.all(
        ['subscription {', `{ ${'a: __typename '.repeat(40)}}`].map(
          (query) =>
            new Promise((resolve, reject) => {
              sse.subscribe(
                { query },
                {
                  next: (result) =>
                    resolve((result.errors?.[0] as { extensions?: { code?: string } })?.extensions?.code),
                  error: reject,
                  complete: () => {},
                },
              );
            }),
        ),
      );
      expect(codes).toEqual(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_LIMIT_EXCEEDED']);
    } finally {
      sse.dispose();
    }
  });

  it('counts open streams against the client (WS_MAX_CONNECTIONS_PER_CLIENT)', async () => {
    const open = [await subscribe(TIME), await subscribe(TIME)];
    expect(open.map((r) => r.status)).toEqual([200, 200]);
    const third = await subscribe(TIME);
    expect(third.status).toBe(429);
    expect((await third.json()).error.code).toBe('SUBSCRIPTION_LIMIT');
    await Promise.all(open.map((r) => r.body?.cancel()));
  });

  it('bounds the operations of a reserved stream (GRAPHQL_WS_MAX_SUBSCRIPTIONS)', async () => {
    const reserved = await stream({ method: 'PUT' });
    expect(reserved.status).toBe(201);
    const token = await reserved.text();
    const events = await stream({ headers: { accept: 'text/event-stream', [TOKEN]: token } });
    expect(events.status).toBe(200);
    const add = (operationId: string) =>
      stream({
        method: 'POST',
        headers: { 'content-type': 'application/json', [TOKEN]: token },
        body: JSON.stringify({ query: TIME, extensions: { operationId } }),
      });
    expect((await add('a')).status).toBe(202);
    expect((await add('b')).status).toBe(202);
    const text = await readUntil(events, (so) => so.includes('"id":"b"') && so.includes('"id":"a"'));
    expect(text).toMatch(/"id":"b","payload":\{"errors":\[\{"message":"at most 1 operations per stream/);
    expect(text).toContain('"code":"SUBSCRIPTION_LIMIT"');
    expect(text).toMatch(/"id":"a","payload":\{"data":\{"time":/);
  });
});

describe('graphql-sse reservations', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  const viewer = (address: string) =>
    viewerOf({ clientId: `ip:${address}`, remoteAddress: address }, anonymousPrincipal(false));
  const sseFor = (reservationTimeoutMs: number) =>
    createGraphqlSse(t.app.runner, {
      maxBodyBytes: 10_000,
      maxReservationsPerClient: 2,
      maxOperationsPerStream: 5,
      allowedOrigins: [],
      reservationTimeoutMs,
    });
  const request = (sse: ReturnType<typeof sseFor>, address: string, init: RequestInit) =>
    sse.handle(new Request('http://localhost/graphql/stream', init), { viewer: viewer(address), server: {} });
  const reserve = async (sse: ReturnType<typeof sseFor>, address: string) => {
    const response = await request(sse, address, { method: 'PUT' });
    return { status: response.status, token: await response.text() };
  };
  const add = (sse: ReturnType<typeof sseFor>, address: string, token: string) =>
    request(sse, address, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [TOKEN]: token },
      body: JSON.stringify({ query: '{ __typename }', extensions: { operationId: 'one' } }),
    });

  it('answers a reserved stream only to the client that reserved it', async () => {
    const sse = sseFor(60_000);
    const { token } = await reserve(sse, '192.0.2.1');
    expect((await add(sse, '192.0.2.2', token)).status).toBe(404);
    expect((await add(sse, '192.0.2.1', token)).status).toBe(202);
  });

  it('bounds the reservations nobody opened yet, and drops them after a while', async () => {
    const sse = sseFor(200);
    const first = await reserve(sse, '192.0.2.3');
    expect([first.status, (await reserve(sse, '192.0.2.3')).status]).toEqual([201, 201]);
    const over = await reserve(sse, '192.0.2.3');
    expect(over.status).toBe(429);
    expect(JSON.parse(over.token).errors[0].extensions.code).toBe('SUBSCRIPTION_LIMIT');
    // Another client is not affected.
    expect((await reserve(sse, '192.0.2.4')).status).toBe(201);
    await expect
      .poll(async () => (await add(sse, '192.0.2.3', first.token)).status, { timeout: 5_000 })
      .toBe(404);
    expect((await reserve(sse, '192.0.2.3')).status).toBe(201);
  });
});

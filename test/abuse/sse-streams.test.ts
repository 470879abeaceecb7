import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';

/**
 * A GraphQL subscription over Server-Sent Events is an HTTP response that stays open. Before this
 * bound one client could open any number of them; now they count per client, like WebSockets.
 */
describe('subscriptions over SSE are bounded per client', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { WS_MAX_CONNECTIONS_PER_CLIENT: '2', TRUST_PROXY_HOPS: '1' } });
  });
  afterAll(async () => t?.close());

  const open = (client: string, signal: AbortSignal, accept = 'text/event-stream') =>
    t.app.fetch('/graphql', {
      method: 'POST',
      signal,
      headers: {
        'content-type': 'application/json',
        accept,
        'x-forwarded-for': client,
      },
      body: JSON.stringify({ query: 'subscription { time(intervalMs: 1000) }' }),
    });

  it('refuses a third stream from one client with 429, and frees a slot when a stream ends', async () => {
    const first = new AbortController();
    const second = new AbortController();
    const a = await open('203.0.113.7', first.signal);
    const b = await open('203.0.113.7', second.signal);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.headers.get('content-type')).toContain('text/event-stream');

    const refused = await open('203.0.113.7', new AbortController().signal);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect((await refused.json()).error).toMatchObject({ code: 'SUBSCRIPTION_LIMIT', details: { limit: 2 } });

    // Another client is not affected.
    const other = new AbortController();
    expect((await open('198.51.100.9', other.signal)).status).toBe(200);

    // The client goes away from one stream: its slot is free again.
    await a.body?.cancel();
    first.abort();
    const again = new AbortController();
    expect((await open('203.0.113.7', again.signal)).status).toBe(200);
    for (const c of [second, other, again]) c.abort();
  });

  it('counts every stream the server opens, however the client spells Accept', async () => {
    const controllers: AbortController[] = [];
    const statuses: number[] = [];
    for (const accept of ['TEXT/EVENT-STREAM', '*/*;q=0.1, text/event-stream', 'text/event-stream;q=0.5']) {
      const c = new AbortController();
      controllers.push(c);
      const response = await open('192.0.2.44', c.signal, accept);
      statuses.push(
        response.headers.get('content-type')?.startsWith('text/event-stream') ? response.status : -1,
      );
    }
    // Two streams, then the limit: whatever the header said, an open stream counts.
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    for (const c of controllers) c.abort();
  });
});

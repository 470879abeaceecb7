import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

describe('operational routes and GraphQL over HTTP (in-process)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('GET /healthz answers while the process is up', async () => {
    const response = await t.app.fetch('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', version: expect.any(String) });
  });

  it('GET /readyz is 503 until the app has started its job engine', async () => {
    const response = await t.app.fetch('/readyz');
    expect(response.status).toBe(503);
    const body = await response.json();
    expect(body).toMatchObject({ status: 'not_ready', state: 'built', checks: { database: { ok: true } } });
    expect(body.checks.jobs).toMatchObject({ ok: false, error: expect.stringContaining('created') });
  });

  it('answers a GraphQL query over POST and GET', async () => {
    const post = await graphql<{ serverInfo: { databaseMode: string; version: string } }>(
      t.app,
      '{ serverInfo { databaseMode version uptimeSeconds nodeVersion } }',
    );
    expect(post.status).toBe(200);
    expect(post.body.errors).toBeUndefined();
    expect(post.body.data?.serverInfo.databaseMode).toBe(t.database.driver.toUpperCase());
    expect(post.body.data?.serverInfo.version).toMatch(/^\d+\.\d+\.\d+/);

    // A GET operation carries the CSRF header (see test/abuse/csrf.test.ts).
    const get = await t.app.fetch(`/graphql?query=${encodeURIComponent('{ serverInfo { name } }')}`, {
      headers: { accept: 'application/json', 'x-graphql-csrf': '1' },
    });
    expect(get.status).toBe(200);
    expect(await get.json()).toEqual({ data: { serverInfo: { name: 'vigil' } } });
  });

  it("runs the chosen operation of a document with several, ignoring the others' variables", async () => {
    const response = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'query A { serverInfo { name } } query B($s: String!) { quote(symbol: $s) { id } }',
        operationName: 'A',
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: { serverInfo: { name: 'vigil' } } });
  });

  it('serves GraphiQL to a browser', async () => {
    const response = await t.app.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Vigil GraphQL');
  });

  it('reports GraphQL validation errors with a 400 and the offending field', async () => {
    const { status, body } = await graphql(t.app, '{ serverInfo { nope } }');
    expect(status).toBe(400);
    expect(body.errors?.[0]?.message).toMatch(/Cannot query field "nope" on type "ServerInfo"/);
  });

  it('streams a subscription over Server-Sent Events', async () => {
    const response = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { time(intervalMs: 100) }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while ((text.match(/event: next/g) ?? []).length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    await reader.cancel();
    const times = [...text.matchAll(/"time":"([^"]+)"/g)].map((m) => Date.parse(m[1]!));
    expect(times.length).toBeGreaterThanOrEqual(2);
    expect(times[1]!).toBeGreaterThanOrEqual(times[0]!);
  });

  it('rejects an out-of-range subscription argument naming the argument', async () => {
    const response = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: 'subscription { time(intervalMs: 5) }' }),
    });
    const text = await response.text();
    expect(text).toContain('intervalMs: must be between 100 and 60000, got 5');
    expect(text).toContain('BAD_USER_INPUT');
  });

  it('answers unknown routes with a JSON 404 and wrong methods with 405 + Allow', async () => {
    const missing = await t.app.fetch('/definitely/not/here');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });

    const wrong = await t.app.fetch('/healthz', { method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('exposes Prometheus metrics labelled by route template, never by raw path', async () => {
    await t.app.fetch('/some/random/path/123');
    await t.app.fetch('/another-random-path');
    const response = await t.app.fetch('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('vigil_process_cpu_user_seconds_total');
    expect(text).toMatch(/vigil_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(text).toMatch(
      /vigil_http_request_duration_seconds_bucket\{le="[\d.]+",method="POST",route="\/graphql"/,
    );
    expect(text).toMatch(/vigil_http_requests_total\{method="GET",route="<unmatched>",status="404"\} [3-9]/);
    expect(text).not.toContain('random');
  });
});

describe('rate limits over HTTP', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '30', TRUST_PROXY_HOPS: '1' },
    });
  });
  afterAll(async () => t?.close());

  it('answers the call over the limit with 429 and a numeric Retry-After, per client identity', async () => {
    const key = { 'x-forwarded-for': '198.51.100.1' };
    expect((await graphql(t.app, '{ serverInfo { name } }', undefined, key)).status).toBe(200);
    expect((await graphql(t.app, '{ serverInfo { name } }', undefined, key)).status).toBe(200);
    const limited = await graphql(t.app, '{ serverInfo { name } }', undefined, key);
    expect(limited.status).toBe(429);
    const retryAfter = limited.headers.get('retry-after');
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(30);
    expect(limited.body.errors?.[0]).toMatchObject({
      message: expect.stringContaining('Rate limit exceeded for serverInfo'),
      extensions: { code: 'RATE_LIMITED', retryAfterSeconds: Number(retryAfter) },
    });

    // Another address (as the trusted proxy reports it) is another client with its own budget.
    expect(
      (await graphql(t.app, '{ serverInfo { name } }', undefined, { 'x-forwarded-for': '198.51.100.2' }))
        .status,
    ).toBe(200);
  });

  it('does not count introspection against the limit', async () => {
    const key = { 'x-forwarded-for': '198.51.100.3' };
    for (let i = 0; i < 4; i++) {
      expect((await graphql(t.app, '{ __schema { queryType { name } } }', undefined, key)).status).toBe(200);
    }
  });
});

describe('CORS on /graphql: by allow-list, never a credentialed wildcard', () => {
  let t: TestApp;
  const allowed = 'https://dashboard.example';

  beforeAll(async () => {
    t = await createTestApp({ env: { ALLOWED_ORIGINS: allowed } });
  });
  afterAll(async () => t?.close());

  const preflight = (origin: string) =>
    t.app.fetch('/graphql', {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
  const post = (origin: string) =>
    t.app.fetch('/graphql', {
      method: 'POST',
      headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ serverInfo { name } }' }),
    });

  it('answers a listed origin with itself and no credentials', async () => {
    for (const response of [await preflight(allowed), await post(allowed)]) {
      expect(response.headers.get('access-control-allow-origin')).toBe(allowed);
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('gives any other origin no CORS headers, so its page cannot read the answer', async () => {
    for (const origin of ['https://evil.example', 'http://localhost:3000']) {
      for (const response of [await preflight(origin), await post(origin)]) {
        expect(response.headers.get('access-control-allow-origin')).toBeNull();
        expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      }
    }
  });
});

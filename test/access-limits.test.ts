import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  bearer,
  errorCode,
  errorScope,
  issueKey,
  Socket,
  UNKNOWN_KEY,
  xApiKey,
} from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/** A fresh key-shaped secret nobody issued. */
const invented = (n: number) => `vgl_${String(n).padStart(8, '0')}_${'B'.repeat(43)}`;

async function call(url: string, query: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Json };
}

/**
 * Limits count per validated principal; a caller that presents keys that do not verify is counted
 * by address, refused 401 and then 429, and never gets a budget of its own.
 */
describe('limits per principal, with AUTH_REQUIRED', () => {
  let t: TestApp;
  const MAX_FAILURES = 4;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        RATE_LIMIT_MAX: '3',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        AUTH_MAX_FAILURES_PER_MINUTE: String(MAX_FAILURES),
        // Test clients stand at different addresses through one trusted proxy hop.
        TRUST_PROXY_HOPS: '1',
      },
    });
  });
  afterAll(async () => t?.close());

  const from = (address: string) => ({ 'x-forwarded-for': address });

  it('gives two keys calling from one address a GraphQL budget each', async () => {
    const first = await issueKey(t.app, 'first', ['READ']);
    const second = await issueKey(t.app, 'second', ['READ']);
    const address = from('198.51.100.10');
    const ask = (key: string) => call(t.url, '{ fkDslMetrics { name } }', { ...address, ...bearer(key) });
    for (let i = 0; i < 3; i++) expect((await ask(first.secret)).status).toBe(200);
    const limited = await ask(first.secret);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(errorCode(limited.body)).toBe('RATE_LIMITED');
    // The same address, another principal: its own three calls.
    for (let i = 0; i < 3; i++) expect((await ask(second.secret)).status).toBe(200);
    expect((await ask(second.secret)).status).toBe(429);
    // And the first key's budget follows the key to another address.
    const elsewhere = await call(t.url, '{ fkDslMetrics { name } }', {
      ...from('198.51.100.11'),
      ...bearer(first.secret),
    });
    expect(elsewhere.status).toBe(429);
  });

  it('refuses invented keys with 401, then with 429 and Retry-After once the address has failed too often', async () => {
    const address = from('203.0.113.66');
    for (let i = 0; i < MAX_FAILURES; i++) {
      const refused = await call(t.url, '{ fkDslMetrics { name } }', { ...address, ...bearer(invented(i)) });
      expect(refused.status).toBe(401);
      expect(errorCode(refused.body)).toBe('UNAUTHENTICATED');
    }
    // Each new invention is one more failure of the same address, never a fresh client.
    for (const n of [100, 101]) {
      const limited = await call(t.url, '{ fkDslMetrics { name } }', { ...address, ...xApiKey(invented(n)) });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(errorCode(limited.body)).toBe('RATE_LIMITED');
    }
    // The same holds on the other surfaces, which share the count.
    const tools = await fetch(`${t.url}/mcp/tools`, { headers: { ...address, ...bearer(invented(102)) } });
    expect(tools.status).toBe(429);
    expect(Number(tools.headers.get('retry-after'))).toBeGreaterThan(0);
    const socket = new Socket(`${t.wsUrl}/ws/prices/AAPL?key=${invented(103)}`, address);
    expect(await socket.opened).toBe(false);
    // Another address is unaffected: an unknown key there is still just 401.
    const other = await call(t.url, '{ fkDslMetrics { name } }', {
      ...from('203.0.113.67'),
      ...bearer(UNKNOWN_KEY),
    });
    expect(other.status).toBe(401);
  });
});

/** With AUTH_REQUIRED off (the default): open to callers without a key, strict with keys. */
describe('access with AUTH_REQUIRED off', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '1000' } });
  });
  afterAll(async () => t?.close());

  it('gives a caller without a key every scope: it may even create keys', async () => {
    const viewer = await call(t.url, '{ viewer { kind scopes } }');
    expect(viewer.status).toBe(200);
    expect(viewer.body.data.viewer).toEqual({ kind: 'ANONYMOUS', scopes: ['READ', 'WRITE', 'ADMIN'] });
    const key = await issueKey(t.app, 'made anonymously', ['READ'], { by: null });
    expect(key.secret).toMatch(/^vgl_/);
    const submitted = await call(t.url, 'mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }');
    expect(submitted.status).toBe(200);
    expect((await fetch(`${t.url}/mcp/tools`)).status).toBe(200);
    const socket = new Socket(`${t.wsUrl}/ws/prices/AAPL`);
    expect(await socket.next('subscription_ack')).toMatchObject({ symbols: ['AAPL'] });
    socket.close();
  });

  it('still refuses a key that does not verify, rather than treating it as no key', async () => {
    const graphql = await call(t.url, '{ viewer { kind } }', bearer(UNKNOWN_KEY));
    expect(graphql.status).toBe(401);
    expect(graphql.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    expect(errorCode(graphql.body)).toBe('UNAUTHENTICATED');
    const tools = await fetch(`${t.url}/mcp/tools`, { headers: xApiKey('not-a-key') });
    expect(tools.status).toBe(401);
    const socket = new Socket(`${t.wsUrl}/ws/prices/AAPL?key=${UNKNOWN_KEY}`);
    expect((await socket.closed).code).toBe(4401);
  });

  it('holds a key to its scopes: a read key cannot mutate', async () => {
    const reader = await issueKey(t.app, 'reader', ['READ'], { by: null });
    const viewer = await call(t.url, '{ viewer { kind scopes } }', bearer(reader.secret));
    expect(viewer.body.data.viewer).toEqual({ kind: 'KEY', scopes: ['READ'] });
    const refused = await call(
      t.url,
      'mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }',
      bearer(reader.secret),
    );
    expect(refused.status).toBe(403);
    expect(errorCode(refused.body)).toBe('FORBIDDEN');
    expect(errorScope(refused.body)).toBe('write');
    const keys = await call(t.url, '{ apiKeys { id } }', bearer(reader.secret));
    expect(keys.status).toBe(403);
    expect(errorScope(keys.body)).toBe('admin');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../support/app.ts';

const QUERY = JSON.stringify({ query: '{ serverInfo { name } }' });

/** Limits are per address: invented API keys and forged X-Forwarded-For entries buy nothing. */
describe('rate-limit identity on a listening server', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        RATE_LIMIT_MAX: '2',
        RATE_LIMIT_WINDOW_SECONDS: '60',
        TRUST_PROXY: 'true',
        TRUST_PROXY_HOPS: '1',
      },
    });
  });
  afterAll(async () => t?.close());

  const call = async (headers: Record<string, string>) =>
    (
      await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: QUERY,
      })
    ).status;

  it('gives an invented API key no budget: it is refused, and the address keeps its own', async () => {
    const proxy = { 'x-forwarded-for': '198.51.100.10' };
    expect(await call(proxy)).toBe(200);
    expect(await call({ ...proxy, 'x-api-key': 'invented-1' })).toBe(401);
    expect(await call({ ...proxy, 'x-api-key': 'invented-2' })).toBe(401);
    expect(await call(proxy)).toBe(200);
    expect(await call(proxy)).toBe(429);
  });

  it('ignores X-Forwarded-For entries left of the trusted hop', async () => {
    expect(await call({ 'x-forwarded-for': '1.1.1.1, 198.51.100.20' })).toBe(200);
    expect(await call({ 'x-forwarded-for': '2.2.2.2, 198.51.100.20' })).toBe(200);
    expect(await call({ 'x-forwarded-for': '3.3.3.3, 198.51.100.20' })).toBe(429);
    // Another address the proxy vouches for is another client.
    expect(await call({ 'x-forwarded-for': '1.1.1.1, 198.51.100.21' })).toBe(200);
  });
});

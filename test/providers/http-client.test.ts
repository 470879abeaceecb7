import { afterEach, describe, expect, it } from 'vitest';
import {
  ProviderHttp,
  type ProviderHttpOptions,
} from '../../src/market-data/providers/http/provider-http.ts';
import { type FixtureServer, type Reply, startFixtureServer } from '../support/fixture-server.ts';
import { expectProviderError } from '../support/provider-contract.ts';

/** ProviderHttp against a real local server: retries, Retry-After, typed errors, breaker, rate limit. */

const servers: FixtureServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(reply: (hit: number) => Reply): Promise<FixtureServer> {
  const server = await startFixtureServer([{ path: '/r', reply: (_request, hit) => reply(hit) }]);
  servers.push(server);
  return server;
}

function client(baseUrl: string, options: Partial<ProviderHttpOptions> = {}): ProviderHttp {
  return new ProviderHttp({
    provider: 'test',
    baseUrl,
    ratePerSecond: 1_000,
    burst: 100,
    baseBackoffMs: 10,
    random: () => 0.5,
    ...options,
  });
}

const ok: Reply = { body: { ok: true } };
const signal = () => AbortSignal.timeout(5_000);

describe('ProviderHttp', () => {
  it('retries 5xx answers and returns the success that follows', async () => {
    const server = await serve((hit) => (hit < 3 ? { status: 503, body: 'busy' } : ok));
    const response = await client(server.url).get({ path: '/r', signal: signal() });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true });
    expect(response.date).toBeInstanceOf(Date);
    expect(server.requests).toHaveLength(3);
  });

  it('waits the Retry-After of a 429 before asking again', async () => {
    const server = await serve((hit) => (hit === 1 ? { status: 429, headers: { 'retry-after': '1' } } : ok));
    const started = performance.now();
    const response = await client(server.url).get({ path: '/r', signal: signal() });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(3_000);
  });

  it('fails fast with rate_limited when the upstream asks for a long pause', async () => {
    const server = await serve(() => ({
      status: 429,
      headers: { 'retry-after': '120' },
      body: { error: 'slow down' },
    }));
    const started = performance.now();
    const error = await expectProviderError(
      client(server.url).get({ path: '/r', signal: signal() }),
      'rate_limited',
    );
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error.details).toMatchObject({ status: 429, retryAfterMs: 120_000 });
    expect(error.message).toContain('slow down');
    expect(server.requests).toHaveLength(1);
  });

  it.each([401, 403])('answers %i with unauthorized and does not retry', async (status) => {
    const server = await serve(() => ({ status, body: { error: 'bad key' } }));
    const http = client(server.url, { breaker: { failureThreshold: 1 } });
    const error = await expectProviderError(http.get({ path: '/r', signal: signal() }), 'unauthorized');
    expect(error.details.status).toBe(status);
    expect(server.requests).toHaveLength(1);
    // A refused key says nothing about the upstream's health.
    expect(http.circuit.state).toBe('closed');
  });

  it('returns other 4xx answers to the adapter', async () => {
    const server = await serve(() => ({ status: 404, body: { error: 'no such thing' } }));
    const response = await client(server.url).get({ path: '/r', signal: signal() });
    expect(response.status).toBe(404);
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as upstream after its retries', async () => {
    const gone = await startFixtureServer([]);
    await gone.close();
    const error = await expectProviderError(
      client(gone.url).get({ path: '/r', signal: signal() }),
      'upstream',
    );
    expect(error.message).toContain('network error');
  });

  it("gives up with timeout when the caller's signal fires first", async () => {
    const server = await serve(() => ({ ...ok, delayMs: 1_000 }));
    const started = performance.now();
    await expectProviderError(
      client(server.url).get({ path: '/r', signal: AbortSignal.timeout(100) }),
      'timeout',
    );
    expect(performance.now() - started).toBeLessThan(900);
  });

  it("bounds a get by its own timeoutMs on top of the caller's signal", async () => {
    const server = await serve(() => ({ ...ok, delayMs: 1_000 }));
    const http = client(server.url, { timeoutMs: 100 });
    const started = performance.now();
    await expectProviderError(http.get({ path: '/r', signal: signal() }), 'timeout');
    expect(performance.now() - started).toBeLessThan(900);
    const caller = signal();
    expect(client(server.url).bound(caller)).toBe(caller);
    expect(http.bound(caller)).not.toBe(caller);
  });

  it('sends nothing for a caller that has already given up, and keeps the circuit closed', async () => {
    const server = await serve(() => ok);
    const http = client(server.url, { breaker: { failureThreshold: 1 } });
    await expectProviderError(http.get({ path: '/r', signal: AbortSignal.abort() }), 'timeout');
    expect(server.requests).toHaveLength(0);
    expect(http.circuit.state).toBe('closed');
  });

  it('opens the circuit after consecutive failures, refuses, then lets a trial through', async () => {
    let healthy = false;
    const server = await serve(() => (healthy ? ok : { status: 500, body: 'down' }));
    const http = client(server.url, { maxRetries: 0, breaker: { failureThreshold: 2, cooldownMs: 150 } });
    await expectProviderError(http.get({ path: '/r', signal: signal() }), 'upstream');
    await expectProviderError(http.get({ path: '/r', signal: signal() }), 'upstream');
    const refused = await expectProviderError(http.get({ path: '/r', signal: signal() }), 'circuit_open');
    expect(refused.details.retryAfterMs).toBeGreaterThan(0);
    expect(server.requests).toHaveLength(2);

    await new Promise((resolve) => setTimeout(resolve, 170));
    expect(http.circuit.state).toBe('half_open');
    healthy = true;
    expect((await http.get({ path: '/r', signal: signal() })).status).toBe(200);
    expect(http.circuit.state).toBe('closed');
    expect(server.requests).toHaveLength(3);
  });

  it('does not lose the half-open trial to a caller that gave up waiting for a token', async () => {
    let healthy = false;
    const server = await serve(() => (healthy ? ok : { status: 500, body: 'down' }));
    const http = client(server.url, {
      maxRetries: 0,
      ratePerSecond: 5,
      burst: 1,
      breaker: { failureThreshold: 1, cooldownMs: 20 },
    });
    await expectProviderError(http.get({ path: '/r', signal: signal() }), 'upstream');
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The next token is ~170 ms away: this caller gives up while waiting for it.
    await expectProviderError(http.get({ path: '/r', signal: AbortSignal.timeout(20) }), 'rate_limited');
    healthy = true;
    expect((await http.get({ path: '/r', signal: signal() })).status).toBe(200);
    expect(http.circuit.state).toBe('closed');
  });

  it('spaces requests by the token bucket', async () => {
    const arrivals: number[] = [];
    const server = await serve(() => {
      arrivals.push(performance.now());
      return ok;
    });
    const http = client(server.url, { ratePerSecond: 10, burst: 1 });
    await Promise.all([1, 2, 3, 4].map(() => http.get({ path: '/r', signal: signal() })));
    expect(arrivals).toHaveLength(4);
    for (let i = 1; i < arrivals.length; i++) {
      expect(arrivals[i]! - arrivals[i - 1]!).toBeGreaterThanOrEqual(80);
    }
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThanOrEqual(280);
  });

  it('sends the configured headers and query, skipping undefined values', async () => {
    const server = await serve(() => ok);
    await client(server.url, { headers: { 'x-api-key': 'k' } }).get({
      path: '/r',
      query: { a: 1, b: 'x y', c: undefined, d: false },
      signal: signal(),
    });
    expect(server.requests[0]!.query).toEqual({ a: '1', b: 'x y', d: 'false' });
    expect(server.requests[0]!.headers['x-api-key']).toBe('k');
    expect(server.requests[0]!.headers['user-agent']).toMatch(/^vigil\//);
  });
});

import { spawnSync } from 'node:child_process';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import type { CircuitState } from '../src/market-data/providers/http/circuit-breaker.ts';
import { ProviderError } from '../src/market-data/providers/provider-errors.ts';
import { defineJob } from '../src/platform/jobs/job.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { createFakeProvider, type FakeProvider } from './support/fake-provider.ts';
import { lintMetrics, sampleValue } from './support/metric-lint.ts';

const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
/** CI installs promtool and sets this, so the check there is promtool's own. */
const requirePromtool = process.env.VIGIL_REQUIRE_PROMTOOL === '1';

describe('/metrics', () => {
  let t: TestApp;
  let provider: FakeProvider;
  let circuit: CircuitState = 'closed';
  const scrape = async () => (await fetch(`${t.url}/metrics`)).text();
  const value = async (name: string, labels: Record<string, string> = {}) =>
    sampleValue(await scrape(), name, labels) ?? 0;
  const post = async (query: string) => {
    const response = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    return (await response.json()) as { data?: unknown; errors?: Array<{ extensions?: { code?: string } }> };
  };

  beforeAll(async () => {
    provider = Object.assign(createFakeProvider('fakehttp', { assetClasses: ['equity'] }), {
      circuit: () => circuit,
    });
    provider.prices.set('AAPL', 190);
    provider.prices.set('MSFT', 410);
    t = await createTestApp({
      listen: true,
      env: { RATE_LIMIT_MAX: '5', RATE_LIMIT_WINDOW_SECONDS: '60' },
      overrides: { providers: [provider] },
    });
  });
  afterAll(async () => t?.close());

  it('counts operations by type and root field, never by operation name', async () => {
    const field = { type: 'query', field: 'serverInfo' };
    const before = await value('vigil_graphql_operations_total', field);
    await post('query SomeClientName { serverInfo { version } a: serverInfo { name } }');
    expect(await value('vigil_graphql_operations_total', field)).toBe(before + 1);
    expect(await scrape()).not.toContain('SomeClientName');
  });

  it('counts errors by code: validation, parse (repeats too), and domain errors', async () => {
    const code = (c: string) => value('vigil_graphql_errors_total', { code: c });
    const invalid = await code('GRAPHQL_VALIDATION_FAILED');
    await post('{ noSuchField }');
    expect(await code('GRAPHQL_VALIDATION_FAILED')).toBe(invalid + 1);

    // The second time the parse cache answers: still counted.
    const unparsable = await code('GRAPHQL_PARSE_FAILED');
    await post('{ serverInfo {');
    await post('{ serverInfo {');
    expect(await code('GRAPHQL_PARSE_FAILED')).toBe(unparsable + 2);

    const answer = await post('{ quote(symbol: "NOPE") { quote { price } } }');
    const domain = answer.errors?.[0]?.extensions?.code;
    expect(domain).toMatch(/^[A-Z_]+$/);
    expect(await code(domain!)).toBeGreaterThanOrEqual(1);
  });

  it('counts requests refused before GraphQL runs: CSRF, media type, persisted queries', async () => {
    const code = (c: string) => value('vigil_graphql_errors_total', { code: c });
    const [csrf, media, missing] = await Promise.all([
      code('CSRF_HEADER_REQUIRED'),
      code('UNSUPPORTED_MEDIA_TYPE'),
      code('PERSISTED_QUERY_NOT_FOUND'),
    ]);
    await fetch(`${t.url}/graphql?query=${encodeURIComponent('{ serverInfo { name } }')}`);
    await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    const extensions = JSON.stringify({ persistedQuery: { version: 1, sha256Hash: 'a'.repeat(64) } });
    await fetch(`${t.url}/graphql?extensions=${encodeURIComponent(extensions)}`, {
      headers: { 'x-graphql-csrf': '1' },
    });
    expect(await code('CSRF_HEADER_REQUIRED')).toBe(csrf + 1);
    expect(await code('UNSUPPORTED_MEDIA_TYPE')).toBe(media + 1);
    expect(await code('PERSISTED_QUERY_NOT_FOUND')).toBe(missing + 1);
  });

  it('counts rate-limit rejections by surface, and their RATE_LIMITED errors', async () => {
    const rejected = await value('vigil_rate_limit_rejections_total', { surface: 'graphql' });
    const errors = await value('vigil_graphql_errors_total', { code: 'RATE_LIMITED' });
    for (let i = 0; i < 7; i++) await post('{ marketDataProviders { id } }');
    expect(await value('vigil_rate_limit_rejections_total', { surface: 'graphql' })).toBe(rejected + 2);
    expect(await value('vigil_graphql_errors_total', { code: 'RATE_LIMITED' })).toBe(errors + 2);
  });

  it('counts provider calls by outcome with their latency, and cache hits and misses', async () => {
    const ok = { provider: 'fakehttp', outcome: 'ok' };
    const calls = await value('vigil_market_data_provider_calls_total', ok);
    const misses = await value('vigil_market_data_cache_requests_total', { kind: 'quote', result: 'miss' });
    const hits = await value('vigil_market_data_cache_requests_total', { kind: 'quote', result: 'hit' });
    await post('{ quote(symbol: "AAPL") { quote { price } } }');
    await post('{ quote(symbol: "AAPL") { quote { price } } }');
    const text = await scrape();
    expect(sampleValue(text, 'vigil_market_data_provider_calls_total', ok)).toBe(calls + 1);
    expect(
      sampleValue(text, 'vigil_market_data_provider_call_duration_seconds_count', { provider: 'fakehttp' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(text, 'vigil_market_data_cache_requests_total', { kind: 'quote', result: 'miss' }),
    ).toBe(misses + 1);
    expect(
      sampleValue(text, 'vigil_market_data_cache_requests_total', { kind: 'quote', result: 'hit' }),
    ).toBe(hits + 1);

    provider.fail(new ProviderError('fakehttp', 'upstream', 'upstream error (502)'));
    try {
      await post('{ quote(symbol: "MSFT") { quote { price } } }');
    } finally {
      provider.fail(undefined);
    }
    expect(
      await value('vigil_market_data_provider_calls_total', { provider: 'fakehttp', outcome: 'upstream' }),
    ).toBe(1);
  });

  it("reports each provider's circuit state", async () => {
    const state = (s: string) =>
      value('vigil_market_data_provider_circuit_state', { provider: 'fakehttp', state: s });
    expect([await state('closed'), await state('open')]).toEqual([1, 0]);
    circuit = 'open';
    expect([await state('closed'), await state('half_open'), await state('open')]).toEqual([0, 0, 1]);
    circuit = 'closed';
  });

  it('reports active subscriptions by transport and the price hub feeds', async () => {
    const active = (transport: string) => value('vigil_active_subscriptions', { transport });
    const ws = wsClient(`${t.wsUrl}/graphql`);
    const sse = await openSse(`${t.url}/graphql`, 'subscription { time(intervalMs: 100) }');
    const prices = await openSocket(`${t.wsUrl}/ws/prices/AAPL?interval_ms=100`);
    try {
      await firstResult(ws, 'subscription { time(intervalMs: 100) }');
      const text = await scrape();
      expect(sampleValue(text, 'vigil_active_subscriptions', { transport: 'graphql-ws' })).toBe(1);
      expect(sampleValue(text, 'vigil_active_subscriptions', { transport: 'sse' })).toBe(1);
      expect(sampleValue(text, 'vigil_active_subscriptions', { transport: 'websocket' })).toBe(1);
      expect(sampleValue(text, 'vigil_active_subscriptions', { transport: 'mcp' })).toBe(0);
      expect(sampleValue(text, 'vigil_price_hub_feeds')).toBe(1);
    } finally {
      await ws.dispose();
      await sse.cancel();
      prices.close();
    }
    await expect.poll(() => active('sse')).toBe(0);
    await expect.poll(() => active('graphql-ws')).toBe(0);
    await expect.poll(() => active('websocket')).toBe(0);
    await expect.poll(() => value('vigil_price_hub_feeds')).toBe(0);
  });

  it('reports the jobs waiting per queue', async () => {
    const idle = defineJob({ name: 'test.metrics-idle', schema: z.object({ n: z.number() }) });
    await t.app.deps.jobs.send(idle, { n: 1 });
    await t.app.deps.jobs.send(idle, { n: 2 });
    expect(await value('vigil_job_queue_depth', { queue: 'test.metrics-idle' })).toBe(2);
  });

  it("passes promtool's checks (its rules here; promtool itself when installed)", async () => {
    const text = await scrape();
    expect(lintMetrics(text)).toEqual([]);
    if (requirePromtool) expect(hasPromtool, 'promtool is not installed (VIGIL_REQUIRE_PROMTOOL)').toBe(true);
    if (hasPromtool) {
      const checked = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect(`${checked.stdout}${checked.stderr}`.trim()).toBe('');
      expect(checked.status).toBe(0);
    }
  });
});

describe('the metric lint', () => {
  it('reports what promtool refuses', () => {
    const text = [
      '# HELP app_requests Requests.',
      '# TYPE app_requests counter',
      'app_requests 1',
      '# TYPE app_open_total gauge',
      'app_open_total 1',
      '# HELP app_latency_ms Latency.',
      '# TYPE app_latency_ms histogram',
      'app_latency_ms_bucket{le="+Inf"} 1',
      'app_latency_ms_sum 1',
      'app_latency_ms_count 1',
      '# HELP app_queueDepth Depth.',
      '# TYPE app_queueDepth gauge',
      'app_queueDepth{queueName="a"} 1',
      '# HELP app_size_kilobytes Size.',
      '# TYPE app_size_kilobytes gauge',
      'app_size_kilobytes 1',
    ].join('\n');
    expect(lintMetrics(text)).toEqual([
      'app_requests: counter metrics should have "_total" suffix',
      'app_open_total: no help text',
      'app_open_total: non-counter metrics should not have "_total" suffix',
      'app_latency_ms: metric names should not contain abbreviated units',
      "app_queueDepth: metric names should be written in 'snake_case' not 'camelCase'",
      "app_queueDepth: label names should be written in 'snake_case' not 'camelCase'",
      'app_size_kilobytes: use base unit "bytes" instead of "kilobytes"',
    ]);
  });
});

function wsClient(url: string): Client {
  return createClient({ url, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
}

/** Subscribes and resolves at the first result; the subscription stays open. */
function firstResult(client: Client, query: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    client.subscribe({ query }, { next: resolve, error: reject, complete: () => {} });
  });
}

/** A subscription over SSE, open once its first event has arrived. */
async function openSse(url: string, query: string): Promise<ReadableStreamDefaultReader<Uint8Array>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query }),
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('event: next')) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the stream ended before its first event: ${text}`);
    text += decoder.decode(chunk.value, { stream: true });
  }
  return reader;
}

/** A plain WebSocket, open once its first message has arrived. */
async function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once('message', resolve);
    socket.once('error', reject);
  });
  return socket;
}

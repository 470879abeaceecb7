import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADMIN_KEY,
  bearer,
  type Closed,
  firstResult,
  graphqlWs,
  issueKey,
  revokeKey,
  Socket,
  xApiKey,
} from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { serverUrl } from './support/databases.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const ENV = {
  AUTH_REQUIRED: 'true',
  ADMIN_API_KEY: ADMIN_KEY,
  AUTH_MAX_FAILURES_PER_MINUTE: '100000',
  RATE_LIMIT_MAX: '1000',
};

const VIEWER = JSON.stringify({ query: '{ viewer { id } }' });

function viewerStatus(url: string, key: string): Promise<number> {
  return fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(key) },
    body: VIEWER,
  }).then(async (response) => {
    await response.body?.cancel();
    return response.status;
  });
}

/** How long `closed` takes to settle from now, failing past `limitMs`. */
async function closedWithin(closed: Promise<Closed>, limitMs: number): Promise<Closed & { ms: number }> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    closed,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`still open after ${limitMs} ms`)), limitMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return { ...result, ms: Date.now() - started };
}

describe('revoking a key', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { ...ENV, SIMULATED_TICK_MS: '100' } });
  });
  afterAll(async () => t?.close());

  it('refuses the very next request with that key, on every surface', async () => {
    const key = await issueKey(t.app, 'soon revoked', ['WRITE']);
    expect(await viewerStatus(t.url, key.secret)).toBe(200);
    expect((await fetch(`${t.url}/mcp/tools`, { headers: xApiKey(key.secret) })).status).toBe(200);
    await revokeKey(t.app, key.id);
    expect(await viewerStatus(t.url, key.secret)).toBe(401);
    const tools = await fetch(`${t.url}/mcp/tools`, { headers: xApiKey(key.secret) });
    expect(tools.status).toBe(401);
    expect(((await tools.json()) as Json).error.message).toContain('revoked');
    // Only that key is refused: a key issued after the revocation works.
    const other = await issueKey(t.app, 'still good', ['READ']);
    expect(await viewerStatus(t.url, other.secret)).toBe(200);
  });

  it('closes its open graphql-ws, /ws/prices and SSE connections within a second, and its MCP session', async () => {
    const key = await issueKey(t.app, 'streaming', ['READ']);
    const bystander = await issueKey(t.app, 'bystander', ['READ']);

    const gql = graphqlWs(`${t.wsUrl}/graphql`, { connectionParams: { apiKey: key.secret } });
    const ticking = gql.client.subscribe(
      { query: 'subscription { time(intervalMs: 100) }' },
      { next: () => {}, error: () => {}, complete: () => {} },
    );
    expect(await firstResult(gql.client, '{ viewer { id } }')).toMatchObject({ kind: 'result' });

    const prices = new Socket(`${t.wsUrl}/ws/prices/AAPL`, bearer(key.secret));
    await prices.next('subscription_ack');
    const other = new Socket(`${t.wsUrl}/ws/prices/AAPL?key=${bystander.secret}`);
    await other.next('subscription_ack');

    const sse = await fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...bearer(key.secret) },
      body: JSON.stringify({ query: 'subscription { time(intervalMs: 100) }' }),
    });
    expect(sse.status).toBe(200);
    const reader = sse.body!.getReader();
    await reader.read();
    const sseEnded = (async () => {
      for (;;) if ((await reader.read()).done) return { code: 0, reason: 'ended' };
    })();

    const mcp = new Client({ name: 'vigil-revocation-test', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: bearer(key.secret) },
      }),
    );
    expect((await mcp.listTools()).tools.length).toBeGreaterThan(0);
    const notifications = await mcpNotificationStream(key.secret);

    try {
      await revokeKey(t.app, key.id);
      const [gqlClosed, pricesClosed, streamEnded, sessionEnded] = await Promise.all([
        closedWithin(gql.closed, 1_000),
        closedWithin(prices.closed, 1_000),
        closedWithin(sseEnded, 1_000),
        closedWithin(notifications.ended, 1_000),
      ]);
      expect(gqlClosed.code).toBe(4401);
      expect(gqlClosed.reason).toMatch(/revoked/);
      expect(pricesClosed.code).toBe(4401);
      expect(streamEnded.reason).toBe('ended');
      expect(sessionEnded).toMatchObject({ code: 200, reason: 'ended' });
      await expect(mcp.listTools()).rejects.toMatchObject({ code: 401 });
      // Another key's connection is left alone.
      expect(other.socket.readyState).toBe(other.socket.OPEN);
    } finally {
      ticking();
      await gql.client.dispose();
      other.close();
      await mcp.close();
    }
  });

  /**
   * A raw MCP session of `key` with its notification stream (GET) requested; resolves with the
   * stream's status once the server ends it. The server sends a stream's headers with its first
   * bytes, so the GET is not awaited here: a ping on the session after it makes sure the session
   * is alive, and a status other than 200 would show the GET was refused instead of ended.
   */
  async function mcpNotificationStream(key: string): Promise<{ ended: Promise<Closed> }> {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...bearer(key),
    };
    const post = (body: unknown, session?: string) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, ...(session ? { 'mcp-session-id': session } : {}) },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    expect(init.status).toBe(200);
    await init.body?.cancel();
    const session = init.headers.get('mcp-session-id')!;
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    const ended = fetch(`${t.url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
        ...bearer(key),
      },
    }).then(async (stream) => {
      const reader = stream.body!.getReader();
      while (!(await reader.read()).done) {}
      return { code: stream.status, reason: 'ended' };
    });
    const ping = await post({ jsonrpc: '2.0', id: 2, method: 'ping' }, session);
    expect(ping.status).toBe(200);
    await ping.body?.cancel();
    // Wrapped: an async function would otherwise wait for the stream to end before returning.
    return { ended };
  }
});

describe.skipIf(!serverUrl)('revoking a key seen by a second instance on the same database', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await createTestApp({ listen: true, driver: 'postgres', env: ENV });
    second = await createTestApp({ listen: true, database: first.database, env: ENV });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('is refused there within a second, although that instance had verified (and cached) it', async () => {
    const key = await issueKey(first.app, 'shared', ['READ']);
    // The second instance verifies the key once, so it holds it in its cache.
    expect(await viewerStatus(second.url, key.secret)).toBe(200);
    expect(await viewerStatus(second.url, key.secret)).toBe(200);
    const socket = new Socket(`${second.wsUrl}/ws/prices/AAPL`, xApiKey(key.secret));
    await socket.next('subscription_ack');

    const revoked = Date.now();
    await revokeKey(first.app, key.id);
    await vi.waitFor(async () => expect(await viewerStatus(second.url, key.secret)).toBe(401), {
      timeout: 1_000,
      interval: 20,
    });
    expect(Date.now() - revoked).toBeLessThan(1_000);
    expect((await closedWithin(socket.closed, 1_000)).code).toBe(4401);
  });
});

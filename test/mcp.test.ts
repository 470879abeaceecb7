import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createServerAdapter } from '@whatwg-node/server';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { priceResource } from '../src/market-data/market-data.mcp.ts';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import type { Viewer } from '../src/platform/http/client-identity.ts';
import {
  createMcpHttpEndpoint,
  type McpHttpEndpoint,
  type McpHttpOptions,
} from '../src/platform/mcp/mcp-http.ts';
import type { McpResourceTemplate } from '../src/platform/mcp/mcp-resources.ts';
import { createLogger, type Logger } from '../src/platform/observability/logger.ts';
import { compileTools, type ToolDefinition } from '../src/platform/operations/tool.ts';
import { buildSchema } from '../src/schema.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { spawnStdioServer } from './support/mcp-stdio.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/** A tool of our own over the `quote` field, so these tests do not depend on the domain's tools. */
const quoteTool: ToolDefinition<{ quote: { symbol: string; quote: { price: number; currency: string } } }> = {
  name: 'test-quote',
  title: 'Test quote',
  description: 'The latest price of one symbol.',
  document:
    'query TestQuote($symbol: String!) { quote(symbol: $symbol) { symbol quote { price currency } } }',
  arguments: { symbol: { description: 'Ticker: AAPL, BTC/USDT.' } },
  result: ({ quote }) => ({ symbol: quote.symbol, price: quote.quote.price, currency: quote.quote.currency }),
  outputSchema: z.object({ symbol: z.string(), price: z.number(), currency: z.string() }),
  annotations: { readOnlyHint: true },
};

/** Records notifications/resources/updated and waits for them (no sleeps). */
class Updates {
  readonly seen: string[] = [];
  #waiters: Array<() => void> = [];

  constructor(client: Client) {
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      this.seen.push(n.params.uri);
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  count(uri: string): number {
    return this.seen.filter((u) => u === uri).length;
  }

  async until(uri: string, n: number, timeoutMs = 8_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count(uri) < n) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`${this.count(uri)} of ${n} updates of ${uri}; saw ${this.seen.join(' ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** The JSON of the first content of a resources/read result. */
function contentJson(result: { contents: ReadonlyArray<unknown> }): Json {
  return JSON.parse((result.contents[0] as { text: string }).text);
}

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('expected a JSON-RPC error');
}

/** A raw HTTP request, so Host can be anything (fetch does not let a caller set it). */
function rawPost(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => {
          const json = String(res.headers['content-type']).startsWith('application/json');
          resolve({ status: res.statusCode ?? 0, body: json ? JSON.parse(text) : text });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });

/** The origin the test app lists in ALLOWED_ORIGINS (browsers on it may call /mcp). */
const APP_ORIGIN = 'https://app.example';

/** One client per X-API-Key value; requests without a key are one anonymous client. */
function byApiKey(request: Request): Viewer {
  const key = request.headers.get('x-api-key');
  return testViewer(key ? `key:${key}` : 'ip:test');
}

/** An anonymous caller (every scope, as with AUTH_REQUIRED off) counted under `clientId`. */
function testViewer(clientId: string): Viewer {
  return { clientId, addressId: clientId, remoteAddress: undefined, principal: anonymousPrincipal(false) };
}

/** What the route layer hands the endpoint when a test calls it directly. */
const ROUTE_CONTEXT = { params: {}, template: '/mcp', server: {}, viewer: testViewer('ip:test') };

/** Reads a stream until `done` says the text so far is enough, or the stream ends. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
): Promise<{ text: string; ended: boolean }> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) return { text, ended: true };
    text += decoder.decode(chunk.value, { stream: true });
    if (done(text)) return { text, ended: false };
  }
}

describe('MCP', () => {
  let t: TestApp;
  const clients: Array<{ client: Client; transport: StreamableHTTPClientTransport }> = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: { SIMULATED_TICK_MS: '100', ALLOWED_ORIGINS: APP_ORIGIN },
    });
  });
  afterEach(async () => {
    for (const { client, transport } of clients.splice(0)) {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  async function httpClient(
    url = `${t.url}/mcp`,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
    const client = new Client({ name: 'vigil-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(url));
    await client.connect(transport);
    clients.push({ client, transport });
    return { client, transport };
  }

  describe('Streamable HTTP at /mcp', () => {
    it('initializes, lists the tools with their schemas, and declares resource subscriptions', async () => {
      const { client, transport } = await httpClient();
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(client.getServerVersion()).toMatchObject({ name: 'vigil' });
      expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: { subscribe: true } });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(t.app.tools.map((tool) => tool.name).sort());
      for (const tool of tools) {
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.description).toBeTruthy();
      }
      const search = tools.find((tool) => tool.name === 'search-by-symbol');
      if (search) {
        expect(search.inputSchema.required).toEqual(['symbol']);
        expect((search.inputSchema.properties as Json).market.default).toBe('US');
        expect(search.outputSchema?.type).toBe('object');
        expect(search.annotations).toMatchObject({ readOnlyHint: true });
      }
    });

    it('calls a tool: structuredContent is the JSON of the text', async () => {
      const { client } = await httpClient();
      const name = t.app.tools.some((tool) => tool.name === 'search-by-symbol')
        ? 'search-by-symbol'
        : undefined;
      if (!name) return;
      const result: Json = await client.callTool({ name, arguments: { symbol: 'AAPL', depth: 'quick' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
      expect(result.structuredContent).toMatchObject({ symbol: 'AAPL' });
    });

    it('answers a failing tool with isError and a message; bad calls with JSON-RPC errors', async () => {
      const { client } = await httpClient();
      if (t.app.tools.some((tool) => tool.name === 'search-by-symbol')) {
        const failed: Json = await client.callTool({
          name: 'search-by-symbol',
          arguments: { symbol: 'ZZZZQQ', depth: 'quick' },
        });
        expect(failed.isError).toBe(true);
        expect(failed.structuredContent).toBeUndefined();
        expect(failed.content[0].text).toMatch(/^UNKNOWN_SYMBOL: /);

        const invalid = await rejection(
          client.callTool({ name: 'search-by-symbol', arguments: { depth: 'x' } }),
        );
        expect(invalid.code).toBe(-32602);
        expect(invalid.message).toMatch(/symbol/);
        expect(invalid.message).toMatch(/depth/);
      }
      const unknown = await rejection(client.callTool({ name: 'no-such-tool', arguments: {} }));
      expect(unknown.code).toBe(-32602);
      expect(unknown.message).toMatch(/unknown tool "no-such-tool"/);
    });

    it('lists the price template and reads vigil://prices/AAPL', async () => {
      const { client } = await httpClient();
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates).toContainEqual(
        expect.objectContaining({ uriTemplate: 'vigil://prices/{symbol}', mimeType: 'application/json' }),
      );
      const read = await client.readResource({ uri: 'vigil://prices/AAPL' });
      const content = read.contents[0] as { uri: string; mimeType: string; text: string };
      expect(content).toMatchObject({ uri: 'vigil://prices/AAPL', mimeType: 'application/json' });
      const price = JSON.parse(content.text);
      expect(price).toMatchObject({
        symbol: 'AAPL',
        provider: 'simulated',
        simulated: true,
        currency: 'USD',
      });
      expect(price.price).toBeGreaterThan(0);
      expect(Object.keys(price).sort()).toEqual(
        [
          'as_of',
          'change',
          'change_percent',
          'currency',
          'price',
          'provider',
          'simulated',
          'symbol',
          'volume',
        ].sort(),
      );
      const coin = contentJson(await client.readResource({ uri: 'vigil://prices/BTC%2FUSDT' }));
      expect(coin).toMatchObject({ symbol: 'BTC/USDT', simulated: true });

      const missing = await rejection(client.readResource({ uri: 'vigil://prices/ZZZZQQ' }));
      expect(missing.code).toBe(-32002);
      expect(missing.message).toMatch(/unknown symbol/);
      const noTemplate = await rejection(client.readResource({ uri: 'vigil://nothing/here' }));
      expect(noTemplate.code).toBe(-32002);
      const badSymbol = await rejection(client.readResource({ uri: 'vigil://prices/%24%24' }));
      expect(badSymbol.code).toBe(-32602);
    });

    it('notifies a subscriber of price changes until it unsubscribes, and frees the hub feed', async () => {
      const { client } = await httpClient();
      const updates = new Updates(client);
      const hub = () => t.app.deps.priceHub.stats().subscribers;
      const before = hub();
      const btc = 'vigil://prices/BTC%2FUSDT';
      const eth = 'vigil://prices/ETH%2FUSDT';

      await client.subscribeResource({ uri: btc });
      await client.subscribeResource({ uri: btc }); // idempotent
      expect(hub()).toBe(before + 1);
      await updates.until(btc, 2);
      const read = contentJson(await client.readResource({ uri: btc }));
      expect(read.symbol).toBe('BTC/USDT');

      await client.unsubscribeResource({ uri: btc });
      expect(hub()).toBe(before);
      const after = updates.count(btc);
      // While another subscription delivers two updates, the ended one delivers none.
      await client.subscribeResource({ uri: eth });
      await updates.until(eth, 2);
      expect(updates.count(btc)).toBe(after);
      await client.unsubscribeResource({ uri: eth });
      expect(hub()).toBe(before);

      const unknown = await rejection(client.subscribeResource({ uri: 'vigil://prices/ZZZZQQ' }));
      expect(unknown.code).toBe(-32002);
      expect(hub()).toBe(before);
    });

    it('ends a session on DELETE, with its subscriptions', async () => {
      const { client, transport } = await httpClient();
      const before = t.app.deps.priceHub.stats().subscribers;
      await client.subscribeResource({ uri: 'vigil://prices/AAPL' });
      expect(t.app.deps.priceHub.stats().subscribers).toBe(before + 1);
      const id = transport.sessionId!;
      await transport.terminateSession();
      expect(t.app.deps.priceHub.stats().subscribers).toBe(before);
      const gone = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': id,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      });
      expect(gone.status).toBe(404);
    });

    it('refuses foreign Host and Origin headers with 403 (DNS-rebinding protection)', async () => {
      const evilHost = await rawPost(`${t.url}/mcp`, { host: 'evil.example' }, INITIALIZE);
      expect(evilHost.status).toBe(403);
      expect(evilHost.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 }, id: null });
      const evilOrigin = await rawPost(`${t.url}/mcp`, { origin: 'https://evil.example' }, INITIALIZE);
      expect(evilOrigin.status).toBe(403);
      const port = new URL(t.url).port;
      const local = await rawPost(
        `${t.url}/mcp`,
        { host: `localhost:${port}`, origin: `http://localhost:${port}` },
        INITIALIZE,
      );
      expect(local.status).toBe(200);
      expect(local.body).toMatch(/"serverInfo"/);
    });

    it('answers CORS preflights for listed origins only, and lets their pages read the session id', async () => {
      const preflight = (origin: string) =>
        t.app.fetch('/mcp', {
          method: 'OPTIONS',
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type, mcp-session-id, x-api-key',
          },
        });
      const allowed = await preflight(APP_ORIGIN);
      expect(allowed.status).toBe(204);
      expect(Object.fromEntries(allowed.headers)).toMatchObject({
        'access-control-allow-origin': APP_ORIGIN,
        'access-control-allow-methods': 'GET, POST, DELETE',
        'access-control-allow-headers':
          'content-type, mcp-session-id, mcp-protocol-version, last-event-id, authorization, x-api-key',
        'access-control-expose-headers': 'mcp-session-id',
        vary: 'Origin',
      });
      expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();

      // Not listed: neither another site nor (listing is explicit) a page on this machine.
      for (const origin of ['https://evil.example', 'http://localhost:3000']) {
        const refused = await preflight(origin);
        expect(refused.status).toBe(403);
        expect(refused.headers.get('access-control-allow-origin')).toBeNull();
        await refused.body?.cancel();
      }

      const opened = await t.app.fetch('/mcp', {
        method: 'POST',
        headers: {
          origin: APP_ORIGIN,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: INITIALIZE,
      });
      expect(opened.status).toBe(200);
      expect(opened.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(opened.headers.get('access-control-expose-headers')).toBe('mcp-session-id');
      expect(opened.headers.get('vary')).toMatch(/Origin/);
      const id = opened.headers.get('mcp-session-id');
      expect(id).toBeTruthy();
      await opened.text();
      const ended = await t.app.fetch('/mcp', {
        method: 'DELETE',
        headers: { origin: APP_ORIGIN, 'mcp-session-id': id! },
      });
      expect(ended.status).toBe(200);
    });

    it('refuses requests that are not a session or an initialize', async () => {
      const noSession = await rawPost(
        `${t.url}/mcp`,
        {},
        JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      );
      expect(noSession.status).toBe(400);
      const get = await fetch(`${t.url}/mcp`, { headers: { accept: 'text/event-stream' } });
      expect(get.status).toBe(400);
      await get.body?.cancel();
    });
  });

  describe('the endpoint itself (own tools, small limits, in-process)', () => {
    let endpoint: McpHttpEndpoint;
    let now = Date.now();

    beforeAll(() => {
      const tools = compileTools(buildSchema(), [quoteTool as ToolDefinition<never>], t.app.runner);
      endpoint = createMcpHttpEndpoint({
        server: {
          info: { name: 'vigil', version: 'test' },
          tools,
          resources: [priceResource(t.app.deps)],
          runner: t.app.runner,
          errors: t.app.errors,
          logger: createLogger('silent'),
          maxSubscriptionsPerSession: 2,
        },
        logger: createLogger('silent'),
        maxSessions: 2,
        idleMs: 60_000,
        loopbackOnly: true,
        identify: (request) => testViewer(request.headers.get('x-api-key') ? 'key:test' : 'ip:test'),
        now: () => now,
      });
    });
    afterAll(async () => {
      await endpoint?.close();
    });

    async function inProcess(headers: Record<string, string> = {}) {
      const client = new Client({ name: 'in-process', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
        requestInit: { headers },
        fetch: async (url, init) => endpoint.handle(new Request(url, init), ROUTE_CONTEXT),
      });
      await client.connect(transport);
      clients.push({ client, transport });
      return { client, transport };
    }

    it('serves a tool of its own: result, tool error, invalid arguments', async () => {
      const { client } = await inProcess({ 'x-api-key': 'secret' });
      const { tools } = await client.listTools();
      expect(tools).toEqual([
        expect.objectContaining({
          name: 'test-quote',
          title: 'Test quote',
          inputSchema: expect.objectContaining({
            type: 'object',
            required: ['symbol'],
            additionalProperties: false,
          }),
          outputSchema: expect.objectContaining({ type: 'object' }),
          annotations: { title: 'Test quote', readOnlyHint: true },
        }),
      ]);
      const ok: Json = await client.callTool({ name: 'test-quote', arguments: { symbol: 'msft' } });
      expect(ok.structuredContent).toMatchObject({ symbol: 'MSFT', currency: 'USD' });
      expect(ok.structuredContent).toEqual(JSON.parse(ok.content[0].text));

      const failed: Json = await client.callTool({ name: 'test-quote', arguments: { symbol: 'ZZZZQQ' } });
      expect(failed).toMatchObject({ isError: true, content: [{ type: 'text' }] });
      expect(failed.content[0].text).toMatch(/^UNKNOWN_SYMBOL: unknown symbol ZZZZQQ/);

      const missing = await rejection(client.callTool({ name: 'test-quote', arguments: {} }));
      expect(missing.code).toBe(-32602);
      expect(missing.message).toMatch(/symbol/);
      expect(missing.data).toMatchObject({ code: 'INVALID_ARGUMENTS' });
      const extra = await rejection(
        client.callTool({ name: 'test-quote', arguments: { symbol: 'A', nope: 1 } }),
      );
      expect(extra.code).toBe(-32602);
      expect(extra.message).toMatch(/nope/);
    });

    it('bounds subscriptions per session', async () => {
      const { client, transport } = await inProcess();
      const before = t.app.deps.priceHub.stats().subscribers;
      await client.subscribeResource({ uri: 'vigil://prices/AAPL' });
      await client.subscribeResource({ uri: 'vigil://prices/MSFT' });
      const over = await rejection(client.subscribeResource({ uri: 'vigil://prices/NVDA' }));
      expect(over.code).toBe(-32600);
      expect(over.message).toMatch(/at most 2 resource subscriptions per session/);
      expect(t.app.deps.priceHub.stats().subscribers).toBe(before + 2);
      await transport.terminateSession();
      expect(t.app.deps.priceHub.stats().subscribers).toBe(before);
    });

    /** An endpoint without tools on the test clock; `overrides` set its limits. */
    function bounded(overrides: Partial<McpHttpOptions> = {}, logger: Logger = createLogger('silent')) {
      return createMcpHttpEndpoint({
        server: {
          info: { name: 'vigil', version: 'test' },
          tools: [],
          resources: [],
          runner: t.app.runner,
          errors: t.app.errors,
          logger,
        },
        logger,
        maxSessions: 2,
        idleMs: 60_000,
        loopbackOnly: true,
        identify: byApiKey,
        now: () => now,
        ...overrides,
      });
    }

    const context = ROUTE_CONTEXT;

    /** One raw request; `key` is the client's X-API-Key. The body is left unread. */
    function send(
      target: McpHttpEndpoint,
      options: { method?: string; body?: string; session?: string; key?: string; signal?: AbortSignal },
    ): Promise<Response> {
      const { method = 'POST', body, session, key, signal } = options;
      return Promise.resolve(
        target.handle(
          new Request('http://localhost/mcp', {
            method,
            headers: {
              accept: method === 'GET' ? 'text/event-stream' : 'application/json, text/event-stream',
              ...(body ? { 'content-type': 'application/json' } : {}),
              ...(session ? { 'mcp-session-id': session } : {}),
              ...(key ? { 'x-api-key': key } : {}),
            },
            ...(body ? { body } : {}),
            ...(signal ? { signal } : {}),
          }),
          context,
        ),
      );
    }

    /** A POST whose answer is read to its end. */
    async function post(target: McpHttpEndpoint, body: string, session?: string, key?: string) {
      const response = await send(target, { body, ...(session ? { session } : {}), ...(key ? { key } : {}) });
      await response.text();
      return response;
    }

    async function open(target: McpHttpEndpoint, key?: string): Promise<string> {
      const response = await post(target, INITIALIZE, undefined, key);
      expect(response.status).toBe(200);
      return response.headers.get('mcp-session-id')!;
    }

    it('at the session bound, replaces the least recently active idle session of the same client; expires idle ones', async () => {
      const ep = bounded();
      try {
        now = 1_000;
        const a = await open(ep);
        now = 2_000;
        const b = await open(ep);
        now = 3_000;
        expect((await post(ep, LIST_TOOLS, a)).status).toBe(200);
        now = 4_000;
        const c = await open(ep);
        expect(ep.sessionCount).toBe(2);
        expect((await post(ep, LIST_TOOLS, b)).status).toBe(404);
        expect((await post(ep, LIST_TOOLS, a)).status).toBe(200);

        // Sessions with an open notification stream are busy: a new session is refused, not squeezed in.
        const streams = await Promise.all([a, c].map((session) => send(ep, { method: 'GET', session })));
        expect(streams.map((r) => r.status)).toEqual([200, 200]);
        expect(ep.streamCount).toBe(2);
        const refused = await post(ep, INITIALIZE);
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('30');
        await Promise.all(streams.map((r) => r.body?.cancel()));
        expect(ep.streamCount).toBe(0);

        now += 60_001;
        ep.sweep();
        expect(ep.sessionCount).toBe(0);
        expect((await post(ep, LIST_TOOLS, a)).status).toBe(404);
      } finally {
        await ep.close();
      }
    });

    it('keeps sessions per client: another client cannot use them, nor push out the last one of a smaller holder', async () => {
      const ep = bounded({ maxSessions: 2 });
      try {
        now = 1_000;
        const a1 = await open(ep, 'client-a');
        now = 2_000;
        let b = await open(ep, 'client-b');
        // The table is full: B initializing again replaces only B's own idle session, never A's.
        for (let i = 0; i < 3; i++) {
          now += 1_000;
          const previous = b;
          b = await open(ep, 'client-b');
          expect((await post(ep, LIST_TOOLS, previous, 'client-b')).status).toBe(404);
          expect((await post(ep, LIST_TOOLS, a1, 'client-a')).status).toBe(200);
        }
        expect(ep.sessionCount).toBe(2);

        // A leaked session id is of no use to another client (404, as for an unknown session).
        expect((await post(ep, LIST_TOOLS, a1, 'client-b')).status).toBe(404);
        expect((await post(ep, LIST_TOOLS, a1)).status).toBe(404);
        expect((await post(ep, LIST_TOOLS, a1, 'client-a')).status).toBe(200);
        const foreignDelete = await send(ep, { method: 'DELETE', session: a1, key: 'client-b' });
        expect(foreignDelete.status).toBe(404);
        await foreignDelete.text();

        // B leaves; A fills the table with idle sessions; B comes back in at the cost of A's least
        // recently active one: A holds the most, and an idle session never locks a newcomer out.
        const left = await send(ep, { method: 'DELETE', session: b, key: 'client-b' });
        expect(left.status).toBe(200);
        await left.text();
        now += 1_000;
        const a2 = await open(ep, 'client-a');
        now += 1_000;
        expect((await post(ep, LIST_TOOLS, a1, 'client-a')).status).toBe(200);
        await open(ep, 'client-b');
        expect((await post(ep, LIST_TOOLS, a2, 'client-a')).status).toBe(404);
        expect((await post(ep, LIST_TOOLS, a1, 'client-a')).status).toBe(200);
      } finally {
        await ep.close();
      }
    });

    it('bounds the sessions of one client below the total', async () => {
      const ep = bounded({ maxSessions: 3, maxSessionsPerClient: 2 });
      try {
        now = 1_000;
        const a1 = await open(ep, 'client-a');
        now = 2_000;
        const a2 = await open(ep, 'client-a');
        now = 3_000;
        const a3 = await open(ep, 'client-a');
        expect((await post(ep, LIST_TOOLS, a1, 'client-a')).status).toBe(404);
        expect(ep.sessionCount).toBe(2);
        await open(ep, 'client-b');
        expect(ep.sessionCount).toBe(3);

        const streams = await Promise.all(
          [a2, a3].map((session) => send(ep, { method: 'GET', session, key: 'client-a' })),
        );
        const refused = await send(ep, { body: INITIALIZE, key: 'client-a' });
        expect(refused.status).toBe(503);
        expect(await refused.json()).toMatchObject({
          error: { message: expect.stringMatching(/for this client \(at most 2/) },
        });
        await Promise.all(streams.map((r) => r.body?.cancel()));
      } finally {
        await ep.close();
      }
    });

    it('sends keep-alives on the notification stream and closes it at its maximum age', async () => {
      const ep = bounded({ idleMs: 60_000, keepAliveMs: 20 });
      try {
        now = 1_000;
        const session = await open(ep);
        const stream = await send(ep, { method: 'GET', session });
        expect(stream.status).toBe(200);
        const reader = stream.body!.getReader();
        const alive = await readUntil(reader, (text) => text.includes(': keepalive'));
        expect(alive.ended).toBe(false);

        // An open stream keeps its session; past the stream's age the stream ends (clients reconnect).
        now += 59_999;
        ep.sweep();
        expect(ep.streamCount).toBe(1);
        now += 1;
        ep.sweep();
        expect((await readUntil(reader, () => false)).ended).toBe(true);
        expect(ep.streamCount).toBe(0);
        expect(ep.sessionCount).toBe(1);

        const again = await send(ep, { method: 'GET', session });
        expect(again.status).toBe(200);
        await again.body?.cancel();
        // A client that does not come back: its session expires once idle.
        now += 60_000;
        ep.sweep();
        expect(ep.sessionCount).toBe(0);
      } finally {
        await ep.close();
      }
    });

    it('ends a notification stream whose connection is gone, so its session can expire', async () => {
      // Node sends a stream's headers with its first bytes: a keep-alive comes soon here.
      const ep = bounded({ keepAliveMs: 20 });
      const server = createServer(createServerAdapter((request) => ep.handle(request, context)));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      try {
        now = 1_000;
        const id = await new Promise<string>((resolve, reject) => {
          const req = httpRequest(
            url,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            },
            (res) => {
              res.resume();
              res.on('end', () => resolve(String(res.headers['mcp-session-id'])));
            },
          );
          req.on('error', reject);
          req.end(INITIALIZE);
        });
        // A notification stream over a real connection; then the client vanishes (socket destroyed).
        await new Promise<void>((resolve, reject) => {
          const req = httpRequest(
            url,
            { headers: { accept: 'text/event-stream', 'mcp-session-id': id } },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`GET answered ${res.statusCode}`));
              expect(ep.streamCount).toBe(1);
              req.destroy();
              resolve();
            },
          );
          req.on('error', () => {});
          req.end();
        });
        // The server notices the closed connection (the adapter aborts the request's signal).
        await vi.waitFor(() => expect(ep.streamCount).toBe(0));
        now += 60_001;
        ep.sweep();
        expect(ep.sessionCount).toBe(0);
      } finally {
        await ep.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    it('close() ends streams and sessions, and may be called again', async () => {
      const ep = bounded();
      const session = await open(ep);
      const stream = await send(ep, { method: 'GET', session });
      const reader = stream.body!.getReader();
      await Promise.all([ep.close(100), ep.close()]);
      await ep.close();
      expect((await readUntil(reader, () => false)).ended).toBe(true);
      expect(ep.sessionCount).toBe(0);
      const refused = await post(ep, INITIALIZE);
      expect(refused.status).toBe(503);
    });

    it('logs at most 200 characters of a resource URI the client sent', async () => {
      const lines: string[] = [];
      const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(line) });
      const broken: McpResourceTemplate = {
        uriTemplate: 'test://broken/{name}',
        name: 'broken',
        title: 'Broken',
        description: 'Always fails.',
        mimeType: 'application/json',
        read: async () => {
          throw new Error('unexpected');
        },
        watch: () => () => {},
      };
      const ep = createMcpHttpEndpoint({
        server: {
          info: { name: 'vigil', version: 'test' },
          tools: [],
          resources: [broken],
          runner: t.app.runner,
          errors: t.app.errors,
          logger,
        },
        logger,
        maxSessions: 2,
        idleMs: 60_000,
        loopbackOnly: true,
      });
      const client = new Client({ name: 'in-process', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL('http://localhost/mcp'), {
        fetch: async (url, init) => ep.handle(new Request(url, init), context),
      });
      try {
        await client.connect(transport);
        const uri = `test://broken/${'x'.repeat(5_000)}`;
        const failed = await rejection(client.readResource({ uri }));
        expect(failed.code).toBe(-32603);
        const logged = lines
          .map((line) => JSON.parse(line))
          .find((l) => l.msg === 'mcp resource failed unexpectedly');
        expect(logged.uri).toBe(uri.slice(0, 200));
      } finally {
        await client.close();
        await ep.close();
      }
    });
  });

  describe('caller identity', () => {
    it('runs each tool call and resource read as the HTTP request that carried it (rate limits per client)', async () => {
      // Clients are told apart by address; behind one trusted proxy, by X-Forwarded-For.
      const app = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '1', TRUST_PROXY_HOPS: '1' } });
      const connect = async (address: string) => {
        const client = new Client({ name: 'vigil-test', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
          requestInit: { headers: { 'x-forwarded-for': address } },
        });
        await client.connect(transport);
        return client;
      };
      try {
        // The price resource reads through GraphQL `quote`, limited like any operation.
        const reader = await connect('198.51.100.1');
        const uri = 'vigil://prices/AAPL';
        expect(contentJson(await reader.readResource({ uri }))).toMatchObject({ symbol: 'AAPL' });
        const readLimited = await rejection(reader.readResource({ uri }));
        expect(readLimited.code).toBe(-32000);
        expect(readLimited.message).toMatch(/Rate limit exceeded for quote/);
        expect(readLimited.data).toMatchObject({
          code: 'RATE_LIMITED',
          details: { retryAfterSeconds: expect.any(Number) },
        });
        // Subscribing checks the symbol with the same query, so the limit holds there too.
        const subscribeLimited = await rejection(reader.subscribeResource({ uri }));
        expect(subscribeLimited.data).toMatchObject({ code: 'RATE_LIMITED' });
        expect(app.app.deps.priceHub.stats().subscribers).toBe(0);
        const otherReader = await connect('198.51.100.2');
        expect(contentJson(await otherReader.readResource({ uri }))).toMatchObject({ symbol: 'AAPL' });
        await Promise.all([reader.close(), otherReader.close()]);

        if (!app.app.tools.some((tool) => tool.name === 'search-by-symbol')) return;
        const call = (client: Client) =>
          client.callTool({
            name: 'search-by-symbol',
            arguments: { symbol: 'AAPL', depth: 'quick' },
          }) as Promise<Json>;
        const first = await connect('198.51.100.3');
        expect((await call(first)).isError).toBeFalsy();
        const limited = await call(first);
        expect(limited.isError).toBe(true);
        expect(limited.content[0].text).toMatch(/^RATE_LIMITED: /);
        // Another address is another client.
        const second = await connect('198.51.100.4');
        expect((await call(second)).isError).toBeFalsy();
        await Promise.all([first.close(), second.close()]);
      } finally {
        await app.close();
      }
    });
  });

  describe('graceful stop', () => {
    it('ends open notification streams instead of waiting for them to time out', async () => {
      const app = await createTestApp({ listen: true, env: { SHUTDOWN_TIMEOUT_MS: '20000' } });
      try {
        const client = new Client({ name: 'vigil-test', version: '1.0.0' });
        const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`));
        await client.connect(transport);
        await client.subscribeResource({ uri: 'vigil://prices/AAPL' });
        // MCP sessions (and their hub subscriptions) end before the market-data module closes the hub.
        const hub = app.app.deps.priceHub;
        const closeHub = hub.close.bind(hub);
        let subscribersAtHubClose: number | undefined;
        hub.close = () => {
          subscribersAtHubClose = hub.stats().subscribers;
          closeHub();
        };
        const started = Date.now();
        await app.app.stop();
        // Neither the 20 s budget nor Node's 5 s keep-alive timeout: the server did not wait for the
        // client's open GET stream or the connection that carried it.
        expect(Date.now() - started).toBeLessThan(3_000);
        expect(subscribersAtHubClose).toBe(0);
        expect(app.app.deps.priceHub.stats().subscribers).toBe(0);
        await client.close();
      } finally {
        await app.close();
      }
    });
  });

  describe('stdio', () => {
    let dataDir: string;

    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'vigil-mcp-stdio-'));
    });
    afterAll(() => {
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('serves the same tools and resources over stdin/stdout, and exits 0 when stdin ends', async () => {
      const { client, stderr: logs, problems } = await spawnStdioServer(dataDir, 'vigil-stdio-test');
      // `initialize` was answered while the new embedded database was still being created: a
      // desktop client's connect never waits for it (the tool calls below do).
      expect(logs()).not.toMatch(/start: database opened and migrated/);

      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(t.app.tools.map((tool) => tool.name).sort());
      if (tools.some((tool) => tool.name === 'search-by-symbol')) {
        const result: Json = await client.callTool({
          name: 'search-by-symbol',
          arguments: { symbol: 'AAPL', depth: 'quick' },
        });
        expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
      }
      const invalid = await rejection(client.callTool({ name: 'no-such-tool', arguments: {} }));
      expect(invalid.code).toBe(-32602);
      const read = await client.readResource({ uri: 'vigil://prices/AAPL' });
      expect(contentJson(read)).toMatchObject({
        symbol: 'AAPL',
        provider: 'simulated',
      });

      // Ends stdin, then waits for the process to exit (the SDK sends SIGTERM after 2 s).
      await client.close();
      // Every line on stdout was a protocol message (a stray line would have been reported as an error)
      // and the logs went to stderr.
      expect(problems).toEqual([]);
      expect(logs()).toMatch(/mcp stdio server ready/);
      expect(logs()).toMatch(/"reason":"stdin closed"/);
      expect(logs()).toMatch(/"msg":"stopped"/);
      expect(logs()).not.toMatch(/second signal/);
      // It creates a new embedded database: seconds on a quiet machine, far more on a busy one.
    }, 120_000);
  });
});

import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { createServerAdapter } from '@whatwg-node/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { anonymousPrincipal } from '../src/platform/access/principal.ts';
import type { Viewer } from '../src/platform/http/client-identity.ts';
import {
  createMcpHttpEndpoint,
  type McpHttpEndpoint,
  type McpHttpOptions,
} from '../src/platform/mcp/mcp-http.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import type { OperationRunner } from '../src/platform/operations/runner.ts';
import { compileTools, type ToolDefinition } from '../src/platform/operations/tool.ts';
import { buildSchema } from '../src/schema.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const ACCEPT = 'application/json, text/event-stream';
const PROTOCOL = '2025-06-18';
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** The JSON-RPC messages of an answer, whether JSON or an event stream. */
async function messagesOf(response: Response): Promise<Json[]> {
  const text = await response.text();
  if (response.headers.get('content-type')?.startsWith('application/json')) {
    const body = JSON.parse(text);
    return Array.isArray(body) ? body : [body];
  }
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));
}

/** A raw MCP client over fetch: one `X-Forwarded-For` address (or API key) is one client. */
class RawClient {
  session = '';

  constructor(
    private readonly url: string,
    private readonly headers: Record<string, string>,
  ) {}

  post(body: unknown, signal?: AbortSignal): Promise<Response> {
    return fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: ACCEPT,
        ...this.headers,
        ...(this.session ? { 'mcp-session-id': this.session, 'mcp-protocol-version': PROTOCOL } : {}),
      },
      body: JSON.stringify(body),
      ...(signal ? { signal } : {}),
    });
  }

  async open(): Promise<string> {
    this.session = '';
    const response = await this.post(INITIALIZE);
    expect(response.status).toBe(200);
    await response.text();
    this.session = response.headers.get('mcp-session-id')!;
    return this.session;
  }

  /** The status of a ping on `session` (404 once the session is gone). */
  async ping(session = this.session): Promise<number> {
    const previous = this.session;
    this.session = session;
    try {
      const response = await this.post({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
      await response.text();
      return response.status;
    } finally {
      this.session = previous;
    }
  }
}

function listTools(ids: readonly number[]) {
  return ids.map((id) => ({ jsonrpc: '2.0', id, method: 'tools/list' }));
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describe('MCP sessions are fair and bounded', () => {
  describe('on the app (/mcp with its settings)', () => {
    let t: TestApp;
    const MAX_BYTES = 1_048_576;

    beforeAll(async () => {
      t = await createTestApp({
        listen: true,
        env: { TRUST_PROXY_HOPS: '1', MCP_RATE_LIMIT_MAX: '250', MCP_BATCH_MAX_BYTES: String(MAX_BYTES) },
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('counts every request of a batch against the client, bounds the bytes of its answers, and /healthz stays responsive', async () => {
      const client = new RawClient(`${t.url}/mcp`, { 'x-forwarded-for': '198.51.100.7' });
      await client.open();
      // Longer than a batch may be: refused whole, before anything runs or is counted.
      const tooLong = await client.post(listTools(range(1, 1_000)));
      expect(tooLong.status).toBe(400);
      expect((await messagesOf(tooLong))[0].error.message).toMatch(/Batch must not exceed 100 messages/);

      // 1,000 tools/list in batches of 100, while /healthz is asked all along.
      let healthy = true;
      const health: number[] = [];
      const poll = (async () => {
        while (healthy) {
          const started = performance.now();
          const response = await fetch(`${t.url}/healthz`);
          await response.text();
          expect(response.status).toBe(200);
          health.push(performance.now() - started);
        }
      })();
      const answers: Json[][] = [];
      const sizes: number[] = [];
      try {
        for (let batch = 0; batch < 10; batch++) {
          const response = await client.post(listTools(range(batch * 100 + 1, 100)));
          expect(response.status).toBe(200);
          const text = await response.clone().text();
          sizes.push(Buffer.byteLength(text));
          answers.push(await messagesOf(response));
        }
      } finally {
        healthy = false;
        await poll;
      }

      // Every request is answered, by its id.
      for (const [batch, messages] of answers.entries()) {
        expect(messages.map((m) => m.id).sort((a, b) => a - b)).toEqual(range(batch * 100 + 1, 100));
      }
      const all = answers.flat();
      // The 250 the limit lets through (the initialize was one): the rest are refused per element.
      const limited = all.filter((m) => m.error?.data?.code === 'RATE_LIMITED');
      expect(limited).toHaveLength(1_000 - 249);
      expect(limited[0].error).toMatchObject({
        code: -32000,
        data: { details: { retryAfterSeconds: expect.any(Number) } },
      });
      // Of those that ran, a batch's answers stop at the byte bound (plus the answer that crossed it).
      const listed = all.filter((m) => m.result);
      const tooLarge = all.filter((m) => m.error?.data?.code === 'BATCH_TOO_LARGE');
      expect(listed.length + tooLarge.length).toBe(249);
      expect(tooLarge.length).toBeGreaterThan(100);
      const listing = Buffer.byteLength(JSON.stringify(listed[0]));
      for (const size of sizes) expect(size).toBeLessThan(MAX_BYTES + listing + 100 * 400);
      expect(tooLarge[0].error.message).toMatch(/not run: the answers to this batch reached 1048576 bytes/);
      // Asked all along and answered in between (the median: a shared machine has its own spikes).
      expect(health.length).toBeGreaterThan(5);
      expect(health.sort((x, y) => x - y)[health.length >> 1]).toBeLessThan(500);

      // Another client has its own budget, and the SDK's client reads the refusal as a JSON-RPC error.
      const sdk = new Client({ name: 'fairness', version: '1' });
      const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { 'x-forwarded-for': '198.51.100.8' } },
      });
      await sdk.connect(transport);
      try {
        expect((await sdk.listTools()).tools.length).toBeGreaterThan(0);
        await client.post({ jsonrpc: '2.0', id: 'late', method: 'tools/list' }).then(async (r) => {
          expect((await messagesOf(r))[0].error.data.code).toBe('RATE_LIMITED');
        });
      } finally {
        await transport.terminateSession().catch(() => {});
        await sdk.close();
      }
      const refused = new Client({ name: 'fairness', version: '1' });
      const refusedTransport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: { 'x-forwarded-for': '198.51.100.7' } },
      });
      const error = await refused.connect(refusedTransport).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).data).toMatchObject({ code: 'RATE_LIMITED' });
    });
  });

  describe('on an endpoint of its own (real HTTP, test clock)', () => {
    let t: TestApp;
    let now = 0;
    let server: HttpServer | undefined;
    let endpoint: McpHttpEndpoint | undefined;
    let url = '';

    beforeAll(async () => {
      t = await createTestApp();
    });
    afterAll(async () => {
      await stop();
      await t?.close();
    });

    /** Serves a fresh endpoint on a port; clients are told apart by X-API-Key. */
    async function serve(overrides: Partial<McpHttpOptions> = {}): Promise<McpHttpEndpoint> {
      await stop();
      const ep = createMcpHttpEndpoint({
        server: {
          info: { name: 'vigil', version: 'test' },
          tools: [],
          resources: [],
          runner: t.app.runner,
          errors: t.app.errors,
          logger: createLogger('silent'),
        },
        logger: createLogger('silent'),
        maxSessions: 6,
        maxSessionsPerClient: 4,
        idleMs: 60_000,
        // Streams send their headers with their first bytes: keep-alives come at once (they are no progress).
        keepAliveMs: 20,
        loopbackOnly: true,
        identify: (request) => viewer(request.headers.get('x-api-key') ?? 'anonymous'),
        now: () => now,
        ...overrides,
      });
      endpoint = ep;
      server = createServer(createServerAdapter((request) => ep.handle(request, CONTEXT)));
      await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
      return ep;
    }

    async function stop(): Promise<void> {
      await endpoint?.close();
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      server = undefined;
      endpoint = undefined;
    }

    const clientOf = (key: string) => new RawClient(url, { 'x-api-key': key });

    it('a full table of idle sessions lets a newcomer in: the least recently active idle session of the biggest holder goes', async () => {
      const ep = await serve();
      const a = clientOf('a');
      const b = clientOf('b');
      const aSessions: string[] = [];
      for (let i = 0; i < 4; i++) {
        now = 1_000 + i * 1_000;
        aSessions.push(await a.open());
      }
      now = 10_000;
      const b1 = await b.open();
      now = 11_000;
      const b2 = await b.open();
      expect(ep.sessionCount).toBe(6);
      // A's oldest session is busy (its notification stream is open); its second oldest was pinged last.
      const stream = await fetch(url, {
        headers: {
          accept: 'text/event-stream',
          'x-api-key': 'a',
          'mcp-session-id': aSessions[0]!,
          'mcp-protocol-version': PROTOCOL,
        },
      });
      expect(stream.status).toBe(200);
      now = 12_000;
      expect(await a.ping(aSessions[1])).toBe(200);

      now = 13_000;
      const c = clientOf('c');
      await c.open();
      expect(ep.sessionCount).toBe(6);
      // A holds the most; of its idle sessions the third one is the least recently active.
      expect(await a.ping(aSessions[2])).toBe(404);
      for (const session of [aSessions[0], aSessions[1], aSessions[3]])
        expect(await a.ping(session)).toBe(200);
      for (const session of [b1, b2]) expect(await b.ping(session)).toBe(200);

      // A and B now hold 3 and 2 (and C 1): the next newcomer takes A's least recently active idle one.
      now = 14_000;
      await clientOf('d').open();
      expect(await a.ping(aSessions[1])).toBe(404);
      await stream.body?.cancel();
    });

    it('refuses a newcomer only when no session is idle, with Retry-After', async () => {
      const ep = await serve({ maxSessions: 2 });
      now = 1_000;
      const a = clientOf('a');
      const streams: Response[] = [];
      for (let i = 0; i < 2; i++) {
        const session = await a.open();
        streams.push(
          await fetch(url, {
            headers: {
              accept: 'text/event-stream',
              'x-api-key': 'a',
              'mcp-session-id': session,
              'mcp-protocol-version': PROTOCOL,
            },
          }),
        );
      }
      expect(ep.streamCount).toBe(2);
      const refused = await clientOf('b').post(INITIALIZE);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect((await refused.json()).error.message).toMatch(/too many MCP sessions \(at most 2, all busy\)/);
      await streams[0]!.body?.cancel();
      while (ep.streamCount > 1) await new Promise((resolve) => setTimeout(resolve, 10));
      now = 2_000;
      expect(await clientOf('b').open()).toBeTruthy();
      await streams[1]!.body?.cancel();
    });

    /** The quote tool, its operation held until `release` is called. */
    function heldQuoteTool() {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const runner = Object.create(t.app.runner) as OperationRunner;
      runner.run = async (call) => {
        await held;
        return t.app.runner.run(call);
      };
      const definition: ToolDefinition<{ quote: { symbol: string } }> = {
        name: 'held-quote',
        title: 'Held quote',
        description: 'The symbol of a quote, answered when the test lets it.',
        document: 'query HeldQuote($symbol: String!) { quote(symbol: $symbol) { symbol } }',
        result: ({ quote }) => ({ symbol: quote.symbol }),
        outputSchema: z.object({ symbol: z.string() }),
      };
      const tools = compileTools(buildSchema(), [definition as ToolDefinition<never>], runner);
      return { tools, release };
    }

    const callHeld = (id: number) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'held-quote', arguments: { symbol: 'AAPL' } },
    });

    it('answers every request of two concurrent batches reusing ids, and the session idle-closes afterwards', async () => {
      const { tools, release } = heldQuoteTool();
      const ep = await serve({ server: { ...serverOptions(), tools } });
      now = 1_000;
      const a = clientOf('a');
      await a.open();
      const first = a.post([callHeld(1), ...listTools([2])]);
      // The second batch reuses id 1 while the first one's request 1 is running.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const second = await messagesOf(await a.post(listTools([1, 3])));
      expect(second.find((m) => m.id === 1).error).toMatchObject({
        code: -32600,
        message: expect.stringMatching(/id 1 is already used by a request in flight/),
        data: { code: 'DUPLICATE_REQUEST_ID' },
      });
      expect(second.find((m) => m.id === 3).result.tools).toHaveLength(1);
      release();
      const answered = await within(5_000, first.then(messagesOf));
      expect(answered.find((m) => m.id === 1).result.structuredContent).toEqual({ symbol: 'AAPL' });
      expect(answered.find((m) => m.id === 2).result.tools).toHaveLength(1);

      now = 1_000 + 60_001;
      ep.sweep();
      expect(ep.sessionCount).toBe(0);
    });

    it('closes a response stream that makes no progress, and the session then idles out from its last answer', async () => {
      const { tools, release } = heldQuoteTool();
      const ep = await serve({ server: { ...serverOptions(), tools }, stallMs: 10_000 });
      try {
        now = 1_000;
        const a = clientOf('a');
        await a.open();
        const stuck = a.post([callHeld(1)]);
        const response = await stuck;
        const body = response.text();
        now = 10_999;
        ep.sweep();
        expect(ep.sessionCount).toBe(1);
        now = 11_000;
        ep.sweep();
        // The client sees its response end without the answer.
        expect(await within(5_000, body)).not.toMatch(/"id":1/);
        // Idle since the POST (its last progress), not since the stream was closed.
        now = 61_000;
        ep.sweep();
        expect(ep.sessionCount).toBe(0);
      } finally {
        release();
      }
    });

    function serverOptions(): McpHttpOptions['server'] {
      return {
        info: { name: 'vigil', version: 'test' },
        tools: [],
        resources: [],
        runner: t.app.runner,
        errors: t.app.errors,
        logger: createLogger('silent'),
      };
    }
  });
});

function viewer(key: string): Viewer {
  const clientId = `key:${key}`;
  return { clientId, addressId: clientId, remoteAddress: undefined, principal: anonymousPrincipal(false) };
}

const CONTEXT = { params: {}, template: '/mcp', server: {}, viewer: viewer('unused') };

/** The promise's value, or a failure naming the wait when it takes longer than `ms`. */
async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

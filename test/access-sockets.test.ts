import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_KEY,
  bearer,
  firstResult,
  type GraphqlWs,
  graphqlWs,
  type IssuedKey,
  issueKey,
  revokeKey,
  Socket,
  UNKNOWN_KEY,
  xApiKey,
} from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * Access control on the long-lived surfaces, with real clients: graphql-ws (key in connectionParams
 * or on the upgrade), the plain WebSocket price routes (header or `?key=`) and MCP over Streamable
 * HTTP with the MCP SDK client.
 */
describe('access control on sockets and MCP, with AUTH_REQUIRED', () => {
  let t: TestApp;
  const keys = {} as Record<'read' | 'write' | 'revoked', IssuedKey>;
  const open: Array<{ close(): unknown }> = [];

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        AUTH_MAX_FAILURES_PER_MINUTE: '100000',
        SIMULATED_TICK_MS: '100',
      },
    });
    keys.read = await issueKey(t.app, 'reader', ['READ']);
    keys.write = await issueKey(t.app, 'writer', ['WRITE']);
    keys.revoked = await issueKey(t.app, 'gone', ['ADMIN']);
    await revokeKey(t.app, keys.revoked.id);
  });
  afterEach(async () => {
    for (const client of open.splice(0)) await client.close();
  });
  afterAll(async () => t?.close());

  const secretOf = (who: 'unknown' | 'revoked' | 'read') =>
    who === 'unknown' ? UNKNOWN_KEY : keys[who].secret;

  describe('graphql-ws', () => {
    type Carrier = 'connectionParams.apiKey' | 'connectionParams.authorization' | 'upgrade header';
    const carriers: Carrier[] = [
      'connectionParams.apiKey',
      'connectionParams.authorization',
      'upgrade header',
    ];

    const connect = (carrier: Carrier | 'nothing', secret = ''): GraphqlWs => {
      const url = `${t.wsUrl}/graphql`;
      const ws =
        carrier === 'connectionParams.apiKey'
          ? graphqlWs(url, { connectionParams: { apiKey: secret } })
          : carrier === 'connectionParams.authorization'
            ? graphqlWs(url, { connectionParams: { authorization: `Bearer ${secret}` } })
            : carrier === 'upgrade header'
              ? graphqlWs(url, { headers: bearer(secret) })
              : graphqlWs(url);
      open.push({ close: () => ws.client.dispose() });
      return ws;
    };

    it('closes a connection without a key with 4401', async () => {
      const ws = connect('nothing');
      const outcome = await firstResult(ws.client, '{ viewer { id } }');
      expect(outcome).toMatchObject({ kind: 'closed', code: 4401 });
      expect(ws.connections()).toBe(0);
    });

    const refusals = carriers.flatMap((carrier) =>
      (['unknown', 'revoked'] as const).map((who) => ({ carrier, who })),
    );
    it.each(refusals)(
      'closes a connection with the $who key in $carrier with 4401',
      async ({ carrier, who }) => {
        const ws = connect(carrier, secretOf(who));
        const outcome = await firstResult(ws.client, '{ viewer { id } }');
        expect(outcome).toMatchObject({ kind: 'closed', code: 4401 });
        expect((await ws.closed).reason).toMatch(who === 'revoked' ? /revoked/ : /not valid/);
      },
    );

    it.each(carriers)('runs a subscription and a query as the read key in %s', async (carrier) => {
      const ws = connect(carrier, keys.read.secret);
      const tick = await firstResult(ws.client, 'subscription { time(intervalMs: 100) }');
      expect(tick.kind === 'result' && Number.isFinite(Date.parse(tick.data?.time))).toBe(true);
      const viewer = await firstResult(ws.client, '{ viewer { id scopes } }');
      expect(viewer).toMatchObject({
        kind: 'result',
        data: { viewer: { id: keys.read.id, scopes: ['READ'] } },
      });
    });

    it('answers a mutation of the read key with FORBIDDEN naming `write`, and keeps the socket', async () => {
      const ws = connect('connectionParams.apiKey', keys.read.secret);
      // A running subscription keeps the lazy client's socket up across the operations below.
      const stop = ws.client.subscribe(
        { query: 'subscription { time(intervalMs: 100) }' },
        { next: () => {}, error: () => {}, complete: () => {} },
      );
      try {
        const refused = await firstResult(
          ws.client,
          'mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }',
        );
        expect(refused.kind).toBe('result');
        const error: Json = refused.kind === 'result' ? refused.errors?.[0] : undefined;
        expect(error).toMatchObject({ extensions: { code: 'FORBIDDEN', scope: 'write' } });
        expect(error.message).toContain('`write`');
        expect(error.extensions.http).toBeUndefined();
        const after = await firstResult(ws.client, '{ viewer { id } }');
        expect(after).toMatchObject({ kind: 'result', data: { viewer: { id: keys.read.id } } });
        expect(ws.connections()).toBe(1);
      } finally {
        stop();
      }
    });

    it("takes the key in connectionParams over the upgrade's, and refuses a wrong one there with 4401", async () => {
      const url = `${t.wsUrl}/graphql`;
      const upgraded = graphqlWs(url, {
        headers: bearer(keys.read.secret),
        connectionParams: { apiKey: keys.write.secret },
      });
      open.push({ close: () => upgraded.client.dispose() });
      expect(await firstResult(upgraded.client, '{ viewer { id } }')).toMatchObject({
        data: { viewer: { id: keys.write.id } },
      });
      const wrong = graphqlWs(url, {
        headers: bearer(keys.read.secret),
        connectionParams: { apiKey: UNKNOWN_KEY },
      });
      open.push({ close: () => wrong.client.dispose() });
      expect(await firstResult(wrong.client, '{ viewer { id } }')).toMatchObject({
        kind: 'closed',
        code: 4401,
      });
    });

    it('lets a write key mutate over the socket', async () => {
      const ws = connect('upgrade header', keys.write.secret);
      const done = await firstResult(
        ws.client,
        'mutation { submitFkDsl(query: "EVALUATE AAPL: PRICE") { taskId } }',
      );
      expect(done).toMatchObject({ kind: 'result', data: { submitFkDsl: { taskId: expect.any(String) } } });
    });
  });

  describe('plain WebSocket routes', () => {
    const connect = (path: string, headers: Record<string, string> = {}) => {
      const socket = new Socket(`${t.wsUrl}${path}`, headers);
      open.push(socket);
      return socket;
    };

    const routes = ['/ws/prices/AAPL', '/ws/stream'];
    const refused = routes.flatMap((route) => [
      { route, who: 'no key', path: route, headers: () => ({}) },
      { route, who: 'an unknown key', path: route, headers: () => bearer(UNKNOWN_KEY) },
      { route, who: 'an unknown ?key=', path: `${route}?key=${UNKNOWN_KEY}`, headers: () => ({}) },
      { route, who: 'a revoked key', path: route, headers: () => xApiKey(keys.revoked.secret) },
    ]);

    it.each(refused)('closes $route with $who with 4401 after the handshake', async ({ path, headers }) => {
      const socket = connect(path, headers());
      expect(await socket.opened).toBe(true);
      expect((await socket.closed).code).toBe(4401);
    });

    it('closes a socket whose header key and ?key= differ with 4401', async () => {
      const socket = connect(`/ws/prices/AAPL?key=${keys.write.secret}`, bearer(keys.read.secret));
      expect((await socket.closed).code).toBe(4401);
    });

    const accepted = [
      { how: 'Authorization: Bearer', path: '/ws/prices/AAPL', headers: () => bearer(keys.read.secret) },
      { how: 'X-API-Key', path: '/ws/prices/AAPL', headers: () => xApiKey(keys.read.secret) },
      { how: '?key=', path: '/ws/prices/AAPL?key=', headers: () => ({}) },
    ];
    it.each(accepted)('streams /ws/prices to a read key sent as $how', async ({ path, headers }) => {
      const socket = connect(path.endsWith('=') ? `${path}${keys.read.secret}` : path, headers());
      expect(await socket.next('subscription_ack')).toMatchObject({ symbols: ['AAPL'] });
    });

    it.each(accepted)('serves /ws/stream to a read key sent as $how', async ({ path, headers }) => {
      const route = path.replace('/ws/prices/AAPL', '/ws/stream');
      const socket = connect(route.endsWith('=') ? `${route}${keys.read.secret}` : route, headers());
      expect(await socket.opened).toBe(true);
      socket.send({ type: 'subscribe', stream_type: 'price', symbols: ['AAPL'], interval_ms: 100 });
      expect(await socket.next('subscription_ack')).toMatchObject({ symbols: ['AAPL'] });
    });
  });

  describe('MCP over Streamable HTTP', () => {
    const connect = async (headers: Record<string, string>) => {
      const client = new Client({ name: 'vigil-access-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers },
      });
      await client.connect(transport);
      open.push({ close: () => client.close() });
      return client;
    };

    const refusals = [
      { who: 'no key', headers: () => ({}) },
      { who: 'an unknown key', headers: () => bearer(UNKNOWN_KEY) },
      { who: 'a revoked key', headers: () => xApiKey(keys.revoked.secret) },
    ];
    it.each(refusals)('refuses to connect with $who: 401', async ({ headers }) => {
      const failure = await connect(headers()).then(
        () => undefined,
        (error: unknown) => error as { code?: number; message?: string },
      );
      expect(failure?.code).toBe(401);
    });

    it('answers the refusal as JSON-RPC with WWW-Authenticate: Bearer', async () => {
      const response = await fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
      expect(await response.json()).toMatchObject({
        jsonrpc: '2.0',
        error: { code: -32000, data: { code: 'UNAUTHENTICATED' } },
      });
    });

    it.each([
      { how: 'Authorization: Bearer', headers: () => bearer(keys.read.secret) },
      { how: 'X-API-Key', headers: () => xApiKey(keys.read.secret) },
    ])('lists and calls tools with the read key as $how', async ({ headers }) => {
      const client = await connect(headers());
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(['search-by-symbol', 'execute-fk-dsl']),
      );
      const result: Json = await client.callTool({
        name: 'search-by-symbol',
        arguments: { symbol: 'AAPL', depth: 'quick' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ symbol: 'AAPL' });
    });

    it('answers the submit tool of a read key with an isError result naming `write`', async () => {
      const client = await connect(bearer(keys.read.secret));
      const result: Json = await client.callTool({
        name: 'execute-fk-dsl',
        arguments: { query: 'EVALUATE AAPL: PRICE', async: true },
      });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^FORBIDDEN: /);
      expect(result.content[0].text).toContain('`write`');
      // The waiting form only reads, so the same key may run it.
      const ran: Json = await client.callTool({
        name: 'execute-fk-dsl',
        arguments: { query: 'EVALUATE AAPL: PRICE' },
      });
      expect(ran.isError).toBeFalsy();
      expect(ran.structuredContent).toMatchObject({ status: 'completed' });
    });

    it('lets a write key submit through the same tool', async () => {
      const client = await connect(bearer(keys.write.secret));
      const result: Json = await client.callTool({
        name: 'execute-fk-dsl',
        arguments: { query: 'EVALUATE AAPL: PRICE', async: true },
      });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ task_id: expect.any(String) });
    });
  });
});

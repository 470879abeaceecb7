import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { HttpRoutes } from '../src/platform/http/http-routes.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { compileTools, type ToolDefinition } from '../src/platform/operations/tool.ts';
import { registerToolRoutes } from '../src/platform/rest/tool-routes.ts';
import { buildSchema } from '../src/schema.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';
import { createFakeProvider } from './support/fake-provider.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const JSON_HEADERS = { 'content-type': 'application/json' };

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Json;
}

async function send(t: TestApp, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await t.app.fetch(path, init);
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const post = (t: TestApp, path: string, body: unknown, headers: Record<string, string> = {}) =>
  send(t, path, { method: 'POST', headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) });

/** An error answer of /mcp/tools/{name}: the error body, the status, no success fields. */
function expectError(answer: Answer, status: number, code: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(status);
  expect(answer.body.error.code).toBe(code);
  expect(answer.body.detail).toBe(answer.body.error.message);
}

/** An error answer of /mcp/tools/call: also `isError` and `content` for older clients. */
function expectCallError(answer: Answer, status: number, code: string): void {
  expectError(answer, status, code);
  expect(answer.body.isError).toBe(true);
  expect(answer.body.content).toEqual([{ type: 'text', text: answer.body.error.message }]);
}

describe('REST tool routes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { RATE_LIMIT_MAX: '1000' } });
  });
  afterAll(async () => t?.close());

  it('GET /mcp/tools lists every tool with its schemas, defaults and annotations', async () => {
    const { status, body } = await send(t, '/mcp/tools');
    expect(status).toBe(200);
    expect(body.tools.map((x: Json) => x.name)).toEqual(t.app.tools.map((x) => x.name));
    expect(body.tools.map((x: Json) => x.name)).toEqual(
      expect.arrayContaining(['search-by-symbol', 'search-by-coin', 'execute-fk-dsl', 'get-task-status']),
    );
    for (const tool of body.tools) {
      expect(Object.keys(tool).sort()).toEqual(
        ['_meta', 'annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title'].sort(),
      );
      expect(tool._meta['vigil/scope']).toBe(t.app.tools.find((x) => x.name === tool.name)!.scopes.base);
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(tool.outputSchema.type).toBe('object');
      expect(tool.inputSchema.$schema).toBeUndefined();
    }
    const search = body.tools.find((x: Json) => x.name === 'search-by-symbol');
    expect(search.inputSchema.required).toEqual(['symbol']);
    expect(search.inputSchema.properties.market.default).toBe('US');
    expect(search.inputSchema.properties.depth).toMatchObject({
      default: 'standard',
      enum: ['quick', 'standard', 'deep'],
    });
    expect(search.inputSchema.properties.symbol.description).toBeTruthy();
  });

  it('answers the same value on /mcp/tools/{name} and /mcp/tools/call', async () => {
    const args = { symbol: 'AAPL', depth: 'quick' };
    const direct = await post(t, '/mcp/tools/search-by-symbol', args);
    const called = await post(t, '/mcp/tools/call', { name: 'search-by-symbol', arguments: args });
    expect(direct.status).toBe(200);
    expect(called.status).toBe(200);
    expect(direct.body).toMatchObject({ symbol: 'AAPL', depth: 'quick' });
    expect(called.body.isError).toBe(false);
    expect(called.body.content).toEqual([
      { type: 'text', text: JSON.stringify(called.body.structuredContent) },
    ]);
    // The second call is served from the cache the first one filled; everything else is the same.
    const { cache_age_seconds: _a, cache_hit: _h, ...first } = direct.body.cached;
    const { cache_age_seconds: _b, cache_hit: _i, ...second } = called.body.structuredContent.cached;
    expect(second).toEqual(first);
    expect({ ...called.body.structuredContent, cached: null }).toEqual({ ...direct.body, cached: null });
  });

  it('takes an empty body as no arguments, and `arguments` may be left out', async () => {
    const empty = await send(t, '/mcp/tools/search-by-symbol', { method: 'POST' });
    expectError(empty, 422, 'INVALID_ARGUMENTS');
    expect(empty.body.error.details.issues.map((i: Json) => i.field)).toEqual(['symbol']);
    const called = await post(t, '/mcp/tools/call', { name: 'get-task-status' });
    expectCallError(called, 422, 'INVALID_ARGUMENTS');
    expect(called.body.error.message).toMatch(/^task_id: /);
  });

  it('answers an unknown tool with 404 UNKNOWN_TOOL on both routes', async () => {
    const direct = await post(t, '/mcp/tools/no-such-tool', {});
    expectError(direct, 404, 'UNKNOWN_TOOL');
    expect(direct.body.error.details.tools).toContain('search-by-symbol');
    expectCallError(
      await post(t, '/mcp/tools/call', { name: 'no-such-tool', arguments: {} }),
      404,
      'UNKNOWN_TOOL',
    );
  });

  it('answers a body that is not JSON, or not an object, with 400', async () => {
    for (const path of ['/mcp/tools/search-by-symbol', '/mcp/tools/call']) {
      const check = path.endsWith('/call') ? expectCallError : expectError;
      for (const body of ['{"symbol": ', '[1, 2]', 'null', '"AAPL"', '\u00ff']) {
        const answer = await send(t, path, { method: 'POST', headers: JSON_HEADERS, body });
        check(answer, 400, 'BAD_USER_INPUT');
        expect(answer.body.error.message).not.toContain('AAPL');
      }
    }
    const invalidUtf8 = await send(t, '/mcp/tools/call', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: new Uint8Array([0x7b, 0xff, 0x7d]),
    });
    expectCallError(invalidUtf8, 400, 'BAD_USER_INPUT');
    expectCallError(
      await send(t, '/mcp/tools/call', { method: 'POST', headers: JSON_HEADERS }),
      400,
      'BAD_USER_INPUT',
    );
  });

  it('answers arguments that fail the input schema with 422, every issue naming its argument', async () => {
    const direct = await post(t, '/mcp/tools/search-by-symbol', { symbol: 5, depth: 'ultra' });
    expectError(direct, 422, 'INVALID_ARGUMENTS');
    const fields = direct.body.error.details.issues.map((i: Json) => i.field).sort();
    expect(fields).toEqual(['depth', 'symbol']);
    expect(direct.body.error.message).toMatch(/symbol: /);
    expect(direct.body.error.message).toMatch(/depth: /);

    const extra = await post(t, '/mcp/tools/call', {
      name: 'search-by-coin',
      arguments: { symbol: 'BTC', colour: 'red' },
    });
    expectCallError(extra, 422, 'INVALID_ARGUMENTS');
    expect(extra.body.error.message).toContain('colour');

    const envelope = await post(t, '/mcp/tools/call', { name: 42, arguments: [] });
    expectCallError(envelope, 422, 'INVALID_ARGUMENTS');
    expect(envelope.body.error.details.issues.map((i: Json) => i.field).sort()).toEqual([
      'arguments',
      'name',
    ]);
  });

  it('refuses a body over 64 KiB with 413, whether or not its length is declared', async () => {
    const big = JSON.stringify({ symbol: 'AAPL', padding: 'x'.repeat(70 * 1024) });
    const declared = await send(t, '/mcp/tools/search-by-symbol', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: big,
    });
    expectError(declared, 413, 'PAYLOAD_TOO_LARGE');

    // Streamed in chunks with no Content-Length: the reader stops at the limit.
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 1024 * 1024) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new TextEncoder().encode(' '.repeat(16 * 1024)));
      },
    });
    const streamed = await send(t, '/mcp/tools/call', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expectCallError(streamed, 413, 'PAYLOAD_TOO_LARGE');
    expect(sent).toBeLessThan(1024 * 1024);
  });

  it('refuses a body that is not JSON by its content type with 415', async () => {
    const body = JSON.stringify({ symbol: 'AAPL' });
    for (const type of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=latin1',
    ]) {
      const answer = await send(t, '/mcp/tools/search-by-symbol', {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expectError(answer, 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
    const untyped = await t.app.fetch('/mcp/tools/call', {
      method: 'POST',
      body: new Blob([JSON.stringify({ name: 'search-by-symbol', arguments: { symbol: 'AAPL' } })]),
    });
    expect(untyped.status).toBe(415);
    const vendorJson = await send(t, '/mcp/tools/search-by-symbol', {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.api+json; charset=UTF-8' },
      body: JSON.stringify({ symbol: 'AAPL', depth: 'quick' }),
    });
    expect(vendorJson.status).toBe(200);
  });

  it('answers a domain error with the status of its code: UNKNOWN_SYMBOL is 404', async () => {
    const direct = await post(t, '/mcp/tools/search-by-symbol', { symbol: 'ZZZZ' });
    expectError(direct, 404, 'UNKNOWN_SYMBOL');
    expect(direct.body.error.details.symbol).toBe('ZZZZ');
    expectCallError(
      await post(t, '/mcp/tools/call', { name: 'search-by-symbol', arguments: { symbol: 'ZZZZ' } }),
      404,
      'UNKNOWN_SYMBOL',
    );
  });

  it('answers a domain BAD_USER_INPUT with 400 naming the field, and a DSL syntax error with 400', async () => {
    const empty = await post(t, '/mcp/tools/search-by-symbol', { symbol: '!!!' });
    expectError(empty, 400, 'BAD_USER_INPUT');
    expect(empty.body.error.details.field).toBe('symbol');
    const syntax = await post(t, '/mcp/tools/call', {
      name: 'execute-fk-dsl',
      arguments: { query: 'EVALUATE' },
    });
    expectCallError(syntax, 400, 'FKDSL_SYNTAX_ERROR');
    expect(syntax.body.error.details).toMatchObject({ line: 1, column: 9 });
  });

  it('keeps routing honest: GET on a tool is 405, and /mcp/tools/call is never a tool name', async () => {
    const get = await t.app.fetch('/mcp/tools/search-by-symbol');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toContain('POST');
    expectCallError(await post(t, '/mcp/tools/call', { symbol: 'AAPL' }), 422, 'INVALID_ARGUMENTS');
  });

  describe('with a tool of the test', () => {
    const definitions: ToolDefinition<never>[] = [
      {
        name: 'quote-price',
        title: 'Quote price',
        description: 'The price of one instrument: a tool written by this test over the quote query.',
        document: 'query QuotePrice($symbol: String!) { quote(symbol: $symbol) { quote { symbol price } } }',
        result: (data: { quote: { quote: { symbol: string; price: number } } }) => data.quote.quote,
        outputSchema: z.object({ symbol: z.string(), price: z.number() }),
        annotations: { readOnlyHint: true },
      } as ToolDefinition<never>,
      {
        name: 'server-version',
        title: 'Server version',
        description: 'The version of the server, to show that any document becomes a route.',
        document: 'query ServerVersion { serverInfo { version } }',
        result: (data: { serverInfo: { version: string } }) => ({ version: data.serverInfo.version }),
        outputSchema: z.object({ version: z.string() }),
      } as ToolDefinition<never>,
      {
        name: 'nothing',
        title: 'Nothing',
        description: 'Runs an operation and answers no value at all, to show how undefined travels.',
        document: 'query Nothing { serverInfo { version } }',
        result: () => undefined,
        outputSchema: z.unknown(),
      } as ToolDefinition<never>,
    ];
    let routes: HttpRoutes;
    const call = async (path: string, body: unknown): Promise<Answer> => {
      const response = await routes.dispatch(
        new Request(`http://localhost${path}`, {
          method: 'POST',
          headers: JSON_HEADERS,
          body: JSON.stringify(body),
        }),
        {},
      );
      return { status: response.status, headers: response.headers, body: await response.json() };
    };

    beforeAll(() => {
      const tools = compileTools(buildSchema(), definitions, t.app.runner);
      routes = new HttpRoutes(t.app.deps.metrics, t.app.deps.logger, t.app.errors);
      registerToolRoutes(routes, { tools, errors: t.app.errors, maxBodyBytes: 1024 });
    });

    it('serves it on both routes, from its definition alone', async () => {
      const price = await call('/mcp/tools/quote-price', { symbol: 'MSFT' });
      expect(price.status).toBe(200);
      expect(price.body).toEqual({ symbol: 'MSFT', price: expect.any(Number) });
      const version = await call('/mcp/tools/call', { name: 'server-version' });
      expect(version.body, JSON.stringify(version.body)).toMatchObject({
        isError: false,
        structuredContent: { version: t.app.deps.serverInfo.version },
      });
      expectError(await call('/mcp/tools/quote-price', { symbol: 'ZZZZ' }), 404, 'UNKNOWN_SYMBOL');
      expectError(
        await call('/mcp/tools/quote-price', { symbol: 'A', pad: 'x'.repeat(2000) }),
        413,
        'PAYLOAD_TOO_LARGE',
      );
    });

    it('answers a tool value that is undefined as JSON null on both routes', async () => {
      const called = await call('/mcp/tools/call', { name: 'nothing' });
      expect(called.status).toBe(200);
      expect(called.body).toEqual({
        content: [{ type: 'text', text: 'null' }],
        structuredContent: null,
        isError: false,
      });
      const direct = await call('/mcp/tools/nothing', {});
      expect(direct).toMatchObject({ status: 200, body: null });
    });

    it('refuses a tool named like the call route', () => {
      const [first] = compileTools(buildSchema(), [{ ...definitions[1]!, name: 'call' }], t.app.runner);
      expect(() =>
        registerToolRoutes(new HttpRoutes(t.app.deps.metrics, t.app.deps.logger, t.app.errors), {
          tools: [first!],
          errors: t.app.errors,
        }),
      ).toThrow(/call/);
    });
  });
});

describe('REST tool routes over the rate limit', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      env: { RATE_LIMIT_MAX: '2', RATE_LIMIT_WINDOW_SECONDS: '60', TRUST_PROXY_HOPS: '1' },
    });
  });
  afterAll(async () => t?.close());

  it('answers 429 with a numeric Retry-After, per client as on /graphql', async () => {
    const a = { 'x-forwarded-for': '198.51.100.1' };
    const args = { symbol: 'AAPL', depth: 'quick' };
    expect((await post(t, '/mcp/tools/search-by-symbol', args, a)).status).toBe(200);
    expect((await post(t, '/mcp/tools/call', { name: 'search-by-symbol', arguments: args }, a)).status).toBe(
      200,
    );

    const limited = await post(t, '/mcp/tools/search-by-symbol', args, a);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.error.details.retryAfterSeconds).toBe(Number(limited.headers.get('retry-after')));

    const viaCall = await post(t, '/mcp/tools/call', { name: 'search-by-symbol', arguments: args }, a);
    expectCallError(viaCall, 429, 'RATE_LIMITED');
    expect(viaCall.headers.get('retry-after')).toMatch(/^\d+$/);

    // Another client has its own allowance.
    expect(
      (await post(t, '/mcp/tools/search-by-symbol', args, { 'x-forwarded-for': '198.51.100.2' })).status,
    ).toBe(200);
  });
});

describe('an unexpected failure (not a domain error)', () => {
  let t: TestApp;
  const logger = createLogger('silent');
  const logged = vi.spyOn(logger, 'error');

  beforeAll(async () => {
    // A provider with a bug: asked whether it serves BOOM, it throws a plain Error, outside the
    // guarded provider call, so the resolver itself fails with something that is no AppError.
    const buggy = createFakeProvider('buggy', { capabilities: ['quote'] });
    buggy.prices.set('AAPL', 150);
    const supports = buggy.supports;
    buggy.supports = (capability, instrument) => {
      if (instrument?.symbol === 'BOOM') throw new Error('secret internals: provider bug');
      return supports(capability, instrument);
    };
    t = await createTestApp({ overrides: { providers: [buggy], logger } });
  });
  afterAll(async () => t?.close());

  it('is INTERNAL on GraphQL, on both REST tool routes (500) and to the MCP tool call, with no internals', async () => {
    const { body } = await graphql(t.app, '{ quote(symbol: "BOOM") { quote { price } } }');
    expect(body.errors?.[0]).toMatchObject({
      message: 'Unexpected error.',
      extensions: { code: 'INTERNAL' },
    });

    const direct = await post(t, '/mcp/tools/search-by-symbol', { symbol: 'BOOM', depth: 'quick' });
    expectError(direct, 500, 'INTERNAL');
    const called = await post(t, '/mcp/tools/call', {
      name: 'search-by-symbol',
      arguments: { symbol: 'BOOM', depth: 'quick' },
    });
    expectCallError(called, 500, 'INTERNAL');

    // What MCP's tools/call reports (`isError` text `INTERNAL: ...`) is this outcome.
    const tool = t.app.tools.find((x) => x.name === 'search-by-symbol')!;
    const outcome = await tool.call({ symbol: 'BOOM', depth: 'quick' }, {});
    expect(outcome).toEqual({ ok: false, error: { code: 'INTERNAL', message: 'Unexpected error.' } });

    for (const answer of [JSON.stringify(body), JSON.stringify(direct.body), JSON.stringify(called.body)]) {
      expect(answer).not.toContain('secret');
      expect(answer).not.toContain('INTERNAL_SERVER_ERROR');
    }
    // Logged where it was masked, with the original error.
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({
        err: expect.objectContaining({ message: 'secret internals: provider bug' }),
      }),
      'unexpected error in GraphQL operation',
    );
    // Another symbol still answers: only the failure is masked.
    expect((await post(t, '/mcp/tools/search-by-symbol', { symbol: 'AAPL', depth: 'quick' })).status).toBe(
      200,
    );
  });
});

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/**
 * The tools agents expect beside the search tools (history, batch quotes, instrument search, SCAN
 * universes, the FK-DSL plan and metric catalogue), called as an agent calls them: through the MCP
 * SDK client (which checks every answer against the listed output schema) and POST /mcp/tools/<name>,
 * on the simulated market.
 */
describe('agent tools through MCP and REST', () => {
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        MARKET_DATA_PROVIDERS: 'simulated',
        RATE_LIMIT_MAX: '100000',
        WATCHDOG_SYMBOLS: 'AAPL,BTC/USDT',
        WATCHDOG_CORRELATION_PAIRS: 'AAPL:MSFT',
      },
    });
    client = new Client({ name: 'vigil-agent-tools-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  /** An MCP call that succeeded: its structured content, the same as its text. */
  const mcp = async (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
    const result: Json = await client.callTool({ name, arguments: args });
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
    return result.structuredContent;
  };
  /** An MCP call that failed as a tool result (the caller can correct itself). */
  const mcpFailure = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const result: Json = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result)).toBe(true);
    return result.content[0].text;
  };
  /** A call refused as malformed (JSON-RPC invalid params). */
  const mcpRefusal = async (name: string, args: Record<string, unknown>): Promise<McpError> => {
    try {
      await client.callTool({ name, arguments: args });
    } catch (error) {
      expect(error).toBeInstanceOf(McpError);
      return error as McpError;
    }
    throw new Error(`${name} accepted ${JSON.stringify(args)}`);
  };
  const rest = async (name: string, args: unknown): Promise<{ status: number; body: Json }> => {
    const response = await t.app.fetch(`/mcp/tools/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
    return { status: response.status, body: await response.json() };
  };

  it('lists the six tools with output schemas and read-only hints', async () => {
    const { tools } = await client.listTools();
    const names = [
      'get-price-history',
      'get-quotes',
      'search-instruments',
      'list-universes',
      'explain-fk-dsl',
      'list-fk-dsl-metrics',
    ];
    for (const name of names) {
      const tool = tools.find((x) => x.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.outputSchema?.type).toBe('object');
      expect(tool!.annotations).toMatchObject({ readOnlyHint: true });
      expect(tool!.description!.length).toBeGreaterThan(200);
    }
    const openapi: Json = await (await t.app.fetch('/openapi.json')).json();
    for (const name of names) expect(openapi.paths[`/mcp/tools/${name}`]?.post, name).toBeDefined();
  });

  it('get-price-history: pages of OHLCV bars, the next cursor passed back as received, as GraphQL has them', async () => {
    const range = {
      symbol: 'AAPL',
      interval: '1d',
      from: '2024-01-01T00:00:00Z',
      to: '2024-04-01T00:00:00Z',
    };
    const first = await mcp('get-price-history', { ...range, first: 20 });
    expect(first).toMatchObject({
      instrument: { symbol: 'AAPL', asset_class: 'equity', market: 'US' },
      interval: '1d',
      lineage: { provider: 'simulated', simulated: true },
    });
    expect(first.bars).toHaveLength(20);
    expect(Object.keys(first.bars[0]).sort()).toEqual(['close', 'high', 'low', 'open', 'time', 'volume']);
    expect(first.total_count).toBeGreaterThan(40);
    expect(first.next_cursor).toEqual(expect.any(String));

    const second = await mcp('get-price-history', { ...range, first: 20, after: first.next_cursor });
    expect(Date.parse(second.bars[0].time)).toBeGreaterThan(Date.parse(first.bars.at(-1).time));

    // Every page, walked to the end, is the whole range GraphQL answers.
    const walked = [...first.bars, ...second.bars];
    for (let cursor = second.next_cursor; cursor; ) {
      const page = await mcp('get-price-history', { ...range, first: 20, after: cursor });
      walked.push(...page.bars);
      cursor = page.next_cursor;
    }
    const { body } = await graphql<{ bars: Json }>(
      t.app,
      'query($from: DateTime, $to: DateTime) { bars(symbol: "AAPL", from: $from, to: $to, first: 1000) { nodes { time open high low close volume } } }',
      { from: range.from, to: range.to },
    );
    expect(walked).toEqual(body.data!.bars.nodes);

    const viaRest = await rest('get-price-history', { ...range, first: 20 });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.bars).toEqual(first.bars);
  });

  it('get-price-history: a lookback ends now; hourly bars; bad arguments are named', async () => {
    const recent = await mcp('get-price-history', {
      symbol: 'BTC',
      interval: '1h',
      lookback: '2d',
      first: 1000,
    });
    expect(recent.instrument).toMatchObject({ symbol: 'BTC/USDT', asset_class: 'crypto' });
    expect(Date.parse(recent.to) - Date.parse(recent.from)).toBe(2 * 86_400_000);
    expect(recent.bars.length).toBeGreaterThan(24);
    expect(recent.next_cursor).toBeNull();

    const interval = await mcpRefusal('get-price-history', { symbol: 'AAPL', interval: 'weekly' });
    expect(interval.message).toMatch(/interval/);
    const invalid = await rest('get-price-history', { symbol: 'AAPL', interval: 'weekly' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'interval' } });

    const both = { symbol: 'AAPL', from: '2024-01-01T00:00:00Z', lookback: '30d' };
    expect(await mcpFailure('get-price-history', both)).toMatch(/^BAD_USER_INPUT: lookback: /);
    const conflict = await rest('get-price-history', both);
    expect(conflict.status).toBe(400);
    expect(conflict.body.error.details.field).toBe('lookback');
    const malformed = await rest('get-price-history', { symbol: 'AAPL', lookback: '30 days' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'lookback' } });
    expect((await rest('get-price-history', { symbol: 'ZZZZ' })).body.error.code).toBe('UNKNOWN_SYMBOL');
  });

  it('get-quotes: one result per symbol in the order asked, an unknown one failing alone', async () => {
    const answer = await mcp('get-quotes', { symbols: ['AAPL', 'NOPE', 'btc', 'A$B'] });
    const [aapl, nope, btc, unreadable] = answer.quotes;
    expect(aapl).toMatchObject({
      requested: 'AAPL',
      instrument: { symbol: 'AAPL', asset_class: 'equity' },
      quote: { price: expect.any(Number), currency: 'USD' },
      lineage: { provider: 'simulated' },
      error: null,
    });
    expect(nope).toMatchObject({ requested: 'NOPE', quote: null, error: { code: 'UNKNOWN_SYMBOL' } });
    expect(btc).toMatchObject({
      instrument: { symbol: 'BTC/USDT' },
      quote: { currency: 'USDT' },
      error: null,
    });
    expect(unreadable).toMatchObject({ instrument: null, quote: null, error: { code: expect.any(String) } });
    expect(answer.failed).toBe(2);

    const viaRest = await rest('get-quotes', { symbols: ['AAPL', 'NOPE'] });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.quotes.map((q: Json) => q.error?.code ?? 'ok')).toEqual(['ok', 'UNKNOWN_SYMBOL']);

    const empty = await rest('get-quotes', { symbols: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.error.details.field).toBe('symbols');
    expect((await mcpRefusal('get-quotes', { symbols: 'AAPL' })).message).toMatch(/symbols/);
  });

  it('search-instruments: by name or symbol, best first', async () => {
    const apple = await mcp('search-instruments', { query: 'apple' });
    expect(apple.query).toBe('apple');
    expect(apple.instruments[0]).toMatchObject({ symbol: 'AAPL', asset_class: 'equity', name: 'Apple Inc.' });
    expect(apple.lineage.provider).toContain('simulated');
    const bySymbol = await rest('search-instruments', { query: 'MSF', first: 3 });
    expect(bySymbol.status).toBe(200);
    expect(bySymbol.body.instruments[0].symbol).toBe('MSFT');
    expect(bySymbol.body.instruments.length).toBeLessThanOrEqual(3);

    const tooMany = await rest('search-instruments', { query: 'a', first: 500 });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.error.details.field).toBe('first');
  });

  it('list-universes: the SCAN universes a scan reads, and what the watchdogs watch', async () => {
    const answer = await mcp('list-universes');
    expect(answer.scan_universes.map((u: Json) => u.name)).toEqual(['US', 'ETF', 'CRYPTO', 'ALL']);
    const us = answer.scan_universes[0];
    expect(us).toMatchObject({ source: 'providers', size: us.symbols.length });
    expect(us.symbols).toContain('AAPL');
    const crypto = answer.scan_universes[2];
    expect(crypto.symbols.every((s: string) => s.endsWith('/USDT'))).toBe(true);
    expect(answer.watchdogs).toEqual({
      symbols: ['AAPL', 'BTC/USDT'],
      correlation_pairs: [['AAPL', 'MSFT']],
    });

    // What it lists is what a scan reads.
    const scan = await mcp('execute-fk-dsl', { query: 'SCAN CRYPTO WHERE PRICE > 0' });
    expect(scan.result.statements[0].result.scanned).toBe(crypto.size);
    expect((await rest('list-universes', {})).body).toEqual(answer);
    const extra = await rest('list-universes', { universe: 'US' });
    expect(extra.status).toBe(422);
    expect(extra.body.error.message).toContain('universe');
  });

  it('explain-fk-dsl: the plan without running it; a syntax error says where', async () => {
    const answer = await mcp('explain-fk-dsl', {
      query: 'EVALUATE AAPL: PRICE, VOLATILITY(30d); CORRELATE BTC, ETH',
    });
    expect(answer.plans).toHaveLength(2);
    expect(answer.plans[0]).toMatchObject({ kind: 'evaluate', statement: expect.stringContaining('AAPL') });
    expect(answer.plans[0].fetches[0]).toMatchObject({ symbol: 'AAPL', asset_class: 'equity', quote: true });
    expect(answer.plans[0].fetches[0].daily_bars).toBeGreaterThan(0);
    expect(answer.plans[1].kind).toBe('correlate');
    expect((await rest('explain-fk-dsl', { query: 'EVALUATE AAPL: PRICE' })).body.plans[0]).toEqual(
      (await mcp('explain-fk-dsl', { query: 'EVALUATE AAPL: PRICE' })).plans[0],
    );

    expect(await mcpFailure('explain-fk-dsl', { query: 'EVALUATE' })).toMatch(/^FKDSL_SYNTAX_ERROR: line 1/);
    const missing = await rest('explain-fk-dsl', {});
    expect(missing.status).toBe(422);
    expect(missing.body.error.details.field).toBe('query');
  });

  it('list-fk-dsl-metrics: the catalogue with arguments, defaults and units', async () => {
    const answer = await mcp('list-fk-dsl-metrics');
    const volatility = answer.metrics.find((m: Json) => m.name === 'VOLATILITY');
    expect(volatility).toMatchObject({
      signature: 'VOLATILITY(window = 30d)',
      unit: 'percent',
      technical: false,
    });
    expect(answer.metrics.find((m: Json) => m.name === 'RSI')).toMatchObject({
      unit: 'number',
      technical: true,
    });
    expect(Object.keys(answer.units).sort()).toEqual(
      [...new Set(answer.metrics.map((m: Json) => m.unit))].sort(),
    );
    expect(answer.units.percent).toMatch(/percent/);
    const viaRest = await rest('list-fk-dsl-metrics', {});
    expect(viaRest.body).toEqual(answer);
    const extra = await rest('list-fk-dsl-metrics', { unit: 'percent' });
    expect(extra.status).toBe(422);
    expect(extra.body.error.message).toContain('unit');
  });
});

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { modules } from '../src/modules.ts';
import { checkTools, type Tool, type ToolDefinition } from '../src/platform/operations/tool.ts';
import { buildSchema } from '../src/schema.ts';
import { createTestApp, graphql, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const definitions = modules.flatMap((m) => m.tools ?? []);

/**
 * Arguments of the interface spec (and compatibility reference): name -> default (undefined: none),
 * spelled as the tools' answers spell them (snake_case). The reference spelled some in camelCase;
 * those are accepted as aliases (`EARLIER_SPELLINGS`).
 */
const DOCUMENTED_ARGUMENTS: Record<string, { required: string[]; defaults: Record<string, unknown> }> = {
  'search-by-symbol': {
    required: ['symbol'],
    defaults: { symbol: undefined, market: 'US', depth: 'standard', language: 'en', session_id: undefined },
  },
  'search-by-coin': {
    required: ['symbol'],
    defaults: {
      symbol: undefined,
      exchange: 'binance',
      pair: 'USDT',
      depth: 'standard',
      session_id: undefined,
    },
  },
  'execute-fk-dsl': {
    required: ['query'],
    defaults: { query: undefined, async: false, session_id: undefined },
  },
  'create-analysis-session': {
    required: ['assets', 'session_type'],
    defaults: {
      assets: undefined,
      session_type: undefined,
      user_id: undefined,
      ttl_hours: undefined,
      tags: undefined,
    },
  },
  'get-session-info': { required: ['session_id'], defaults: { session_id: undefined, recent_queries: 10 } },
  'list-sessions': {
    required: [],
    defaults: { user_id: undefined, include_archived: false, limit: 50, cursor: undefined },
  },
  'extend-session': { required: ['session_id'], defaults: { session_id: undefined, hours: 24 } },
  'get-session-analytics': {
    required: [],
    defaults: { user_id: undefined, session_type: undefined, days: 30 },
  },
  'get-task-status': { required: ['task_id'], defaults: { task_id: undefined } },
};

/** The camelCase names the tools documented before they took snake_case: each still accepted. */
const EARLIER_SPELLINGS: Record<string, Record<string, string>> = {
  'search-by-symbol': { sessionId: 'session_id' },
  'search-by-coin': { sessionId: 'session_id' },
  'execute-fk-dsl': { sessionId: 'session_id' },
  'get-task-status': { taskId: 'task_id' },
  'create-analysis-session': { sessionType: 'session_type', userId: 'user_id', ttlHours: 'ttl_hours' },
  'get-session-info': { sessionId: 'session_id', recentQueries: 'recent_queries' },
  'list-sessions': { userId: 'user_id', includeArchived: 'include_archived' },
  'extend-session': { sessionId: 'session_id' },
  'get-session-analytics': { userId: 'user_id', sessionType: 'session_type' },
  'update-session-context': { sessionId: 'session_id' },
  'store-session-result': { sessionId: 'session_id' },
  'get-session-result': { sessionId: 'session_id' },
  'archive-session': { sessionId: 'session_id' },
  'get-watchdog-events': { eventTypes: 'event_types' },
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  additionalProperties?: unknown;
  default?: unknown;
  enum?: unknown[];
};

/** Paths in `value` that the JSON schema does not declare (the output schema must describe every key). */
function undeclared(value: unknown, schema: JsonSchema, path = '$'): string[] {
  if (value === null || typeof value !== 'object') return [];
  if (schema.anyOf) return schema.anyOf.flatMap((s) => (s.type === 'null' ? [] : undeclared(value, s, path)));
  if (Array.isArray(value))
    return value.flatMap((v, i) => (schema.items ? undeclared(v, schema.items, `${path}[${i}]`) : []));
  if (!schema.properties) return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const declared = schema.properties![key];
    return declared ? undeclared(v, declared, `${path}.${key}`) : [`${path}.${key}`];
  });
}

/** The wire value matches the tool's output schema exactly: it parses, and no key is undeclared. */
function expectWireShape(tool: Tool, value: unknown): void {
  const schema = tool.definition.outputSchema;
  const parsed = schema.safeParse(value);
  expect(parsed.success, parsed.error?.message).toBe(true);
  expect(undeclared(value, z.toJSONSchema(schema) as JsonSchema)).toEqual([]);
}

describe('tool definitions', () => {
  const tools = checkTools(buildSchema(), definitions);
  const byName = (name: string) => tools.find((t) => t.name === name)!;

  it('every module tool compiles against the schema', () => {
    expect(tools.length).toBe(definitions.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(tool.definition.title).toBeTruthy();
      expect(tool.definition.description.length).toBeGreaterThan(40);
      expect(tool.definition.annotations).toBeDefined();
    }
  });

  it('has the data tools of the interface spec', () => {
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(Object.keys(DOCUMENTED_ARGUMENTS)));
  });

  it.each(Object.entries(DOCUMENTED_ARGUMENTS))(
    '%s takes the documented arguments with their defaults',
    (name, spec) => {
      const input = z.toJSONSchema(byName(name).inputSchema, { io: 'input' }) as JsonSchema;
      expect(input.type).toBe('object');
      expect(Object.keys(input.properties ?? {}).sort()).toEqual(Object.keys(spec.defaults).sort());
      expect((input.required ?? []).sort()).toEqual(spec.required);
      for (const [argument, fallback] of Object.entries(spec.defaults)) {
        expect(input.properties![argument]!.default, `${name}.${argument}`).toEqual(fallback);
      }
    },
  );

  it('lists every argument of every tool in snake_case, as the answers spell their keys', () => {
    for (const tool of tools) {
      const input = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as JsonSchema;
      for (const argument of Object.keys(input.properties ?? {})) {
        expect(argument, `${tool.name}.${argument}`).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      }
    }
  });

  it('accepts each earlier camelCase spelling as an alias of the snake_case argument', () => {
    for (const [name, spellings] of Object.entries(EARLIER_SPELLINGS)) {
      expect(Object.fromEntries(byName(name).aliases), name).toEqual(spellings);
    }
    // Tools whose arguments were always snake_case have no alias (alert_id was never alertId).
    expect(byName('create-alert').aliases.size).toBe(0);
  });

  it('takes every id under the key some tool answers it by', () => {
    const answered = new Set<string>();
    const collect = (schema: unknown): void => {
      if (Array.isArray(schema)) schema.forEach(collect);
      else if (schema && typeof schema === 'object') {
        for (const [key, value] of Object.entries(schema)) {
          if (key === 'properties') for (const name of Object.keys(value as object)) answered.add(name);
          collect(value);
        }
      }
    };
    for (const tool of tools) collect(z.toJSONSchema(tool.definition.outputSchema));
    const ids = tools.flatMap((tool) =>
      Object.keys(tool.inputSchema.shape)
        .filter((argument) => argument.endsWith('_id'))
        .map((argument) => [tool.name, argument] as const),
    );
    expect(ids.length).toBeGreaterThan(10);
    for (const [name, argument] of ids) expect(answered.has(argument), `${name}.${argument}`).toBe(true);
  });

  it.each(['search-by-symbol', 'search-by-coin'])('%s takes the wire depth values', (name) => {
    const input = z.toJSONSchema(byName(name).inputSchema, { io: 'input' }) as JsonSchema;
    expect(input.properties!.depth!.enum).toEqual(['quick', 'standard', 'deep']);
  });

  it.each(definitions.map((d) => [d.name, d] as const))(
    '%s has an object output schema',
    (_name, definition) => {
      const output = z.toJSONSchema(definition.outputSchema) as JsonSchema;
      expect(output.type).toBe('object');
      expect(Object.keys(output.properties ?? {}).length).toBeGreaterThan(0);
    },
  );

  it('says which tool has a document that does not match the schema', () => {
    const broken: ToolDefinition<never> = {
      name: 'broken-tool',
      title: 'Broken',
      description: 'Selects a field that does not exist.',
      document: 'query Broken($symbol: String!) { searchBySymbol(symbol: $symbol) { symbol noSuchField } }',
      result: () => ({}),
      outputSchema: z.object({}),
    };
    expect(() => checkTools(buildSchema(), [...definitions, broken])).toThrow(
      /tool broken-tool: .*noSuchField/,
    );
  });
});

describe('tools end to end on the simulated market', () => {
  let t: TestApp;
  const tool = (name: string) => t.app.tools.find((x) => x.name === name)!;
  const call = async (name: string, args: unknown): Promise<Json> => tool(name).call(args, {});
  const value = async (name: string, args: unknown): Promise<Json> => {
    const outcome = await call(name, args);
    if (!outcome.ok) throw new Error(`${name}: ${JSON.stringify(outcome.error)}`);
    expectWireShape(tool(name), outcome.value);
    return outcome.value;
  };

  beforeAll(async () => {
    // Started (jobs running) so that async FK-DSL tasks are executed.
    t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '1000' } });
  });
  afterAll(async () => t?.close());

  it('search-by-symbol answers with the values of GraphQL searchBySymbol, at depth standard by default', async () => {
    const r = await value('search-by-symbol', { symbol: 'AAPL' });
    const { body } = await graphql<{ searchBySymbol: Json }>(
      t.app,
      `{ searchBySymbol(symbol: "AAPL") { name exchange market currency quote { price change changePercent asOf }
         fundamentals { marketCap } lineage { used agreement retrievedAt simulated } } }`,
    );
    expect(body.errors).toBeUndefined();
    const g = body.data!.searchBySymbol;
    expect(r).toMatchObject({
      symbol: 'AAPL',
      name: g.name,
      exchange: g.exchange,
      market: 'US',
      currency: g.currency,
      depth: 'standard',
      language: 'en',
      asset_class: 'equity',
      simulated: true,
      session_id: null,
      technicals: null,
      history: null,
      cached: {
        price: g.quote.price,
        change: g.quote.change,
        change_percent: g.quote.changePercent,
        as_of: g.quote.asOf,
        confidence: g.lineage.agreement,
        source: g.lineage.used.join(', '),
      },
      structural_data: { market_cap: g.fundamentals.marketCap },
      data_lineage: { providers: g.lineage.used, source_count: g.lineage.used.length, simulated: true },
    });
    expect(r.name).toBeTruthy();
    expect(r.cached.ttl).toBeGreaterThan(0);
    expect(r.task).toMatch(/^search-by-symbol at depth standard/);
  });

  it('search-by-symbol at depth deep carries technicals and history; quick has no statistics', async () => {
    const deep = await value('search-by-symbol', { symbol: 'MSFT', depth: 'deep' });
    expect(deep.depth).toBe('deep');
    expect(deep.technicals.rsi_14).toBeGreaterThan(0);
    expect(deep.history).toHaveLength(30);
    const quick = await value('search-by-symbol', { symbol: 'MSFT', depth: 'quick' });
    expect(quick).toMatchObject({ depth: 'quick', structural_data: null, technicals: null, history: null });
  });

  it('keeps the wire values lower-case where GraphQL spells the same values in UPPER_CASE', async () => {
    const wire = await value('search-by-symbol', { symbol: 'SPY', depth: 'deep' });
    const definition = tool('search-by-symbol').definition;
    const { body } = await graphql<{ searchBySymbol: Json }>(t.app, definition.document, {
      symbol: 'SPY',
      depth: 'DEEP',
    });
    expect(body.errors).toBeUndefined();
    const g = body.data!.searchBySymbol;
    expect(g.depth).toBe('DEEP');
    expect(wire.depth).toBe('deep');
    expect(wire.asset_class).toBe(g.assetClass.toLowerCase());
    expect(wire.cached.market_state).toBe(g.quote.marketState.toLowerCase());
    expect(wire.technicals.trend).toBe(g.technicals.trend.toLowerCase());
    // The simulated profile lacks nothing, so nothing is computed there: map the names on that answer.
    const computed = ['AVERAGE_VOLUME', 'WEEK52_HIGH', 'WEEK52_LOW', 'BETA'];
    const data = { searchBySymbol: { ...g, fundamentals: { ...g.fundamentals, computed } } };
    const mapped = definition.result(data as never, {}) as Json;
    expect(mapped.structural_data.computed_fields).toEqual([
      'avg_volume',
      'week_52_high',
      'week_52_low',
      'beta',
    ]);
  });

  it('search-by-coin answers with 24 h statistics and, at depth deep, book and funding', async () => {
    const r = await value('search-by-coin', { symbol: 'BTC', depth: 'deep' });
    expect(r).toMatchObject({
      symbol: 'BTC/USDT',
      base: 'BTC',
      pair: 'USDT',
      exchange: 'binance',
      depth: 'deep',
    });
    expect(r.market.high_24h).toBeGreaterThanOrEqual(r.market.low_24h);
    expect(r.order_book.best_ask).toBeGreaterThan(r.order_book.best_bid);
    expect(r.cached.price).toBeGreaterThan(0);
    const standard = await value('search-by-coin', { symbol: 'eth' });
    expect(standard).toMatchObject({ depth: 'standard', order_book: null, funding: null });
    expect(standard.market).not.toBeNull();
  });

  it('refuses invalid arguments by name, before running anything', async () => {
    const bad = await call('search-by-symbol', { symbol: 'AAPL', depth: 'ultra' });
    expect(bad).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS', details: { field: 'depth' } },
    });
    expect(bad.error.message).toMatch(/^depth: /);
    const missing = await call('search-by-symbol', {});
    expect(missing).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS', details: { field: 'symbol' } },
    });
    const extra = await call('search-by-coin', { symbol: 'BTC', colour: 'red' });
    expect(extra).toMatchObject({ ok: false, error: { code: 'INVALID_ARGUMENTS' } });
    expect(extra.error.message).toMatch(/colour/);
  });

  it('reports an unknown symbol with its code', async () => {
    expect(await call('search-by-symbol', { symbol: 'ZZZZ' })).toMatchObject({
      ok: false,
      error: { code: 'UNKNOWN_SYMBOL' },
    });
  });

  it('execute-fk-dsl waits for the result by default', async () => {
    const r = await value('execute-fk-dsl', { query: 'EVALUATE AAPL: PRICE' });
    expect(r).toMatchObject({ query: expect.any(String), status: 'completed', result: { errors: 0 } });
    expect(r.task_id).toBeUndefined();
    const [statement] = r.result.statements;
    expect(statement).toMatchObject({ index: 0, kind: 'evaluate', error: null });
    const price = statement.result.asset.metrics.find((m: Json) => m.metric === 'PRICE');
    expect(typeof price.value).toBe('number');
    expect(price.value).toBeGreaterThan(0);
    expect(r.result.elapsed_ms).toBeGreaterThanOrEqual(0);
    expect(Object.keys(r.result.conventions).length).toBeGreaterThan(0);
  });

  it('execute-fk-dsl with async returns a task that get-task-status follows to completion', async () => {
    const submitted = await value('execute-fk-dsl', { query: 'EVALUATE MSFT: PRICE', async: true });
    expect(submitted).toMatchObject({
      task_id: expect.any(String),
      status: expect.stringMatching(/queued|running/),
    });
    expect(submitted.result).toBeUndefined();
    const done = await vi.waitFor(
      async () => {
        const task = await value('get-task-status', { taskId: submitted.task_id });
        expect(task.status).toBe('completed');
        return task;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(done).toMatchObject({ task_id: submitted.task_id, error: null, result: { errors: 0 } });
    expect(done.result.statements[0].result.asset.metrics[0].metric).toBe('PRICE');
    expect(Date.parse(done.finished_at)).toBeGreaterThanOrEqual(Date.parse(done.started_at));
  });

  it('get-task-status reports an unknown task by its code', async () => {
    const r = await call('get-task-status', { taskId: '00000000-0000-4000-8000-000000000000' });
    expect(r).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});

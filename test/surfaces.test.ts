import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Scheduler, systemClock } from '../src/platform/clock.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { BUNDLE } from './support/bundle.ts';
import { createTestDatabase, type TestDatabase } from './support/databases.ts';
import { ManualClock } from './support/manual-clock.ts';

/**
 * The same use cases through every surface: GraphQL (POST /graphql), MCP over Streamable HTTP, MCP
 * over stdio (a separate `src/mcp-stdio.ts` process), and both REST tool routes. GraphQL is the
 * source of truth; every other surface runs the same operation in-process and must answer the
 * same values and the same errors.
 *
 * Determinism. The simulated market is a pure function of (seed, instant). The in-process surfaces
 * share one app whose clock stands still at INSTANT (a Wednesday, 11:00 in New York: the regular
 * session), so every one of them sees exactly the same market and is compared with exact equality.
 * The stdio process runs on real time in another process, so its answers are split three ways:
 * - `stable`: what does not depend on the instant (name, exchange, sector, currency, providers,
 *   statement texts, units, error codes, messages and details), compared exactly with GraphQL on
 *   the frozen app;
 * - `exact`: the quote itself (price, change, as_of, ...). A quote is reproducible from its own
 *   `as_of` (the instant the provider was asked while a market trades, the session end once it is
 *   shut, and a shut session's quote does not move), so GraphQL runs the same case again on a
 *   "replay" app whose clock is pinned at the stdio answer's `as_of`, and the two must be equal.
 *   This is exact, where a GraphQL call "right after" on a real-clock app could only be close;
 * - `near`: values the stdio process computed from another fetch than its quote (the profile's
 *   market cap and P/E, the rolling 24 h range, indicators over daily bars whose last bar closes
 *   at its own fetch instant), whose instant no answer reveals and which the stdio process may
 *   serve from its cache (quotes 2-5 s, bars up to a minute while the market trades). They are
 *   compared with the replay within the move possible in that time (NEAR, relative).
 * A frozen clock stops price ticks, so subscriptions run on a third app on the real clock.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const INSTANT = Date.parse('2025-06-11T15:00:00Z');
/** The market every app and the stdio process run (set explicitly: the stdio process reads its environment). */
const MARKET_ENV = { MARKET_DATA_PROVIDERS: 'simulated', SIMULATED_SEED: 'vigil', SIMULATED_TICK_MS: '100' };
const APP_ENV = { ...MARKET_ENV, RATE_LIMIT_MAX: '100000' };
/** Relative tolerance of `near` values (see above): a few seconds to a minute of simulated trading. */
const NEAR = 0.01;
const WAIT_MS = 15_000;

// ---- normalised outcomes --------------------------------------------------------------------------

type Outcome =
  | { readonly ok: true; readonly value: Json }
  | {
      readonly ok: false;
      /** The error code (GraphQL `extensions.code`, REST `error.code`, MCP text prefix or `data.code`). */
      readonly code: string | undefined;
      readonly message: string;
      readonly details: Json;
      /** HTTP status (REST; GraphQL when the request itself is refused). */
      readonly status?: number;
      /** JSON-RPC error code (MCP protocol errors). */
      readonly rpc?: number;
      /** MCP: a tool result with `isError: true`. */
      readonly isError?: boolean;
    };

/**
 * One operation, as GraphQL spells it and as a tool spells it, each mapped to one comparable shape
 * (`fromGraphql` and `fromWire` follow the mapping of tool-wire.ts / fk-dsl.tools.ts).
 */
interface Call {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  readonly query: string;
  readonly variables: Record<string, unknown>;
  readonly fromGraphql: (data: Json) => Json;
  readonly fromWire: (wire: Json) => Json;
}

type Run = (call: Call) => Promise<Outcome>;

interface Surface {
  readonly name: string;
  readonly kind: 'graphql' | 'mcp' | 'rest';
  /** Runs on real time in another process: compared through `parts` and the replay app. */
  readonly realTime?: boolean;
  readonly run: Run;
}

// ---- the adapters ---------------------------------------------------------------------------------

function graphql(base: () => string): Run {
  return async (call) => {
    const response = await fetch(`${base()}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: call.query, variables: call.variables }),
    });
    const body: Json = await response.json();
    if (body.errors?.length) {
      const { code, ...details } = body.errors[0].extensions ?? {};
      return { ok: false, code, message: body.errors[0].message, details, status: response.status };
    }
    expect(response.status).toBe(200);
    return { ok: true, value: call.fromGraphql(body.data) };
  };
}

/** `CODE: message` and, when the error has details, a last line `{"details": ...}` (mcp-server.ts). */
function toolErrorText(text: string): Outcome {
  const match = /^([A-Z][A-Z0-9_]*): ([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`not a tool error text: ${text}`);
  let message = match[2]!;
  let details: Json = {};
  const at = message.lastIndexOf('\n{"details":');
  if (at >= 0) {
    details = JSON.parse(message.slice(at + 1)).details;
    message = message.slice(0, at);
  }
  return { ok: false, code: match[1], message, details, isError: true };
}

function mcp(client: () => Client): Run {
  return async (call) => {
    let result: Json;
    try {
      result = await client().callTool({ name: call.tool, arguments: call.args });
    } catch (error) {
      if (!(error instanceof McpError)) throw error;
      const data = (error.data ?? {}) as Json;
      return { ok: false, code: data.code, message: error.message, details: data.details, rpc: error.code };
    }
    if (result.isError) return toolErrorText(result.content[0].text);
    expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
    return { ok: true, value: call.fromWire(result.structuredContent) };
  };
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

function restError(answer: { status: number; body: Json }): Outcome {
  const { code, message, details } = answer.body.error;
  expect(answer.body.detail).toBe(message);
  return { ok: false, code, message, details: details ?? {}, status: answer.status };
}

/** POST /mcp/tools/{name} with the arguments as the body. */
function restNamed(base: () => string): Run {
  return async (call) => {
    const answer = await postJson(`${base()}/mcp/tools/${call.tool}`, call.args);
    if (answer.status !== 200) return restError(answer);
    return { ok: true, value: call.fromWire(answer.body) };
  };
}

/** POST /mcp/tools/call with `{name, arguments}`. */
function restCall(base: () => string): Run {
  return async (call) => {
    const answer = await postJson(`${base()}/mcp/tools/call`, { name: call.tool, arguments: call.args });
    if (answer.status !== 200) {
      expect(answer.body.isError).toBe(true);
      expect(answer.body.content).toEqual([{ type: 'text', text: answer.body.error.message }]);
      return restError(answer);
    }
    expect(answer.body.isError).toBe(false);
    expect(answer.body.content).toEqual([
      { type: 'text', text: JSON.stringify(answer.body.structuredContent) },
    ]);
    return { ok: true, value: call.fromWire(answer.body.structuredContent) };
  };
}

// ---- the calls ------------------------------------------------------------------------------------

const SYMBOL_QUERY = /* GraphQL */ `
  query ($symbol: String!, $depth: SearchDepth) {
    searchBySymbol(symbol: $symbol, depth: $depth) {
      symbol name exchange currency
      quote { price change changePercent asOf }
      lineage { used }
      fundamentals { marketCap peRatio sector }
    }
  }`;

function searchBySymbol(symbol: string, depth?: string): Call {
  return {
    tool: 'search-by-symbol',
    args: { symbol, ...(depth ? { depth } : {}) },
    query: SYMBOL_QUERY,
    // GraphQL spells the depth in UPPER_CASE; the tools keep the wire's lower case.
    variables: { symbol, ...(depth ? { depth: depth.toUpperCase() } : {}) },
    fromGraphql: ({ searchBySymbol: d }) => ({
      symbol: d.symbol,
      name: d.name,
      exchange: d.exchange,
      currency: d.currency,
      sector: d.fundamentals?.sector ?? null,
      providers: d.lineage.used,
      price: d.quote.price,
      change: d.quote.change,
      change_percent: d.quote.changePercent,
      as_of: d.quote.asOf,
      market_cap: d.fundamentals?.marketCap ?? null,
      pe_ratio: d.fundamentals?.peRatio ?? null,
    }),
    fromWire: (w) => ({
      symbol: w.symbol,
      name: w.name,
      exchange: w.exchange,
      currency: w.currency,
      sector: w.structural_data?.sector ?? null,
      providers: w.data_lineage.providers,
      price: w.cached.price,
      change: w.cached.change,
      change_percent: w.cached.change_percent,
      as_of: w.cached.as_of,
      market_cap: w.structural_data?.market_cap ?? null,
      pe_ratio: w.structural_data?.pe_ratio ?? null,
    }),
  };
}

function searchByCoin(symbol: string): Call {
  return {
    tool: 'search-by-coin',
    args: { symbol },
    query: /* GraphQL */ `
      query ($symbol: String!) {
        searchByCoin(symbol: $symbol) {
          symbol base pair name exchange
          quote { price change changePercent currency asOf }
          lineage { used }
          market { high24h low24h }
        }
      }`,
    variables: { symbol },
    fromGraphql: ({ searchByCoin: d }) => ({
      symbol: d.symbol,
      base: d.base,
      pair: d.pair,
      name: d.name,
      exchange: d.exchange,
      currency: d.quote.currency,
      providers: d.lineage.used,
      price: d.quote.price,
      change: d.quote.change,
      change_percent: d.quote.changePercent,
      as_of: d.quote.asOf,
      high_24h: d.market?.high24h ?? null,
      low_24h: d.market?.low24h ?? null,
    }),
    fromWire: (w) => ({
      symbol: w.symbol,
      base: w.base,
      pair: w.pair,
      name: w.name,
      exchange: w.exchange,
      currency: w.currency,
      providers: w.data_lineage.providers,
      price: w.cached.price,
      change: w.cached.change,
      change_percent: w.cached.change_percent,
      as_of: w.cached.as_of,
      high_24h: w.market?.high_24h ?? null,
      low_24h: w.market?.low_24h ?? null,
    }),
  };
}

// GraphQL's statement `resultJson` is the result as JSON, the shape the tools' `result` keeps.
const EXECUTION_FIELDS =
  'query status errors conventions statements { index kind statement resultJson error { code message } }';

/**
 * Drops `cacheHit` (anywhere): whether an answer came from the cache depends on which surface asked
 * first, not on the operation.
 */
function withoutCacheState(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutCacheState);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'cacheHit')
      .map(([key, v]) => [key, withoutCacheState(v)]),
  );
}

/**
 * An FK-DSL run as comparable values (everything but the elapsed time and the cache state). GraphQL
 * spells enum values in UPPER_CASE where the wire keeps lower case.
 */
function execution(run: {
  query: string;
  status: string;
  errors: number;
  conventions: Json;
  statements: Json[];
}) {
  return {
    query: run.query,
    status: run.status.toLowerCase(),
    errors: run.errors,
    conventions: run.conventions,
    statements: run.statements.map((s) => ({
      index: s.index,
      kind: s.kind.toLowerCase(),
      statement: s.statement,
      result: withoutCacheState('resultJson' in s ? s.resultJson : s.result),
      error: s.error,
    })),
  };
}

function executeFkDsl(query: string): Call {
  return {
    tool: 'execute-fk-dsl',
    args: { query },
    query: `query ($q: String!) { executeFkDsl(query: $q) { ${EXECUTION_FIELDS} } }`,
    variables: { q: query },
    fromGraphql: (d) => execution(d.executeFkDsl),
    fromWire: (w) => {
      expect(w.status).toBe('completed');
      expect(w.result.elapsed_ms).toEqual(expect.any(Number));
      return execution({ ...w.result, query: w.query, status: w.status });
    },
  };
}

/** Starts a background run: the comparable is the task id and its first status. */
function submitFkDsl(query: string): Call {
  return {
    tool: 'execute-fk-dsl',
    args: { query, async: true },
    query: 'mutation ($q: String!) { submitFkDsl(query: $q) { taskId status query } }',
    variables: { q: query },
    fromGraphql: ({ submitFkDsl: t }) => ({
      task_id: t.taskId,
      status: t.status.toLowerCase(),
      query: t.query,
    }),
    fromWire: (w) => ({ task_id: w.task_id, status: w.status, query: w.query }),
  };
}

function taskStatus(taskId: string): Call {
  return {
    tool: 'get-task-status',
    args: { taskId },
    query: `query ($id: ID!) { fkDslTask(taskId: $id) { status error { code } result { ${EXECUTION_FIELDS} } } }`,
    variables: { id: taskId },
    fromGraphql: ({ fkDslTask: t }) => ({
      status: t.status.toLowerCase(),
      error: t.error,
      result: t.result && execution(t.result),
    }),
    fromWire: (w) => ({
      status: w.status,
      error: w.error,
      result: w.result && execution({ ...w.result, query: w.query, status: w.status }),
    }),
  };
}

// ---- the use cases --------------------------------------------------------------------------------

/** A comparable split for the real-time surface (see the top of the file). */
interface Parts {
  readonly stable: Json;
  readonly exact: Json;
  readonly near: Record<string, number | null>;
  /** The instant to replay: the `as_of` of the quote in the answer. */
  readonly instant: string;
}

const pick = (value: Json, keys: readonly string[]) => Object.fromEntries(keys.map((k) => [k, value[k]]));

function flatParts(stable: string[], exact: string[], near: string[]): (value: Json) => Parts {
  return (value) => ({
    stable: pick(value, stable),
    exact: pick(value, exact),
    near: pick(value, near),
    instant: value.as_of,
  });
}

const QUOTE_KEYS = ['price', 'change', 'change_percent', 'as_of'];
const symbolParts = flatParts(['symbol', 'name', 'exchange', 'currency', 'sector', 'providers'], QUOTE_KEYS, [
  'market_cap',
  'pe_ratio',
]);
const coinParts = flatParts(
  ['symbol', 'base', 'pair', 'name', 'exchange', 'currency', 'providers'],
  QUOTE_KEYS,
  ['high_24h', 'low_24h'],
);

/** FK-DSL: texts, units and windows are stable; PRICE is the quote (exact); bar metrics are near. */
function executionParts(run: Json): Parts {
  const metrics = (s: Json) => s.result?.asset?.metrics ?? [];
  const price = run.statements.flatMap(metrics).find((m: Json) => m.metric === 'PRICE');
  const near: Record<string, number | null> = {};
  for (const s of run.statements) {
    for (const m of metrics(s)) {
      if (m.metric === 'PRICE') continue;
      if (typeof m.value === 'number' || m.value === null) near[`${s.index}:${m.metric}`] = m.value;
      else for (const [k, v] of Object.entries(m.value)) near[`${s.index}:${m.metric}.${k}`] = v as number;
    }
  }
  return {
    stable: {
      ...run,
      statements: run.statements.map((s: Json) => ({
        index: s.index,
        kind: s.kind,
        statement: s.statement,
        error: s.error,
        symbol: s.result?.asset?.symbol,
        metrics: metrics(s).map((m: Json) => ({ metric: m.metric, unit: m.unit, window: m.window })),
      })),
    },
    // The bar metrics' asOf is the day of the last bar: the replay's, at the same instant.
    exact: { price, days: run.statements.flatMap(metrics).map((m: Json) => m.asOf?.slice(0, 10)) },
    near,
    instant: price.asOf,
  };
}

type Expected =
  | { readonly ok: true }
  /** A domain error: the same code, message and details on every surface. */
  | { readonly code: string; readonly rest: number; readonly details?: Json }
  /** Arguments the input schema refuses, naming `field`. */
  | { readonly invalidArgument: string };

interface UseCase {
  readonly name: string;
  readonly call: Call;
  readonly expected: Expected;
  readonly parts?: (value: Json) => Parts;
  /** A background run: the task is polled through the same surface until it is done. */
  readonly background?: true;
}

const FKDSL_QUERY = 'EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI)';

const cases: UseCase[] = [
  { name: 'search-by-symbol AAPL', call: searchBySymbol('AAPL'), expected: { ok: true }, parts: symbolParts },
  {
    name: 'search-by-symbol AAPL depth quick',
    call: searchBySymbol('AAPL', 'quick'),
    expected: { ok: true },
    parts: symbolParts,
  },
  { name: 'search-by-coin BTC', call: searchByCoin('BTC'), expected: { ok: true }, parts: coinParts },
  {
    name: 'execute-fk-dsl (waits)',
    call: executeFkDsl(FKDSL_QUERY),
    expected: { ok: true },
    parts: executionParts,
  },
  {
    name: 'execute-fk-dsl async + get-task-status',
    call: submitFkDsl(FKDSL_QUERY),
    expected: { ok: true },
    parts: executionParts,
    background: true,
  },
  {
    name: 'unknown symbol',
    call: searchBySymbol('ZZZZQQ'),
    expected: { code: 'UNKNOWN_SYMBOL', rest: 404, details: { symbol: 'ZZZZQQ' } },
  },
  {
    name: 'invalid argument (depth "huge")',
    call: searchBySymbol('AAPL', 'huge'),
    expected: { invalidArgument: 'depth' },
  },
  {
    name: 'FK-DSL syntax error',
    call: executeFkDsl('EVALUATE AAPL PRICE'),
    expected: { code: 'FKDSL_SYNTAX_ERROR', rest: 400, details: { line: 1, column: 15 } },
  },
];

// ---- apps, clients, the stdio process -------------------------------------------------------------

/** A clock pinned at whatever instant the replay asks for; real timers. */
const replayClock: Scheduler & { at: number } = {
  at: INSTANT,
  now() {
    return new Date(this.at);
  },
  setTimeout: systemClock.setTimeout,
  clearTimeout: systemClock.clearTimeout,
};

let frozen: TestApp;
let replay: TestApp;
let live: TestApp;
let stdioData: TestDatabase;
const clients: Client[] = [];
let httpClient: Client;
let stdioClient: Client;
let stdioStderr = '';

async function connectHttp(url: string): Promise<Client> {
  const client = new Client({ name: 'vigil-surfaces', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  clients.push(client);
  return client;
}

async function connectStdio(dataDir: string): Promise<Client> {
  // Only these variables (plus the SDK's PATH, HOME, ...): no DATABASE_URL, no provider keys, the
  // same market as the apps. DATA_DIR is a fresh temporary copy of the migrated test template.
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUNDLE.mcpStdio],
    cwd: ROOT,
    env: { ...MARKET_ENV, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent', NODE_ENV: 'test' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (chunk) => {
    stdioStderr += String(chunk);
  });
  const client = new Client({ name: 'vigil-surfaces-stdio', version: '1.0.0' });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`the stdio server did not start: ${String(error)}\n${stdioStderr}`);
  }
  clients.push(client);
  return client;
}

const surfaces: Surface[] = [
  { name: 'graphql', kind: 'graphql', run: graphql(() => frozen.url) },
  { name: 'mcp http', kind: 'mcp', run: mcp(() => httpClient) },
  { name: 'mcp stdio', kind: 'mcp', realTime: true, run: mcp(() => stdioClient) },
  { name: 'rest /mcp/tools/{name}', kind: 'rest', run: restNamed(() => frozen.url) },
  { name: 'rest /mcp/tools/call', kind: 'rest', run: restCall(() => frozen.url) },
];

/** GraphQL on the replay app, its clock pinned at `instant`. */
async function replayAt(instant: string, call: Call): Promise<Json> {
  replayClock.at = Date.parse(instant);
  const outcome = await graphql(() => replay.url)(call);
  if (!outcome.ok) throw new Error(`replay failed: ${outcome.code} ${outcome.message}`);
  return outcome.value;
}

/** Runs a use case on a surface; a background run is polled (bounded) through the same surface. */
async function runCase(surface: Surface, useCase: UseCase): Promise<Outcome> {
  const first = await surface.run(useCase.call);
  if (!useCase.background || !first.ok) return first;
  expect(first.value).toEqual({
    task_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
    // Queued when submitted, unless a worker already took it between the commit and the answer.
    status: expect.stringMatching(/^(queued|running)$/),
    query: FKDSL_QUERY,
  });
  return vi.waitFor(
    async () => {
      const polled = await surface.run(taskStatus(first.value.task_id));
      if (!polled.ok) throw new Error(`${polled.code}: ${polled.message}`);
      expect(polled.value.status).toBe('completed');
      expect(polled.value.error).toBeNull();
      return { ok: true, value: polled.value.result } as Outcome;
    },
    { timeout: WAIT_MS, interval: 100 },
  );
}

/** What a use case must give: GraphQL's answer on the frozen app (the same call waiting, for a background run). */
const references = new Map<string, Promise<Outcome>>();
function reference(useCase: UseCase): Promise<Outcome> {
  const call = useCase.background ? executeFkDsl(FKDSL_QUERY) : useCase.call;
  let answer = references.get(useCase.name);
  if (!answer) {
    answer = graphql(() => frozen.url)(call);
    references.set(useCase.name, answer);
  }
  return answer;
}

function expectNear(actual: Record<string, number | null>, expected: Record<string, number | null>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const [key, want] of Object.entries(expected)) {
    const got = actual[key];
    if (want === null || got === null) expect(got, key).toBe(want);
    else expect(Math.abs(got! - want) <= NEAR * Math.abs(want), `${key}: ${got} vs ${want}`).toBe(true);
  }
}

beforeAll(async () => {
  [frozen, replay, live, stdioData] = await Promise.all([
    createTestApp({ listen: true, env: APP_ENV, overrides: { clock: new ManualClock(INSTANT) } }),
    createTestApp({ listen: true, env: APP_ENV, overrides: { clock: replayClock } }),
    createTestApp({ listen: true, env: APP_ENV }),
    createTestDatabase('pglite'),
  ]);
  [httpClient, stdioClient] = await Promise.all([connectHttp(frozen.url), connectStdio(stdioData.dataDir)]);
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await Promise.all([frozen?.close(), replay?.close(), live?.close()]);
  await stdioData?.cleanup();
});

describe.each(cases)('$name', (useCase) => {
  it.each(surfaces)('$name', async (surface) => {
    const expected = useCase.expected;
    const ref = await reference(useCase);
    const got = await runCase(surface, useCase);

    if ('ok' in expected) {
      expect(ref.ok, JSON.stringify(ref)).toBe(true);
      expect(got.ok, JSON.stringify(got)).toBe(true);
      if (!ref.ok || !got.ok) return;
      if (!surface.realTime) {
        expect(got.value).toEqual(ref.value);
        return;
      }
      const parts = useCase.parts!;
      const mine = parts(got.value);
      expect(mine.stable).toEqual(parts(ref.value).stable);
      const replayCall = useCase.background ? executeFkDsl(FKDSL_QUERY) : useCase.call;
      const again = parts(await replayAt(mine.instant, replayCall));
      expect(mine.exact).toEqual(again.exact);
      expectNear(mine.near, again.near);
      return;
    }

    expect(got.ok).toBe(false);
    if (got.ok || ref.ok)
      throw new Error(`expected a failure, got ${JSON.stringify(got)} / ${JSON.stringify(ref)}`);

    if ('code' in expected) {
      // The domain error is the same everywhere: code, message and details; only its carrier differs.
      expect(ref.code).toBe(expected.code);
      expect(ref.details).toMatchObject(expected.details ?? {});
      expect({ code: got.code, message: got.message, details: got.details }).toEqual({
        code: ref.code,
        message: ref.message,
        details: ref.details,
      });
      if (surface.kind === 'mcp') expect(got.isError).toBe(true);
      if (surface.kind === 'rest') expect(got.status).toBe(expected.rest);
      return;
    }

    // Arguments the schema refuses: each surface refuses them its own way, naming the argument.
    const field = expected.invalidArgument;
    switch (surface.kind) {
      case 'graphql':
        // Variable coercion: the request is refused before execution (no data, HTTP 400).
        expect(got.status).toBe(400);
        expect(got.message).toContain(`"$${field}"`);
        expect(got.message).toContain('"HUGE"');
        break;
      case 'mcp':
        expect(got.rpc).toBe(-32602);
        expect(got.code).toBe('INVALID_ARGUMENTS');
        expect(got.message).toContain(`${field}:`);
        break;
      case 'rest':
        expect(got.status).toBe(422);
        expect(got.code).toBe('INVALID_ARGUMENTS');
        expect(got.details.issues.map((i: Json) => i.field)).toEqual([field]);
        expect(got.message).toContain(`${field}:`);
        break;
    }
  });
});

// ---- the price resource (MCP only) ----------------------------------------------------------------

const QUOTE_QUERY = /* GraphQL */ `
  query ($symbol: String!) {
    quote(symbol: $symbol) { symbol quote { price change changePercent volume currency asOf } lineage { used simulated } }
  }`;

/** GraphQL `quote` in the shape of the resource `vigil://prices/{symbol}` (market-data.mcp.ts). */
function quoteCall(symbol: string): Call {
  return {
    tool: '(resource)',
    args: {},
    query: QUOTE_QUERY,
    variables: { symbol },
    fromGraphql: ({ quote: q }) => ({
      symbol: q.symbol,
      price: q.quote.price,
      change: q.quote.change,
      change_percent: q.quote.changePercent,
      volume: q.quote.volume,
      currency: q.quote.currency,
      as_of: q.quote.asOf,
      provider: q.lineage.used.join(','),
      simulated: q.lineage.simulated,
    }),
    fromWire: (w) => w,
  };
}

async function readPrice(client: Client, symbol: string): Promise<Json> {
  const uri = `vigil://prices/${encodeURIComponent(symbol)}`;
  const read = await client.readResource({ uri });
  const content = read.contents[0] as { uri: string; mimeType: string; text: string };
  expect(content).toMatchObject({ uri, mimeType: 'application/json' });
  return JSON.parse(content.text);
}

/** Resolves at the first notifications/resources/updated for `uri`, or fails after WAIT_MS. */
function firstUpdate(client: Client, uri: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no update of ${uri} within ${WAIT_MS} ms`)), WAIT_MS);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      if (n.params.uri !== uri) return;
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('the price resource vigil://prices/{symbol}', () => {
  it.each(['AAPL', 'BTC/USDT'])(
    'over MCP HTTP reads what GraphQL quote(%s) answers at the same instant',
    async (symbol) => {
      const viaGraphql = await graphql(() => frozen.url)(quoteCall(symbol));
      expect(viaGraphql.ok).toBe(true);
      if (!viaGraphql.ok) return;
      expect(await readPrice(httpClient, symbol)).toEqual(viaGraphql.value);
    },
  );

  it('over MCP stdio reads what GraphQL quote answers at the instant of its as_of', async () => {
    const read = await readPrice(stdioClient, 'BTC/USDT');
    expect(read).toEqual(await replayAt(read.as_of, quoteCall('BTC/USDT')));
  });

  const subscribers: Array<{ name: string; client: () => Promise<Client> }> = [
    { name: 'mcp http', client: () => connectHttp(live.url) },
    { name: 'mcp stdio', client: async () => stdioClient },
  ];
  it.each(subscribers)(
    'notifies a subscriber over $name when the price changes',
    async ({ client: connect }) => {
      const client = await connect();
      const uri = 'vigil://prices/BTC%2FUSDT';
      const updated = firstUpdate(client, uri);
      await client.subscribeResource({ uri });
      try {
        await updated;
        const read = await readPrice(client, 'BTC/USDT');
        expect(read).toMatchObject({ symbol: 'BTC/USDT', currency: 'USDT', simulated: true });
        expect(read.price).toBeGreaterThan(0);
      } finally {
        await client.unsubscribeResource({ uri });
      }
    },
  );
});

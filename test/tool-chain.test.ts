/**
 * What an agent gets back, it can send back. An agent reads a tool's answer and passes its ids to
 * the next tool under the key it received them by (`task_id` from execute-fk-dsl into
 * get-task-status). The chain (history -> FK-DSL -> alert -> session analytics, and the watchdog
 * tools) runs twice on one server: through the MCP SDK client over Streamable HTTP, and as an
 * agent script would, with plain fetch to POST /mcp/tools/<name>.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../src/platform/clock.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { ADMIN_KEY, bearer, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: answers are checked by the expectations, not by types.
type Json = any;
type Call = (name: string, args?: Record<string, unknown>) => Promise<Json>;

/** The keys of an answer, passed back as received: the same key and the same value. */
function passBack(answer: Json, ...keys: string[]): Record<string, unknown> {
  for (const key of keys) expect(answer, `answer has ${key}`).toHaveProperty(key);
  return Object.fromEntries(keys.map((key) => [key, answer[key]]));
}

/** The chain an agent runs; `label` keeps the two runs' alerts and users apart. */
async function chain(call: Call, label: string, hookUrl: string): Promise<void> {
  // An analysis session groups what follows; its id goes into every tool that records a query.
  const session = await call('create-analysis-session', {
    assets: ['AAPL'],
    session_type: 'equity',
    user_id: `agent-${label}`,
    tags: ['chain'],
  });
  const inSession = passBack(session, 'session_id');

  // History: 90 days of daily bars in pages; the instrument's spelling goes on to the next tools.
  const history = await call('get-price-history', {
    symbol: 'AAPL',
    interval: '1d',
    lookback: '90d',
    first: 30,
  });
  expect(history.bars).toHaveLength(30);
  const { symbol } = history.instrument;
  const more = await call('get-price-history', {
    symbol,
    ...passBack(history, 'interval'),
    lookback: '90d',
    first: 30,
    after: history.next_cursor,
  });
  expect(Date.parse(more.bars[0].time)).toBeGreaterThan(Date.parse(history.bars.at(-1).time));
  const quotes = await call('get-quotes', {
    symbols: [symbol],
    ...passBack(history.instrument, 'asset_class'),
  });
  expect(quotes.quotes[0].quote.price).toBeGreaterThan(0);
  // The data tools record the query in the session the id names.
  const searched = await call('search-by-symbol', { symbol, depth: 'quick', ...inSession });
  expect(searched.session_id).toBe(session.session_id);

  // FK-DSL in the background: the task id it answers is the one get-task-status takes.
  const task = await call('execute-fk-dsl', {
    query: `EVALUATE ${symbol}: PRICE, VOLATILITY(30d)`,
    async: true,
    ...inSession,
  });
  const done = await vi.waitFor(
    async () => {
      const status = await call('get-task-status', passBack(task, 'task_id'));
      expect(status.status).toBe('completed');
      return status;
    },
    { timeout: 20_000, interval: 100 },
  );
  expect(done.task_id).toBe(task.task_id);
  const metrics = done.result.statements[0].result.asset.metrics;
  const price = metrics.find((m: Json) => m.metric === 'PRICE').value;
  expect(price).toBeGreaterThan(0);

  // An alert 10 % above the price; its id goes to every alert tool, each answer's id to the next.
  const created = await call('create-alert', {
    alert_id: `chain-${label}`,
    name: `${symbol} 10% up`,
    trigger: {
      type: 'price_threshold',
      symbol,
      price_threshold: Math.round(price * 1.1),
      direction: 'above',
    },
    delivery_methods: ['webhook'],
    webhook_config: { url: hookUrl },
  });
  const read = await call('get-alert', passBack(created, 'alert_id'));
  const disabled = await call('disable-alert', passBack(read, 'alert_id'));
  const enabled = await call('enable-alert', passBack(disabled, 'alert_id'));
  expect(enabled.alert.enabled).toBe(true);
  const tested = await call('test-alert', passBack(enabled, 'alert_id'));
  expect(tested.results.map((r: Json) => r.status)).toEqual(['delivered']);
  const deliveries = await call('get-alert-deliveries', passBack(tested, 'alert_id'));
  expect(deliveries.deliveries.map((d: Json) => d.delivery_id)).toContain(tested.results[0].delivery_id);

  // The session keeps the alert's id; the answers' session_id leads to the next session tool.
  const stored = await call('store-session-result', { ...inSession, name: 'alert', value: created.alert_id });
  const kept = await call('get-session-result', { ...passBack(stored, 'session_id'), name: 'alert' });
  expect(kept.value).toBe(created.alert_id);
  const context = await call('update-session-context', { ...passBack(kept, 'session_id'), set: { symbol } });
  const extended = await call('extend-session', { ...passBack(context, 'session_id'), hours: 1 });
  const info = await call('get-session-info', passBack(extended, 'session_id'));
  expect(info).toMatchObject({ session_id: session.session_id, total_queries: 2 });

  // Session analytics and listing, for the user the session answered with.
  const analytics = await call('get-session-analytics', {
    ...passBack(info, 'user_id'),
    session_type: info.type,
  });
  expect(analytics).toMatchObject({ total_sessions: 1, total_queries: 2 });
  const listed = await call('list-sessions', { ...passBack(info, 'user_id'), limit: 1 });
  expect(listed.sessions.map((s: Json) => s.session_id)).toEqual([session.session_id]);
  const archived = await call('archive-session', passBack(listed.sessions[0], 'session_id'));
  expect(archived.session_state).toBe('archived');
  const deleted = await call('delete-alert', passBack(tested, 'alert_id'));
  expect(deleted).toEqual({ status: 'deleted', alert_id: created.alert_id });

  // Watchdogs: the events' pages chain by cursor; a watchdog's name from its health to its switches.
  const page = await call('get-watchdog-events', { limit: 1 });
  expect(page.events).toHaveLength(1);
  const older = await call('get-watchdog-events', { limit: 1, cursor: page.next_cursor });
  expect(older.events[0].event_id).not.toBe(page.events[0].event_id);
  const health = await call('get-watchdog-status', { name: page.events[0].watchdog });
  const restarted = await call('restart-watchdog', passBack(health.watchdogs[0], 'name'));
  expect(restarted.watchdog).toBe(health.watchdogs[0].name);
}

describe('tool ids passed back as received', () => {
  let t: TestApp;
  let hook: Server;
  let hookUrl: string;

  beforeAll(async () => {
    hook = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        MARKET_DATA_PROVIDERS: 'simulated',
        RATE_LIMIT_MAX: '100000',
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
    // Two events of one watchdog, so that get-watchdog-events has a second page.
    const bus = new WatchdogEventBus({
      database: t.app.deps.database,
      clock: systemClock,
      logger: createLogger('silent'),
    });
    for (const move of [6, 7]) {
      await t.app.deps.database.db.transaction((tx) =>
        bus.publish(tx, {
          watchdog: 'price_anomaly',
          eventType: 'price_anomaly',
          severity: 'high',
          symbol: 'AAPL',
          asset: { symbol: 'AAPL', assetType: 'equity' },
          description: `AAPL moved +${move}.00% in 5 minutes`,
          data: { change: move / 100, threshold: 0.05 },
        }),
      );
    }
  });
  afterAll(async () => {
    await t?.close();
    hook?.closeAllConnections();
    await new Promise((resolve) => hook?.close(resolve));
  });

  it('chains every tool through the MCP SDK client', async () => {
    const client = new Client({ name: 'vigil-chain-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
        requestInit: { headers: bearer(ADMIN_KEY) },
      }),
    );
    try {
      await chain(
        async (name, args = {}) => {
          const result: Json = await client.callTool({ name, arguments: args });
          expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
          return result.structuredContent;
        },
        'sdk',
        hookUrl,
      );
    } finally {
      await client.close();
    }
  });

  it('chains every tool as an agent script: plain fetch to POST /mcp/tools/<name>', async () => {
    await chain(
      async (name, args = {}) => {
        const response = await fetch(`${t.url}/mcp/tools/${name}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...bearer(ADMIN_KEY) },
          body: JSON.stringify(args),
        });
        const body = await response.json();
        expect(response.status, `${name}: ${JSON.stringify(body)}`).toBe(200);
        return body;
      },
      'script',
      hookUrl,
    );
  });

  it('tells a read key that `async: true` is what needs the write scope, not a GraphQL mutation', async () => {
    const reader = await issueKey(t.app, 'reader', ['READ']);
    const response = await fetch(`${t.url}/mcp/tools/execute-fk-dsl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(reader.secret) },
      body: JSON.stringify({ query: 'EVALUATE AAPL: PRICE', async: true }),
    });
    const body: Json = await response.json();
    expect(response.status).toBe(403);
    expect(body.error).toMatchObject({ code: 'FORBIDDEN', details: { scope: 'write', argument: 'async' } });
    expect(body.error.message).toMatch(/^execute-fk-dsl with `async: true` needs the `write` scope/);
    expect(body.error.message).toMatch(/without async it needs `read`/);
    expect(body.error.message).not.toMatch(/submitFkDsl|mutation/i);
  });

  /** A tool called as an agent script calls it, with the admin key. */
  const post = async (
    name: string,
    args: unknown,
    key = ADMIN_KEY,
  ): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${t.url}/mcp/tools/${name}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...bearer(key) },
      body: JSON.stringify(args),
    });
    return { status: response.status, body: await response.json() };
  };

  it('accepts the earlier camelCase spelling, and refuses both spellings with two values', async () => {
    const task = await post('execute-fk-dsl', { query: 'EVALUATE AAPL: PRICE', async: true });
    const { task_id } = task.body;
    expect((await post('get-task-status', { taskId: task_id })).body.task_id).toBe(task_id);
    expect((await post('get-task-status', { task_id, taskId: task_id })).body.task_id).toBe(task_id);
    const clash = await post('get-task-status', { task_id, taskId: 'another' });
    expect(clash.status).toBe(422);
    expect(clash.body.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'task_id' } });
    expect(clash.body.error.message).toMatch(/task_id and taskId name the same argument .*pass task_id only/);
  });

  it("names the tool's own arguments in errors from the operation, never its GraphQL variables", async () => {
    const missing = await post('get-session-info', { session_id: 'no-such-session' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toEqual({
      code: 'NOT_FOUND',
      message: 'session_id "no-such-session" was not found',
      details: { session_id: 'no-such-session' },
    });
    const invalid = await post('search-by-symbol', { symbol: 'AAPL', session_id: 'not an id!' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error).toMatchObject({ code: 'BAD_USER_INPUT', details: { field: 'session_id' } });
    expect(invalid.body.error.message).toMatch(/^session_id: /);
    const badType = await post('create-analysis-session', { assets: ['AAPL'], sessionType: 'bonds' });
    expect(badType.status).toBe(422);
    expect(badType.body.error.details.field).toBe('session_type');
  });
});

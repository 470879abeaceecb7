import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, type Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modules } from '../src/modules.ts';
import { jsonSchemaOf, toolSchemaOf } from '../src/platform/operations/json-schema.ts';
import { checkTools } from '../src/platform/operations/tool.ts';
import { buildSchema } from '../src/schema.ts';
import { WatchdogEventBus } from '../src/watchdogs/event-bus.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { samplesOf } from './support/json-schema-samples.ts';

/**
 * The schemas tools/list publishes are compact rewrites of what zod writes
 * (src/platform/operations/json-schema-compact.ts). They must stay exact: the same values valid,
 * in the dialect the SDK's client validates with (draft-07) and in the one the MCP specification
 * reads them in (2020-12); every tool's real answer must pass its listed output schema in the
 * SDK's client; and the listing must stay within its size budget.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON schemas and answers are walked generically.
type Json = any;

/**
 * Bytes of the `tools/list` answer. The goal of issue 25 was 30 KB; it is out of reach with exact
 * schemas: the names, descriptions and argument schemas alone take about 33 KB, and the value
 * schemas describe some 600 fields. Compact, the 29 tools took about 85 KB (94.5 KB as zod writes
 * the schemas); the six lookup and FK-DSL catalogue tools of issue 29 (history, quotes, search,
 * universes, explain, metrics) add about 18 KB, to about 103 KB; the silence tools of issue 30
 * (create, list, expire) about 5 KB more; the Slack, Discord and Teams configurations of the alert
 * tools (in their arguments and in every alert answered) about 2 KB more; an alert's mute_windows
 * (the same way) about 1.5 KB more; the Alertmanager and PagerDuty configurations about 1.2 KB
 * more; an alert's send_resolved, resolve_timeout_seconds and grouping (in the alert tools'
 * arguments and answers) and the firing record's four tools (list-alert-firings, list-alert-episodes,
 * acknowledge-alert-firing, resolve-alert-firing, about 9.5 KB of it) about 13 KB more, to about
 * 132 KB. The budget keeps it there.
 */
const LISTING_BUDGET_BYTES = 135 * 1024;

const tools = checkTools(
  buildSchema(),
  modules.flatMap((m) => m.tools ?? []),
);

describe('listed tool schemas', () => {
  const cases = tools.flatMap((tool) =>
    (['input', 'output'] as const).map((io) => ({
      name: tool.name,
      io,
      schema: io === 'input' ? tool.inputSchema : tool.definition.outputSchema,
    })),
  );

  it.each(cases)(
    '$name $io: accepts and rejects the same values as the schema zod writes, in draft-07 and 2020-12',
    ({ name, io, schema }) => {
      const written = jsonSchemaOf(schema, io) as Json;
      const listed = toolSchemaOf(schema, io, name);
      const draft07 = [sdkValidator(written), sdkValidator(listed)];
      const draft2020 = [ajv2020Validator(written), ajv2020Validator(listed)];
      const seen = { valid: 0, invalid: 0 };
      fc.assert(
        fc.property(samplesOf(written), (value) => {
          const verdicts = [...draft07, ...draft2020].map((validate) => validate(value));
          seen[verdicts[0] ? 'valid' : 'invalid']++;
          return verdicts.every((verdict) => verdict === verdicts[0]);
        }),
        { numRuns: 150 },
      );
      // Both kinds of value were tried: the comparison says something about each.
      expect(seen.valid).toBeGreaterThan(0);
      expect(seen.invalid).toBeGreaterThan(0);
    },
  );

  it('are valid schemas of both dialects, and argument schemas hold no reference', () => {
    const draft07 = new Ajv({ strict: false });
    const draft2020 = new Ajv2020({ strict: false });
    for (const { name, io, schema } of cases) {
      const listed = toolSchemaOf(schema, io, name);
      expect(draft07.validateSchema(listed), `${name} ${io}: ${draft07.errorsText()}`).toBe(true);
      expect(draft2020.validateSchema(listed), `${name} ${io}: ${draft2020.errorsText()}`).toBe(true);
      if (io === 'input') expect(JSON.stringify(listed), name).not.toContain('"$ref"');
    }
  });

  it('are shorter than what zod writes, and share definitions where a shape recurs', () => {
    let written = 0;
    let listed = 0;
    for (const { name, io, schema } of cases) {
      written += JSON.stringify(jsonSchemaOf(schema, io)).length;
      listed += JSON.stringify(toolSchemaOf(schema, io, name)).length;
    }
    expect(listed).toBeLessThan(written * 0.95);
    const info = tools.find((t) => t.name === 'get-session-info');
    if (info) {
      const output = toolSchemaOf(info.definition.outputSchema, 'output', info.name) as Json;
      expect(Object.keys(output.$defs)).toEqual(expect.arrayContaining(['recent_queries_item']));
      expect(output.properties.recent_queries.items).toEqual({ $ref: '#/$defs/recent_queries_item' });
    }
  });
});

describe('tools/list and real calls through the SDK client', () => {
  let t: TestApp;
  let hook: Server;
  let hookUrl: string;
  let client: Client;
  let listed: ListedTool[];

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
        MARKET_DATA_PROVIDERS: 'simulated',
        RATE_LIMIT_MAX: '100000',
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
      },
    });
    client = new Client({ name: 'vigil-schema-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    listed = (await client.listTools()).tools;
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
    hook?.closeAllConnections();
    await new Promise((resolve) => hook?.close(resolve));
  });

  it(`answers tools/list within ${LISTING_BUDGET_BYTES / 1024} KB`, async () => {
    const post = (body: object, session?: string) =>
      fetch(`${t.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      });
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    const answer = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    const text = await answer.text();
    // One JSON message, or one server-sent event carrying it.
    const message = answer.headers.get('content-type')?.startsWith('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n')
      : text;
    expect(JSON.parse(message).result.tools).toHaveLength(tools.length);
    expect(Buffer.byteLength(message)).toBeLessThan(LISTING_BUDGET_BYTES);
    await fetch(`${t.url}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session } });
  });

  it('lists the schemas toolSchemaOf writes, every tool with an output schema', () => {
    expect(listed.map((tool) => tool.name).sort()).toEqual(tools.map((tool) => tool.name).sort());
    for (const tool of tools) {
      const entry = listed.find((l) => l.name === tool.name)!;
      expect(entry.inputSchema).toEqual(toolSchemaOf(tool.inputSchema, 'input', tool.name));
      expect(entry.outputSchema, tool.name).toEqual(
        toolSchemaOf(tool.definition.outputSchema, 'output', tool.name),
      );
    }
  });

  it('calls every tool: the SDK client accepts each answer against its listed output schema', async () => {
    const answers = new Map<string, Json>();
    // `callTool` validates structuredContent against the listed output schema and throws if it fails.
    const call = async (name: string, args: Record<string, unknown> = {}): Promise<Json> => {
      const result: Json = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      expect(result.structuredContent, name).toBeDefined();
      answers.set(name, result.structuredContent);
      return result.structuredContent;
    };

    await call('search-by-symbol', { symbol: 'AAPL', depth: 'deep' });
    await call('search-by-coin', { symbol: 'BTC', depth: 'deep' });
    await call('get-price-history', { symbol: 'AAPL', interval: '1d', lookback: '30d', first: 5 });
    await call('get-quotes', { symbols: ['AAPL', 'NOPE'] });
    await call('search-instruments', { query: 'apple' });
    await call('list-universes');
    await call('explain-fk-dsl', { query: 'EVALUATE AAPL: PRICE; SCAN CRYPTO WHERE RSI(14) < 30' });
    await call('list-fk-dsl-metrics');
    const session = await call('create-analysis-session', {
      assets: ['AAPL', 'MSFT'],
      sessionType: 'equity',
    });
    const sessionId = session.session_id;
    await call('execute-fk-dsl', { query: 'EVALUATE AAPL: PRICE, VOLATILITY(30d)', sessionId });
    const task = await call('execute-fk-dsl', { query: 'COMPARE AAPL, MSFT: PRICE', async: true });
    await call('get-task-status', { taskId: task.task_id });
    await call('update-session-context', { sessionId, set: { focus: 'tech' } });
    await call('store-session-result', { sessionId, name: 'note', value: { ok: true } });
    await call('get-session-result', { sessionId, name: 'note' });
    await call('get-session-info', { sessionId });
    await call('list-sessions');
    await call('extend-session', { sessionId, hours: 2 });
    await call('get-session-analytics');
    await call('archive-session', { sessionId });

    await call('get-dashboard-stats');
    await call('get-watchdog-status');
    await call('get-watchdog-events', { limit: 5 });
    await call('monitor-assets', { symbols: ['AAPL'] });
    await call('disable-watchdog', { name: 'funding_rate' });
    await call('enable-watchdog', { name: 'funding_rate' });
    await call('restart-watchdog', { name: 'funding_rate' });

    const alert = {
      alert_id: 'schema-1',
      name: 'Schema test',
      trigger: { type: 'price_threshold', symbol: 'AAPL', price_threshold: 1 },
      delivery_methods: ['webhook'],
      webhook_config: { url: hookUrl },
    };
    await call('create-alert', alert);
    await call('update-alert', { ...alert, name: 'Schema test, renamed' });
    await call('get-alert', { alert_id: 'schema-1' });
    await call('list-alerts');
    await call('disable-alert', { alert_id: 'schema-1' });
    await call('enable-alert', { alert_id: 'schema-1' });
    await call('test-alert', { alert_id: 'schema-1' });
    await call('get-alert-deliveries', { alert_id: 'schema-1' });
    await call('redeliver-alert', { alert_id: 'schema-1' });
    await call('delete-alert', { alert_id: 'schema-1' });
    const silenceEnd = new Date(Date.now() + 3_600_000).toISOString();
    const silence = await call('create-silence', {
      matchers: { assets: ['AAPL'] },
      ends_at: silenceEnd,
      comment: 'schema test silence',
    });
    await call('list-silences');
    await call('expire-silence', { silence_id: silence.silence_id });

    // The firing record: a watchdog-event alert fired (its firing job's work, run here), then read and acted on.
    await call('create-alert', {
      alert_id: 'schema-2',
      name: 'Schema test, events',
      trigger: { type: 'watchdog_event', event_filter: { event_types: ['flash_crash'] } },
      delivery_methods: ['webhook'],
      webhook_config: { url: hookUrl },
    });
    const bus = new WatchdogEventBus(t.app.deps);
    const crash = await t.app.deps.database.db.transaction((tx) =>
      bus.publish(tx, {
        watchdog: 'price_anomaly',
        eventType: 'flash_crash',
        severity: 'critical',
        symbol: 'AAPL',
        asset: { symbol: 'AAPL', assetType: 'equity' },
        description: 'AAPL fell 12.00% in 4 minutes',
        data: { change: -0.12 },
      }),
    );
    await t.app.deps.alerts.fireStoredEvent(crash.id);
    const [firing] = (await call('list-alert-firings', { alert_id: 'schema-2' })).firings;
    await call('list-alert-episodes', { alert_id: 'schema-2' });
    await call('acknowledge-alert-firing', {
      alert_id: 'schema-2',
      firing_id: firing.firing_id,
      note: 'seen',
    });
    await call('resolve-alert-firing', { alert_id: 'schema-2', firing_id: firing.firing_id });

    // Every tool answered (a new tool needs a call here), and the listed schema is not a pushover.
    expect([...answers.keys()].sort()).toEqual(tools.map((tool) => tool.name).sort());
    for (const [name, value] of answers) {
      const schema = listed.find((l) => l.name === name)!.outputSchema as Json;
      const validate = sdkValidator(schema);
      expect(validate(value), name).toBe(true);
      expect(validate({ ...value, not_a_field: 1 }), name).toBe(false);
      const [first] = schema.required;
      const { [first]: _, ...missing } = value;
      expect(validate(missing), `${name} without ${first}`).toBe(false);
    }
  });
});

// ---- validators -------------------------------------------------------------------------------

/** The SDK client's own validator (draft-07, with formats), as `listTools` builds it. */
function sdkValidator(schema: Json): (value: unknown) => boolean {
  const validate = new AjvJsonSchemaValidator().getValidator(schema);
  return (value) => validate(value).valid;
}

/** The same options on Ajv's 2020-12 class: what a client reading the MCP default dialect does. */
function ajv2020Validator(schema: Json): (value: unknown) => boolean {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  return (value) => validate(value) === true;
}

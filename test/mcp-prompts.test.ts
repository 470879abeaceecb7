/**
 * MCP prompts and the concrete resource list, as an MCP SDK client meets them over Streamable
 * HTTP (`/mcp`) and over stdio (the process `npm run -s mcp` starts). The tool calls a prompt
 * writes out are made as written, so a prompt that sends an agent to a wrong tool, argument or
 * FK-DSL query fails here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCAN_CRITERIA } from '../src/fk-dsl/scan-market.mcp.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { spawnStdioServer } from './support/mcp-stdio.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const PROMPTS = ['analyse-symbol', 'set-up-price-alert', 'scan-market'];

async function rejection(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }
  throw new Error('expected a JSON-RPC error');
}

/** The server's message, without the prefix the SDK client adds. */
function messageOf(error: McpError): string {
  return error.message.replace(/^MCP error -?\d+: /, '');
}

/** The text of a prompt's one message. */
async function promptText(client: Client, name: string, args: Record<string, string>): Promise<string> {
  const { messages } = await client.getPrompt({ name, arguments: args });
  expect(messages).toHaveLength(1);
  expect(messages[0]!.role).toBe('user');
  const content = messages[0]!.content as { type: string; text: string };
  expect(content.type).toBe('text');
  return content.text;
}

/** Every call a prompt writes out as "`tool` with {json}", in order, its arguments parsed. */
function callsIn(text: string): Array<{ tool: string; args: Json }> {
  const calls: Array<{ tool: string; args: Json }> = [];
  const pattern = /`([a-z-]+)` with \{/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index + match[0].length - 1;
    let depth = 0;
    let end = start;
    let inString = false;
    for (; end < text.length; end++) {
      const c = text[end];
      if (inString) {
        if (c === '\\') end++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) break;
    }
    calls.push({ tool: match[1]!, args: JSON.parse(text.slice(start, end + 1)) });
  }
  return calls;
}

async function call(client: Client, tool: string, args: Json): Promise<Json> {
  const result: Json = await client.callTool({ name: tool, arguments: args });
  expect(result.isError, `${tool}: ${result.content?.[0]?.text}`).toBeFalsy();
  return result.structuredContent;
}

/** An FK-DSL run a prompt wrote: it completed and no statement failed. */
function expectCompleted(run: Json): void {
  expect(run.status).toBe('completed');
  expect(run.result.statements.map((s: Json) => s.error)).toEqual(run.result.statements.map(() => null));
}

describe('MCP prompts and resources', () => {
  let t: TestApp;
  let client: Client;

  beforeAll(async () => {
    t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '10000' } });
    client = new Client({ name: 'vigil-prompts-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('declares prompts and lists them with their arguments', async () => {
    expect(client.getServerCapabilities()?.prompts).toEqual({});
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(expect.arrayContaining(PROMPTS));
    const alert = prompts.find((p) => p.name === 'set-up-price-alert');
    expect(alert?.arguments?.map((a) => [a.name, a.required])).toEqual([
      ['symbol', true],
      ['threshold', true],
      ['direction', false],
      ['webhook_url', false],
    ]);
    for (const prompt of prompts) {
      expect(prompt.description).toBeTruthy();
      for (const argument of prompt.arguments ?? []) expect(argument.description).toBeTruthy();
    }
  });

  it('names only tools the server serves, and each named tool is one the prompt declares', async () => {
    const served = t.app.tools.map((tool) => tool.name);
    const samples: Record<string, Record<string, string>> = {
      'analyse-symbol': { symbol: 'AAPL' },
      'set-up-price-alert': { symbol: 'AAPL', threshold: '200' },
      'scan-market': {},
    };
    for (const [name, args] of Object.entries(samples)) {
      const text = await promptText(client, name, args);
      for (const { tool } of callsIn(text)) expect(served).toContain(tool);
      const declared = t.app.mcp.prompts?.find((p) => p.name === name)?.tools ?? [];
      for (const tool of served) if (text.includes(`\`${tool}\``)) expect(declared).toContain(tool);
    }
  });

  it('analyse-symbol: the calls it writes run as written, for a share and a crypto pair', async () => {
    const share = callsIn(await promptText(client, 'analyse-symbol', { symbol: 'aapl', window: '6M' }));
    expect(share.map((c) => c.tool)).toEqual([
      'search-by-symbol',
      'search-instruments',
      'get-price-history',
      'execute-fk-dsl',
    ]);
    expect(share[0]!.args).toEqual({ symbol: 'AAPL', depth: 'deep' });
    // Six FK-DSL months are 180 days of history: the lookback reads `6m` as six minutes.
    expect(share[2]!.args).toEqual({ symbol: 'AAPL', interval: '1d', lookback: '180d' });
    expect(share[3]!.args.query).toMatch(/^EVALUATE "AAPL": .*VOLATILITY\(6m\)/);
    expect(await call(client, share[0]!.tool, share[0]!.args)).toMatchObject({ symbol: 'AAPL' });
    const found = await call(client, share[1]!.tool, share[1]!.args);
    expect(found.instruments.map((i: Json) => i.symbol)).toContain('AAPL');
    const history = await call(client, share[2]!.tool, share[2]!.args);
    expect(history.bars.length).toBeGreaterThan(50);
    expectCompleted(await call(client, share[3]!.tool, share[3]!.args));

    const coin = callsIn(await promptText(client, 'analyse-symbol', { symbol: 'BTC/USDT' }));
    expect(coin.map((c) => c.tool)).toEqual([
      'search-by-coin',
      'search-instruments',
      'get-price-history',
      'execute-fk-dsl',
    ]);
    for (const { tool, args } of coin.slice(0, 3)) await call(client, tool, args);
    expectCompleted(await call(client, coin[3]!.tool, coin[3]!.args));
  });

  it('answers a missing or refused argument with -32602 naming it', async () => {
    const missing = await rejection(client.getPrompt({ name: 'analyse-symbol', arguments: {} }));
    expect(missing.code).toBe(-32602);
    expect(messageOf(missing)).toBe('invalid arguments for prompt analyse-symbol: symbol: required');
    const bad = await rejection(
      client.getPrompt({ name: 'analyse-symbol', arguments: { symbol: '$$', window: 'forever' } }),
    );
    expect(messageOf(bad)).toMatch(
      /^invalid arguments for prompt analyse-symbol: symbol: .*; window: a window like 30d/,
    );
    const alert = await rejection(
      client.getPrompt({ name: 'set-up-price-alert', arguments: { symbol: 'AAPL', direction: 'sideways' } }),
    );
    expect(messageOf(alert)).toBe(
      'invalid arguments for prompt set-up-price-alert: threshold: required; direction: above or below',
    );
    const scan = await rejection(
      client.getPrompt({ name: 'scan-market', arguments: { universe: 'AAPL,$$', limit: '500' } }),
    );
    expect(messageOf(scan)).toMatch(/universe: .*; limit: a whole number from 1 to 50$/);
    const unknown = await rejection(client.getPrompt({ name: 'no-such-prompt', arguments: {} }));
    expect(unknown.code).toBe(-32602);
    expect(messageOf(unknown)).toMatch(/^unknown prompt "no-such-prompt"; prompts: /);
  });

  it('set-up-price-alert: the create-alert call it writes creates that alert', async () => {
    const text = await promptText(client, 'set-up-price-alert', {
      symbol: 'btc/usdt',
      threshold: '65000.5',
      direction: 'below',
      webhook_url: 'https://alerts.example/hook',
    });
    const calls = callsIn(text);
    expect(calls.map((c) => c.tool)).toEqual([
      'search-by-coin',
      'list-alerts',
      'create-alert',
      'test-alert',
      'get-alert-deliveries',
    ]);
    const create = calls[2]!.args;
    expect(create.trigger).toEqual({
      type: 'price_threshold',
      symbol: 'BTC/USDT',
      price_threshold: 65000.5,
      direction: 'below',
      hysteresis_percent: 0.5,
    });
    await call(client, 'search-by-coin', calls[0]!.args);
    const created = await call(client, 'create-alert', create);
    expect(created).toMatchObject({
      alert_id: 'price-btc-usdt-below-65000.5',
      delivery_methods: ['webhook'],
    });
    expect(calls[3]!.args).toEqual({ alert_id: created.alert_id });
    expect(await call(client, 'get-alert', { alert_id: created.alert_id })).toMatchObject({
      trigger: { symbol: 'BTC/USDT', price_threshold: 65000.5, direction: 'below' },
    });
    // Without a webhook the agent is told to ask how to be told, and nothing is made up.
    const ask = await promptText(client, 'set-up-price-alert', { symbol: 'AAPL', threshold: '200' });
    expect(ask).toMatch(/First ask how to be told/);
    expect(ask).not.toMatch(/webhook_config":/);
  });

  it('scan-market: every setup is a query the FK-DSL runs', async () => {
    for (const criteria of Object.keys(SCAN_CRITERIA)) {
      const calls = callsIn(
        await promptText(client, 'scan-market', { universe: 'aapl, msft,BTC/USDT', criteria, limit: '5' }),
      );
      expect(calls.map((c) => c.tool)).toEqual(['execute-fk-dsl']);
      expect(calls[0]!.args.query).toMatch(/^SCAN \["AAPL", "MSFT", "BTC\/USDT"\] WHERE .* LIMIT 5$/);
      expectCompleted(await call(client, 'execute-fk-dsl', calls[0]!.args));
    }
    const text = await promptText(client, 'scan-market', {});
    const byDefault = callsIn(text);
    expect(byDefault.map((c) => c.tool)).toEqual(['list-universes', 'execute-fk-dsl']);
    const universes = await call(client, 'list-universes', byDefault[0]!.args);
    expect(universes.scan_universes.map((u: Json) => u.name)).toContain('US');
    const scan = byDefault[1]!.args;
    expect(scan.query).toBe('SCAN US WHERE RSI < 30 ORDER BY RSI ASC LIMIT 10');
    expectCompleted(await call(client, 'execute-fk-dsl', scan));
    // The way out the prompt gives for a slow scan: a task, polled with the task_id it answers.
    expect(text).toMatch(/`get-task-status` with the `task_id`/);
    const task = await call(client, 'execute-fk-dsl', { ...scan, async: true });
    let status = await call(client, 'get-task-status', { task_id: task.task_id });
    for (let i = 0; i < 100 && status.status !== 'completed' && status.status !== 'failed'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      status = await call(client, 'get-task-status', { task_id: task.task_id });
    }
    expectCompleted(status);
  });

  it('lists vigil://events and the watched symbols’ prices as resources, each readable', async () => {
    const { resources, nextCursor } = await client.listResources();
    expect(nextCursor).toBeUndefined();
    const uris = resources.map((r) => r.uri);
    const watched = t.app.deps.config.watchdogs.symbols;
    expect(uris).toEqual(
      expect.arrayContaining(['vigil://events', 'vigil://prices/AAPL', 'vigil://prices/BTC%2FUSDT']),
    );
    expect(uris).toHaveLength(1 + new Set(watched).size);
    for (const resource of resources) {
      expect(resource.mimeType).toBe('application/json');
      const read = await client.readResource({ uri: resource.uri });
      const value = JSON.parse((read.contents[0] as { text: string }).text);
      if (resource.uri === 'vigil://events') expect(value.events).toBeInstanceOf(Array);
      else expect(value.price).toBeGreaterThan(0);
    }
    const badCursor = await rejection(client.listResources({ cursor: 'abc' }));
    expect(badCursor.code).toBe(-32602);
  });

  describe('stdio', () => {
    let dataDir: string;

    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'vigil-mcp-prompts-'));
    });
    afterAll(() => {
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('serves the same prompts and resource list over stdin/stdout', async () => {
      const stdio = await spawnStdioServer(dataDir, 'vigil-prompts-stdio');
      try {
        expect(stdio.client.getServerCapabilities()?.prompts).toEqual({});
        const { prompts } = await stdio.client.listPrompts();
        expect(prompts.map((p) => p.name)).toEqual((await client.listPrompts()).prompts.map((p) => p.name));
        const text = await promptText(stdio.client, 'analyse-symbol', { symbol: 'MSFT' });
        expect(callsIn(text)[0]).toEqual({
          tool: 'search-by-symbol',
          args: { symbol: 'MSFT', depth: 'deep' },
        });
        const missing = await rejection(
          stdio.client.getPrompt({ name: 'scan-market', arguments: { criteria: 'x' } }),
        );
        expect(messageOf(missing)).toMatch(
          /^invalid arguments for prompt scan-market: criteria: one of oversold/,
        );
        const { resources } = await stdio.client.listResources();
        expect(resources.map((r) => r.uri)).toEqual(
          (await client.listResources()).resources.map((r) => r.uri),
        );
        const events = JSON.parse(
          ((await stdio.client.readResource({ uri: 'vigil://events' })).contents[0] as { text: string }).text,
        );
        expect(events.events).toBeInstanceOf(Array);
      } finally {
        await stdio.client.close();
      }
      expect(stdio.problems).toEqual([]);
    }, 120_000);
  });
});

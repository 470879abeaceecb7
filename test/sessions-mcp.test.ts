/**
 * Analysis sessions through MCP, as desktop and remote clients meet them: the session tools over
 * Streamable HTTP (`/mcp`) with the SDK client, and a session tracked over stdio by the process
 * `npm run -s mcp` starts, on its own embedded database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import { spawnStdioServer } from './support/mcp-stdio.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const SESSION_TOOLS = [
  'create-analysis-session',
  'get-session-info',
  'list-sessions',
  'extend-session',
  'get-session-analytics',
  'update-session-context',
  'store-session-result',
  'get-session-result',
  'archive-session',
];

/** Calls a tool and checks that `structuredContent` is what the text content says. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Json> {
  const result: Json = await client.callTool({ name, arguments: args });
  if (!result.isError) expect(result.structuredContent).toEqual(JSON.parse(result.content[0].text));
  return result;
}

describe('analysis sessions over MCP', () => {
  describe('Streamable HTTP', () => {
    let t: TestApp;
    let client: Client;

    beforeAll(async () => {
      t = await createTestApp({ listen: true, env: { RATE_LIMIT_MAX: '1000' } });
      client = new Client({ name: 'vigil-sessions-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`)));
    });
    afterAll(async () => {
      await client?.close();
      await t?.close();
    });

    it('lists the session tools', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((x) => x.name)).toEqual(expect.arrayContaining(SESSION_TOOLS));
      const create = tools.find((x) => x.name === 'create-analysis-session');
      expect(create?.inputSchema.required).toEqual(expect.arrayContaining(['assets', 'session_type']));
      expect(create?.outputSchema).toBeDefined();
    });

    it('creates a session and reads it back, tracking a query made with its id', async () => {
      const created = await tool(client, 'create-analysis-session', {
        assets: ['AAPL', 'MSFT'],
        sessionType: 'equity',
        userId: 'u1',
        tags: ['t'],
      });
      expect(created.isError, JSON.stringify(created)).toBeFalsy();
      expect(created.structuredContent).toMatchObject({
        status: 'success',
        type: 'equity',
        assets: ['AAPL', 'MSFT'],
        ttl_hours: 24,
        ttl_capped: false,
      });
      const sessionId = created.structuredContent.session_id;

      const searched = await tool(client, 'search-by-symbol', { symbol: 'AAPL', depth: 'quick', sessionId });
      expect(searched.isError, JSON.stringify(searched)).toBeFalsy();
      const info = await tool(client, 'get-session-info', { sessionId });
      expect(info.structuredContent).toMatchObject({ session_id: sessionId, total_queries: 1 });
      expect(info.structuredContent.recent_queries[0].query_type).toBe('search-by-symbol');
    });

    it('answers an unknown session with an error result, not a protocol error', async () => {
      const result = await tool(client, 'get-session-info', { sessionId: 'no-such-session' });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toMatch(/^NOT_FOUND: session_id "no-such-session" was not found/);
    });

    it('refuses arguments that do not fit as a malformed call naming the field', async () => {
      await expect(
        client.callTool({
          name: 'create-analysis-session',
          arguments: { assets: ['AAPL'], sessionType: 'stocks' },
        }),
      ).rejects.toThrow(/session_type/);
    });
  });

  describe('stdio', () => {
    let dataDir: string;

    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'vigil-sessions-stdio-'));
    });
    afterAll(() => {
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('tracks a query in a session created over stdin/stdout', async () => {
      const { client, stderr } = await spawnStdioServer(dataDir, 'vigil-sessions-stdio-test');
      try {
        const created = await tool(client, 'create-analysis-session', {
          assets: ['AAPL'],
          sessionType: 'equity',
        });
        expect(created.isError, `${JSON.stringify(created)}\n${stderr()}`).toBeFalsy();
        const sessionId = created.structuredContent.session_id;
        const searched = await tool(client, 'search-by-symbol', {
          symbol: 'AAPL',
          depth: 'quick',
          sessionId,
        });
        expect(searched.isError, JSON.stringify(searched)).toBeFalsy();
        const info = await tool(client, 'get-session-info', { sessionId });
        expect(info.structuredContent).toMatchObject({
          session_id: sessionId,
          total_queries: 1,
          session_state: 'active',
        });
        expect(info.structuredContent.recent_queries.map((q: Json) => q.query_type)).toEqual([
          'search-by-symbol',
        ]);
      } finally {
        // Ends stdin, then waits for the process to exit.
        await client.close();
      }
      expect(stderr()).toMatch(/"msg":"stopped"/);
    }, 60_000);
  });
});

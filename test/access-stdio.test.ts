import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, type IssuedKey, issueKey, UNKNOWN_KEY } from './support/access.ts';
import { createTestApp } from './support/app.ts';
import { createTestDatabase, serverUrl, type TestDatabase } from './support/databases.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `npm run -s mcp` runs. */
const MCP_COMMAND = [join('src', 'cli', 'launch.mjs'), 'mcp'];

/**
 * The stdio MCP server runs as the key in VIGIL_API_KEY when it is set: that key's scopes hold, and
 * a key that does not verify stops the process at start. It needs the database the key lives in,
 * which only a Postgres server lets two processes share.
 */
describe.skipIf(!serverUrl)('the stdio MCP server as VIGIL_API_KEY', () => {
  let database: TestDatabase;
  let dataDir: string;
  let reader: IssuedKey;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-access-stdio-'));
    const issuer = await createTestApp({ database, env: { ADMIN_API_KEY: ADMIN_KEY } });
    try {
      reader = await issueKey(issuer.app, 'desktop client', ['READ']);
    } finally {
      await issuer.close();
    }
  });
  afterAll(async () => {
    await database?.cleanup();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const envWith = (key: string): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
    return {
      ...env,
      DATABASE_URL: database.url!,
      DATA_DIR: dataDir,
      VIGIL_API_KEY: key,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
    };
  };

  it('lets a read key call a read tool, and answers the submit tool with isError FORBIDDEN', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: MCP_COMMAND,
      cwd: ROOT,
      env: envWith(reader.secret),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const client = new Client({ name: 'vigil-stdio-access-test', version: '1.0.0' });
    try {
      await client.connect(transport);
      const read: Json = await client.callTool({
        name: 'search-by-symbol',
        arguments: { symbol: 'AAPL', depth: 'quick' },
      });
      expect(read.isError, JSON.stringify(read.content)).toBeFalsy();
      expect(read.structuredContent).toMatchObject({ symbol: 'AAPL' });
      const submit: Json = await client.callTool({
        name: 'execute-fk-dsl',
        arguments: { query: 'EVALUATE AAPL: PRICE', async: true },
      });
      expect(submit.isError).toBe(true);
      expect(submit.content[0].text).toMatch(/^FORBIDDEN: /);
      expect(submit.content[0].text).toContain('`write`');
    } finally {
      await client.close();
    }
    expect(stderr).toMatch(/mcp stdio server ready/);
    expect(stderr).not.toContain(reader.secret);
  }, 60_000);

  it('exits 1, saying why, when VIGIL_API_KEY does not verify', async () => {
    const child = spawn(process.execPath, MCP_COMMAND, {
      cwd: ROOT,
      env: envWith(UNKNOWN_KEY),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(stderr).toMatch(/VIGIL_API_KEY: the API key is not valid/);
    expect(stderr).not.toContain(UNKNOWN_KEY);
    // stdout belongs to the protocol: nothing is written there.
    expect(stdout).toBe('');
  }, 60_000);
});

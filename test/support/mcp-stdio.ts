import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BUNDLE } from './bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface StdioServer {
  readonly client: Client;
  /** What the process wrote to stderr so far (its logs). */
  stderr(): string;
  /** Transport errors (a stray line on stdout is one). */
  readonly problems: Error[];
}

/**
 * The stdio MCP entry (the bundle, as `npm run mcp` runs it) spawned as an MCP client would, with
 * its own embedded database in `dataDir` (DATABASE_URL is left out, so the process never shares
 * the suite's server), connected.
 */
export async function spawnStdioServer(dataDir: string, name: string): Promise<StdioServer> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== 'DATABASE_URL') env[key] = value;
  }
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BUNDLE.mcpStdio],
    cwd: ROOT,
    env: { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'info', NODE_ENV: 'test' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const problems: Error[] = [];
  transport.onerror = (error) => problems.push(error);
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr, problems };
}

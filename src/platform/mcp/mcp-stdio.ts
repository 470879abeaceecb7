import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../observability/logger.ts';
import { createPendingMcpServer, type McpServerOptions, type PendingMcpServer } from './mcp-server.ts';

export interface McpStdioOptions {
  readonly info: McpServerOptions['info'];
  /**
   * What the session serves and its one caller, once the app has started: `initialize` is
   * answered before that, every other request waits for it.
   */
  readonly serving: Promise<PendingMcpServer>;
  readonly logger: Logger;
  readonly input?: Readable;
  readonly output?: Writable;
}

export interface McpStdioSession {
  /** Resolves when the input ends or the session is closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serves the MCP server over newline-delimited JSON-RPC on stdin/stdout, from the moment it is
 * called (see McpStdioOptions.serving). The output stream carries protocol messages only: whoever
 * calls this keeps every log and warning on stderr.
 */
export async function serveMcpStdio(options: McpStdioOptions): Promise<McpStdioSession> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const server = createPendingMcpServer(options.info, options.serving, options.logger);
  const transport = new StdioServerTransport(input, output);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    markClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= transport.close().then(markClosed, markClosed);
    return closing;
  };
  transport.onclose = () => markClosed();
  await server.connect(transport);
  input.once('end', () => void close());
  input.once('close', () => void close());
  // A client that went away mid-write (EPIPE) ends the session rather than the process.
  output.on('error', () => void close());
  return { closed, close };
}

/**
 * Sends console output to stderr: a dependency that prints to stdout would corrupt the protocol
 * stream of an MCP stdio server.
 */
export function routeConsoleToStderr(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.dir = (value: unknown) => console.error(value);
  console.table = (value: unknown) => console.error(value);
}

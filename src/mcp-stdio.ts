import { buildApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { createDeps } from './deps.ts';
import { modules } from './modules.ts';
import type { Viewer } from './platform/http/client-identity.ts';
import { exitAfterStop } from './platform/lifecycle.ts';
import { routeConsoleToStderr, serveMcpStdio } from './platform/mcp/mcp-stdio.ts';

/**
 * The caller of every stdio request. stdio runs as the local operator: whoever can start this
 * process already has the machine's data and configuration.
 */
const LOCAL_OPERATOR: Viewer = { clientId: 'local:stdio', remoteAddress: undefined, hasApiKey: false };

/**
 * MCP over stdio (`npm run -s mcp`): the same tools and resources as `/mcp`, for desktop MCP
 * clients that start a server process. Jobs and schedules run as in the HTTP server; no port is
 * opened. stdout carries protocol messages only (logs go to stderr). The session ends, and the
 * process exits 0 after a graceful stop, when stdin ends or on SIGINT/SIGTERM.
 */
async function main(): Promise<void> {
  routeConsoleToStderr();
  const config = loadConfigOrExit();
  const deps = await createDeps(config, modules);
  const { logger } = deps;
  const app = buildApp(deps, modules);
  const shutdown = exitAfterStop(logger, () => app.stop());

  try {
    await app.startWithoutListening();
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    await app.stop().catch(() => {});
    process.exit(1);
  }
  const session = await serveMcpStdio({ server: app.mcp, caller: { viewer: LOCAL_OPERATOR } });
  logger.info({ tools: app.tools.map((t) => t.name) }, 'mcp stdio server ready');
  await session.closed;
  shutdown('stdin closed');
}

main().catch((error: unknown) => {
  process.stderr.write(
    `vigil mcp failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

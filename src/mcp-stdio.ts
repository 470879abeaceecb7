import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createDeps } from './deps.ts';
import { modules } from './modules.ts';
import type { Viewer } from './platform/http/client-identity.ts';
import { routeConsoleToStderr, serveMcpStdio } from './platform/mcp/mcp-stdio.ts';
import { resourcesOf } from './platform/module.ts';

/**
 * The caller of every stdio request. stdio runs as the local operator: whoever can start this
 * process already has the machine's data and configuration (access control comes later).
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
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const deps = await createDeps(config, modules);
  const { logger } = deps;
  const app = buildApp(deps, modules);

  let stopping = false;
  const shutdown = (reason: string) => {
    if (stopping) {
      if (reason.startsWith('SIG')) {
        logger.warn({ reason }, 'second signal: exiting without waiting');
        process.exit(1);
      }
      return;
    }
    stopping = true;
    logger.info({ reason }, 'mcp stdio server stopping');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));

  try {
    await app.startWithoutListening();
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    await app.stop().catch(() => {});
    process.exit(1);
  }
  const session = await serveMcpStdio({
    server: {
      info: { name: 'vigil', version: deps.serverInfo.version },
      tools: app.tools,
      resources: resourcesOf(modules, deps),
      errors: app.errors,
      logger: logger.child({ component: 'mcp' }),
    },
    caller: { viewer: LOCAL_OPERATOR },
  });
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

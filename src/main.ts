import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createDeps } from './deps.ts';
import { modules } from './modules.ts';

/**
 * Composition root: the only place that reads configuration, opens the port and installs signal
 * handlers. SIGINT/SIGTERM shut down gracefully and exit 0; a second signal exits at once.
 */
async function main(): Promise<void> {
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
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'signal received');
    app.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));

  try {
    await app.start({ port: config.port, host: config.host });
  } catch (error) {
    logger.fatal({ err: error }, 'could not start');
    await app.stop().catch(() => {});
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `vigil failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

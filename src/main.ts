import { buildApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { createDeps } from './deps.ts';
import { modules } from './modules.ts';
import { exitAfterStop } from './platform/lifecycle.ts';

/**
 * Composition root: the only place that reads configuration, opens the port and installs signal
 * handlers. SIGINT/SIGTERM shut down gracefully and exit 0; a second signal exits at once.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const deps = await createDeps(config, modules);
  const { logger } = deps;
  const app = buildApp(deps, modules);
  exitAfterStop(logger, () => app.stop());

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

import { relative, sep } from 'node:path';
import type { App } from './app.ts';
import { openAppDatabase } from './app-database.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './platform/db/database.ts';
import type { Logger } from './platform/observability/logger.ts';
import type { StartPhases } from './platform/observability/start-phases.ts';

/**
 * The part of a start every entry point shares: the app's code loads while the database opens
 * (a new embedded database is created in a child process meanwhile, on the other core), then the
 * services are wired and the app is built. Each phase is logged with its duration.
 */
export async function buildVigil(config: Config, logger: Logger, phases: StartPhases): Promise<App> {
  const database = phases.time('database opened and migrated', 'opening the database', () =>
    openAppDatabase(config, logger, {
      onCreate: () =>
        logger.info(
          { dir: config.database.dataDir },
          `creating the embedded database in ${shownDir(config.database.dataDir)}, first start only`,
        ),
    }),
  );
  const runtime = phases.time('code loaded', 'loading the code', () => import('./runtime.ts'));
  let handle: DatabaseHandle | undefined;
  try {
    const [code, opened] = await Promise.all([runtime, database]);
    handle = opened;
    const { createDeps, buildApp, modules } = code;
    const deps = await phases.time('services wired', 'wiring the services', () =>
      createDeps(config, { logger, database: opened }),
    );
    return await phases.time('app built', 'building the app', () => buildApp(deps, modules));
  } catch (error) {
    await (handle ?? (await database.catch(() => undefined)))?.close().catch(() => {});
    throw error;
  }
}

/** A directory as the person who started Vigil would write it: relative when it is below here. */
export function shownDir(dir: string): string {
  const path = relative(process.cwd(), dir);
  if (path === '') return '.';
  if (path.startsWith('..') || path.startsWith(sep)) return dir;
  return `.${sep}${path}`;
}

import { type App, buildApp } from '../../src/app.ts';
import { parseConfig } from '../../src/config.ts';
import { createDeps, type DepsOverrides } from '../../src/deps.ts';
import { modules } from '../../src/modules.ts';
import { createLogger } from '../../src/platform/observability/logger.ts';
import { createTestDatabase, type Driver, type TestDatabase } from './databases.ts';

export interface TestApp {
  readonly app: App;
  readonly database: TestDatabase;
  /** Base URL once started (`listen: true`). */
  readonly url: string;
  readonly wsUrl: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  readonly env?: Record<string, string>;
  readonly listen?: boolean;
  readonly driver?: Driver;
  readonly overrides?: DepsOverrides;
  /**
   * An existing database to share (a second instance on the first one's database): it is used as
   * is and left for its owner to clean up.
   */
  readonly database?: TestDatabase;
}

/** A real app on its own database; `listen` starts it (jobs, port 0) for WebSocket and readiness tests. */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const shared = options.database;
  const database = shared ?? (await createTestDatabase(options.driver));
  const config = parseConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: database.dataDir,
    SHUTDOWN_TIMEOUT_MS: '3000',
    // Watchdog checks read a lot of market data at start; suites about them turn them on.
    WATCHDOGS_RUN: 'false',
    ...(database.url ? { DATABASE_URL: database.url } : {}),
    ...options.env,
  });
  const deps = await createDeps(config, {
    logger: createLogger(config.logLevel),
    ...options.overrides,
  });
  const app = buildApp(deps, modules);
  let url = '';
  if (options.listen) {
    url = (await app.start({ port: 0, host: '127.0.0.1' })).url;
    // Tests start where a started server is a moment later: job workers, schedules and first checks running.
    await app.warmedUp;
  }
  return {
    app,
    database,
    url,
    wsUrl: url.replace(/^http/, 'ws'),
    async close() {
      await app.stop();
      if (!shared) await database.cleanup();
    },
  };
}

export async function graphql<T = Record<string, unknown>>(
  app: App,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Headers;
  body: { data?: T; errors?: Array<Record<string, unknown>> };
}> {
  const response = await app.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

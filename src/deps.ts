import { randomUUID } from 'node:crypto';
import type { Config } from './config.ts';
import { FkDslService } from './fk-dsl/fk-dsl.service.ts';
import { PriceHub } from './market-data/hub/price-hub.ts';
import { MarketDataService } from './market-data/market-data.service.ts';
import type { MarketDataProvider } from './market-data/providers/provider.ts';
import { createProviders } from './market-data/providers/registry.ts';
import type { ToolCallRecorder } from './market-data/tools/tool-calls.ts';
import { type Clock, systemClock } from './platform/clock.ts';
import { type DatabaseHandle, openDatabase, pgliteDirFor } from './platform/db/database.ts';
import { runMigrations } from './platform/db/migrate.ts';
import { Jobs, type JobsOptions } from './platform/jobs/jobs.ts';
import { createLogger, type Logger } from './platform/observability/logger.ts';
import { createMetrics, type Metrics } from './platform/observability/metrics.ts';
import { createAppPubSub, type PubSub } from './platform/pubsub.ts';
import { ServerInfoService } from './platform/server-info/server-info.service.ts';
import { VERSION } from './platform/version.ts';

/** Everything the app needs, created once by the composition root and passed down as plain values. */
export interface AppDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly metrics: Metrics;
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly pubsub: PubSub;
  readonly serverInfo: ServerInfoService;
  readonly marketData: MarketDataService;
  readonly priceHub: PriceHub;
  /** Where data tools report calls that carry a sessionId (the sessions domain records them). */
  readonly toolCalls: ToolCallRecorder;
  readonly fkDsl: FkDslService;
}

export interface DepsOverrides {
  readonly logger?: Logger;
  readonly clock?: Clock;
  readonly jobs?: Partial<Omit<JobsOptions, 'logger'>>;
  /** Replaces the configured market-data providers (tests use fakes and fixture-backed adapters). */
  readonly providers?: readonly MarketDataProvider[];
  readonly toolCalls?: ToolCallRecorder;
}

/** Opens the database (migrating it) and wires every service. Starts nothing that runs by itself. */
export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<AppDeps> {
  const logger = overrides.logger ?? createLogger(config.logLevel);
  const clock = overrides.clock ?? systemClock;
  const database = await openDatabase({
    url: config.database.url,
    pgliteDir: pgliteDirFor(config.database.dataDir),
    logger,
  });
  try {
    await runMigrations(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  const providers = overrides.providers ?? createProviders(config.marketData, clock);
  const marketData = new MarketDataService(providers, clock, logger, {
    timeoutMs: config.marketData.timeoutMs,
  });
  const jobs = new Jobs(database, { ...overrides.jobs, logger });
  return {
    config,
    logger,
    clock,
    metrics: createMetrics(),
    database,
    jobs,
    pubsub: createAppPubSub(),
    serverInfo: new ServerInfoService(database.db, clock, logger, database.mode, VERSION, randomUUID()),
    marketData,
    fkDsl: new FkDslService(
      database.db,
      jobs,
      marketData,
      clock,
      logger.child({ component: 'fk-dsl' }),
      config.fkDsl,
    ),
    priceHub: new PriceHub(marketData, logger.child({ component: 'price-hub' })),
    toolCalls: overrides.toolCalls ?? {
      // Until analysis sessions exist, a call's session is only noted in the log.
      async record(call) {
        logger.debug(
          { tool: call.tool, sessionId: call.sessionId, summary: call.resultSummary },
          'tool call in session',
        );
      },
    },
  };
}

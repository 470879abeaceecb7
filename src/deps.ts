import { randomUUID } from 'node:crypto';
import type { AlertsDomain } from './alerts/alerts.domain.ts';
import { createAlerts } from './alerts/alerts.factory.ts';
import { ApiKeyService } from './api-keys/api-key.service.ts';
import { openAppDatabase } from './app-database.ts';
import type { Config } from './config.ts';
import { FkDslService } from './fk-dsl/fk-dsl.service.ts';
import { createSharedCache } from './market-data/cache/shared-cache.setup.ts';
import { PriceHub } from './market-data/hub/price-hub.ts';
import { MarketDataMetrics } from './market-data/market-data.metrics.ts';
import { MarketDataService } from './market-data/market-data.service.ts';
import type { MarketDataProvider } from './market-data/providers/provider.ts';
import { createProviders } from './market-data/providers/registry.ts';
import { FeedCoordinator } from './market-data/relay/feed-coordinator.ts';
import { relayMetrics } from './market-data/relay/relay.metrics.ts';
import { PriceStreams } from './market-data/streams/price-stream.ws.ts';
import { type Scheduler, systemClock } from './platform/clock.ts';
import type { DatabaseHandle } from './platform/db/database.ts';
import { Jobs, type JobsOptions } from './platform/jobs/jobs.ts';
import { createLogger, type Logger } from './platform/observability/logger.ts';
import { createMetrics, type Metrics } from './platform/observability/metrics.ts';
import { VERSION } from './platform/version.ts';
import { ServerInfoService } from './server-info/server-info.service.ts';
import { createSessions, type SessionsDomain } from './sessions/sessions.domain.ts';
import type { ToolCallRecorder } from './sessions/tool-calls.port.ts';
import { resolveWatchdogSettings } from './watchdogs/settings.ts';
import type { WatchdogService } from './watchdogs/watchdog.service.ts';
import { createWatchdogs } from './watchdogs/watchdogs.factory.ts';

/** Everything the app needs, created once by the composition root and passed down as plain values. */
export interface AppDeps {
  readonly config: Config;
  readonly logger: Logger;
  /** Time and timers: the system's, or a test's controlled clock. */
  readonly clock: Scheduler;
  readonly metrics: Metrics;
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly serverInfo: ServerInfoService;
  readonly marketData: MarketDataService;
  readonly priceHub: PriceHub;
  /** Price feeds shared with the other instances on a Postgres server; none on the embedded database or with PRICE_RELAY=off. */
  readonly priceRelay: FeedCoordinator | undefined;
  readonly priceStreams: PriceStreams;
  /** Where data tools report calls that carry a sessionId (the sessions domain records them). */
  readonly toolCalls: ToolCallRecorder;
  readonly fkDsl: FkDslService;
  /** API keys: verification (cached), issue and revocation. */
  readonly apiKeys: ApiKeyService;
  /** The eight watchdogs: their checks, health, operator commands and events. */
  readonly watchdogs: WatchdogService;
  /** Alerts: rules, firing, delivery. */
  readonly alerts: AlertsDomain;
  /** Analysis sessions (store, recorder of the data tools' calls, analytics, upkeep). */
  readonly sessions: SessionsDomain;
}

export interface DepsOverrides {
  readonly logger?: Logger;
  readonly clock?: Scheduler;
  readonly jobs?: Partial<Omit<JobsOptions, 'logger'>>;
  /** Replaces the configured market-data providers (tests use fakes and fixture-backed adapters). */
  readonly providers?: readonly MarketDataProvider[];
  readonly toolCalls?: ToolCallRecorder;
  /**
   * The app's database, already opened and migrated (the entry points open it while the code
   * loads); it then belongs to the app, which closes it when it stops.
   */
  readonly database?: DatabaseHandle;
}

/**
 * Wires every service on the app's database (opening and migrating it unless it is given). Starts
 * nothing that runs by itself.
 */
export async function createDeps(config: Config, overrides: DepsOverrides = {}): Promise<AppDeps> {
  // Checked before anything opens: a wrong watchdog setting stops the start with its name (the
  // entry points have checked it with the rest of the configuration already).
  const watchdogSettings = resolveWatchdogSettings(config.watchdogs);
  const logger = overrides.logger ?? createLogger(config.logLevel, { bufferBytes: config.logBufferBytes });
  const clock = overrides.clock ?? systemClock;
  const database = overrides.database ?? (await openAppDatabase(config, logger));
  const providers = overrides.providers ?? createProviders(config.marketData, clock, config.watchdogs);
  const metrics = createMetrics();
  const marketDataMetrics = new MarketDataMetrics(metrics.registry);
  const marketData = new MarketDataService(
    providers,
    clock,
    logger,
    { timeoutMs: config.marketData.timeoutMs },
    {
      cacheMaxBytes: config.marketData.cacheMaxBytes,
      maxSymbolsPerOperation: config.marketData.maxSymbolsPerOperation,
      upstreamCallsPerClientPerMinute: config.marketData.upstreamCallsPerClientPerMinute,
    },
    marketDataMetrics,
    createSharedCache({
      database,
      mode: config.marketData.sharedCache,
      maxBytes: config.marketData.cacheMaxBytes,
      providerIds: providers.map((p) => p.id),
      clock,
      logger,
      registry: metrics.registry,
    }),
  );
  const jobs = new Jobs(database, { ...overrides.jobs, logger });
  const instanceId = randomUUID();
  const { priceHub, priceRelay } = priceFeeds(config, {
    database,
    marketData,
    metrics,
    clock,
    logger,
    instanceId,
  });
  marketDataMetrics.sampleFrom({ marketData, priceHub });
  const serverInfo = new ServerInfoService(database.db, clock, logger, database.mode, VERSION, instanceId);
  const fkDsl = new FkDslService(
    database.db,
    jobs,
    marketData,
    clock,
    logger.child({ component: 'fk-dsl' }),
    config.fkDsl,
    serverInfo,
  );
  const sessions = createSessions({ settings: config.sessions, database, clock, logger });
  const watchdogs = createWatchdogs({
    settings: watchdogSettings,
    database,
    jobs,
    clock,
    logger,
    marketData,
    registry: metrics.registry,
  });
  const alerts = createAlerts({
    config,
    database,
    jobs,
    clock,
    logger,
    watchdogs,
    marketData,
    fkDsl,
    registry: metrics.registry,
  });
  // The outbox: a watchdog event is stored with its alert firing job, in one transaction.
  watchdogs.onEventsStored((tx, events) => alerts.eventsStored(tx, events));
  return {
    config,
    logger,
    clock,
    metrics,
    database,
    jobs,
    serverInfo,
    marketData,
    priceHub,
    priceRelay,
    priceStreams: new PriceStreams(priceHub, marketData, logger.child({ component: 'price-streams' }), () =>
      metrics.rateLimited('websocket'),
    ),
    fkDsl,
    apiKeys: new ApiKeyService({
      database,
      clock,
      logger: logger.child({ component: 'access' }),
      adminApiKey: config.auth.adminApiKey,
    }),
    watchdogs,
    alerts,
    sessions,
    toolCalls: overrides.toolCalls ?? sessions.tracker,
  };
}

/**
 * The price hub, and with a Postgres server (unless PRICE_RELAY=off) the coordinator that shares
 * its feeds with the other instances (one polls each, the others hear it relayed).
 */
function priceFeeds(
  config: Config,
  o: {
    readonly database: DatabaseHandle;
    readonly marketData: MarketDataService;
    readonly metrics: Metrics;
    readonly clock: Scheduler;
    readonly logger: Logger;
    readonly instanceId: string;
  },
): { priceHub: PriceHub; priceRelay: FeedCoordinator | undefined } {
  let priceRelay: FeedCoordinator | undefined;
  const observer = relayMetrics(o.metrics.registry, {
    coordinator: () => priceRelay,
    localFeeds: () => priceHub.stats().feeds,
  });
  if (o.database.mode === 'postgres' && config.marketData.relay === 'auto') {
    priceRelay = new FeedCoordinator({
      database: o.database,
      instanceId: o.instanceId,
      pollIntervalMs: config.marketData.pollIntervalMs,
      logger: o.logger.child({ component: 'price-relay' }),
      observer,
    });
  }
  const priceHub = new PriceHub(o.marketData, o.logger.child({ component: 'price-hub' }), {
    clock: o.clock,
    pollIntervalMs: config.marketData.pollIntervalMs,
    ...(priceRelay ? { coordinator: priceRelay } : {}),
  });
  return { priceHub, priceRelay };
}

import type { Registry } from 'prom-client';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Scheduler } from '../platform/clock.ts';
import type { DatabaseHandle } from '../platform/db/database.ts';
import type { Jobs } from '../platform/jobs/jobs.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { createWatchdogChecks } from './checks/index.ts';
import { WatchdogEventBus } from './event-bus.ts';
import { WatchdogRunner } from './runner.ts';
import type { WatchdogSettings } from './settings.ts';
import { watchdogMetrics } from './watchdog.metrics.ts';
import { WatchdogService } from './watchdog.service.ts';

export interface WatchdogsFactoryDeps {
  readonly settings: WatchdogSettings;
  readonly database: DatabaseHandle;
  readonly jobs: Jobs;
  readonly clock: Scheduler;
  readonly logger: Logger;
  readonly marketData: MarketDataService;
  readonly registry: Registry;
}

/** The watchdogs domain, wired from resolved settings (see resolveWatchdogSettings); nothing started. */
export function createWatchdogs(deps: WatchdogsFactoryDeps): WatchdogService {
  const { settings } = deps;
  const logger = deps.logger.child({ component: 'watchdogs' });
  const bus = new WatchdogEventBus({
    database: deps.database,
    clock: deps.clock,
    logger,
    maxListeners: settings.eventMaxListeners,
  });
  const runner = new WatchdogRunner({
    database: deps.database,
    jobs: deps.jobs,
    bus,
    clock: deps.clock,
    logger,
    definitions: createWatchdogChecks({ marketData: deps.marketData, database: deps.database }, settings),
    rearm: settings.rearm,
    run: settings.run,
    observer: watchdogMetrics(deps.registry),
  });
  return new WatchdogService({
    database: deps.database,
    clock: deps.clock,
    logger,
    bus,
    runner,
    eventRetentionDays: settings.eventRetentionDays,
    watched: { symbols: settings.symbols, pairs: settings.pairs },
  });
}

/**
 * The definitions the runner schedules: one per configured watchdog, in registry order, each
 * with its check over the watched symbols and pairs (the data-fetching side, in its kind's folder)
 * and its detector bound to its thresholds.
 */
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Finding } from '../detectors/finding.ts';
import type { WatchdogSettings } from '../settings.ts';
import type { WatchdogDefinition } from '../watchdog.ts';
import { assetDescriber } from './assets.ts';

export interface WatchdogCheckDeps {
  readonly marketData: MarketDataService;
  /** Where a watchdog keeps history of its own (the liquidity watchdog's depth samples). */
  readonly database: DatabaseHandle;
}

export function createWatchdogChecks<N extends string, F extends Finding>(
  deps: WatchdogCheckDeps,
  settings: WatchdogSettings<N, F, unknown>,
): WatchdogDefinition<N, F>[] {
  const shared = { ...deps, describe: assetDescriber(() => deps.marketData.universe()) };
  const { symbols, pairs, timescale } = settings;
  return settings.watchdogs.map((w) =>
    w.definition(shared, { symbols, pairs, timescale, intervalMs: settings.intervalsMs[w.name] }),
  );
}

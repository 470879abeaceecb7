/**
 * The data-fetching side of the eight watchdogs: one definition per watchdog, in WATCHDOG_NAMES
 * order, each reading the market-data service and handing what it read to its pure detector.
 */
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { WatchdogSettings } from '../settings.ts';
import type { WatchdogDefinition } from '../watchdog.ts';
import { assetDescriber } from './assets.ts';
import { createCorrelationBreakdownCheck } from './correlation-breakdown.check.ts';
import { createEarningsAnomalyCheck } from './earnings-anomaly.check.ts';
import { createExchangeOutageCheck } from './exchange-outage.check.ts';
import { createFundingRateCheck } from './funding-rate.check.ts';
import { createLiquidityDropCheck } from './liquidity-drop.check.ts';
import { createPriceAnomalyCheck } from './price-anomaly.check.ts';
import { createUnusualVolumeCheck } from './unusual-volume.check.ts';
import { createWhaleMovementCheck } from './whale-movement.check.ts';

export interface WatchdogCheckDeps {
  readonly marketData: MarketDataService;
  /** Where the liquidity watchdog keeps its depth baseline. */
  readonly database: DatabaseHandle;
}

export function createWatchdogChecks(
  deps: WatchdogCheckDeps,
  settings: WatchdogSettings,
): WatchdogDefinition[] {
  const shared = { ...deps, describe: assetDescriber(() => deps.marketData.universe()) };
  return [
    createEarningsAnomalyCheck(shared, settings),
    createUnusualVolumeCheck(shared, settings),
    createWhaleMovementCheck(shared, settings),
    createFundingRateCheck(shared, settings),
    createLiquidityDropCheck(shared, settings),
    createCorrelationBreakdownCheck(shared, settings),
    createExchangeOutageCheck(shared, settings),
    createPriceAnomalyCheck(shared, settings),
  ];
}

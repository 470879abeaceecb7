import { Counter, type Registry } from 'prom-client';
import type { Clock } from '../../platform/clock.ts';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import { DEFAULT_CACHE_MAX_ENTRIES } from './market-data-cache.ts';
import { type SharedCacheResult, SharedMarketDataCache } from './shared-cache.ts';

const RESULTS: readonly SharedCacheResult[] = ['hit', 'miss', 'stale', 'write', 'error'];

export interface SharedCacheSetup {
  readonly database: DatabaseHandle;
  /** MARKET_DATA_SHARED_CACHE: `auto` shares on Postgres, `off` never. */
  readonly mode: 'auto' | 'off';
  /** The local cache's byte bound, which the shared table keeps too. */
  readonly maxBytes: number;
  readonly providerIds: readonly string[];
  readonly clock: Clock;
  readonly logger: Logger;
  readonly registry: Registry;
}

/**
 * The shared cache when instances can share one (on Postgres, unless turned off), else undefined:
 * on the embedded database one process serves, and its own cache makes no database round trip.
 * The metric exists either way, so a dashboard reads zeros rather than nothing.
 */
export function createSharedCache(setup: SharedCacheSetup): SharedMarketDataCache | undefined {
  const results = new Counter({
    name: 'vigil_market_data_shared_cache_total',
    help: 'Shared market-data cache (Postgres): lookups by result (hit, miss, stale), rows written (write), failures (error)',
    labelNames: ['result'],
    registers: [setup.registry],
  });
  for (const result of RESULTS) results.inc({ result }, 0);
  if (setup.database.mode !== 'postgres' || setup.mode === 'off') return undefined;
  return new SharedMarketDataCache(
    setup.database.db,
    setup.clock,
    setup.logger.child({ component: 'market-data-shared-cache' }),
    {
      maxBytes: setup.maxBytes,
      maxEntries: DEFAULT_CACHE_MAX_ENTRIES,
      providerIds: setup.providerIds,
      count: (result) => results.inc({ result }),
    },
  );
}

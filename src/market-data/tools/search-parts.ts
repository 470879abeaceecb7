import type { Clock } from '../../platform/clock.ts';
import type { ToolCallRecorder } from '../../sessions/tool-calls.port.ts';
import type { Sourced } from '../arbitration/lineage.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { Instrument } from '../types.ts';

/** What the search tools (search-by-symbol, search-by-coin) are built from. */

export interface ToolContext {
  readonly marketData: MarketDataService;
  readonly clock: Clock;
  readonly toolCalls?: ToolCallRecorder;
}

/** Runs an optional part of an answer; a failure becomes a warning instead of failing the call. */
export async function attempt<T>(
  warnings: string[],
  what: string,
  run: () => Promise<T>,
  supported = true,
): Promise<T | undefined> {
  if (!supported) {
    warnings.push(`${what}: no configured provider offers it`);
    return undefined;
  }
  try {
    return await run();
  } catch (error) {
    warnings.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/**
 * Whether every part that was read came from the cache; a part not read (failed, unsupported or
 * not asked for at this depth) does not count against it.
 */
export function allCached(...parts: readonly (Sourced<unknown> | undefined)[]): boolean {
  return parts.every((part) => part?.lineage.cache.hit ?? true);
}

export function universeName(marketData: MarketDataService, instrument: Instrument): string | null {
  const entry = marketData
    .universe()
    .find(
      (e) => e.instrument.symbol === instrument.symbol && e.instrument.assetClass === instrument.assetClass,
    );
  return entry?.name ?? null;
}

import { parseInstrument } from '../market-data/instruments.ts';
import type { UniverseEntry } from '../market-data/providers/provider.ts';
import type { Instrument } from '../market-data/types.ts';
import { FkDslQueryError } from './errors.ts';

/**
 * The named universes `SCAN <universe>` covers. A provider that lists its instruments (the
 * simulated market does) defines them; otherwise the SCAN_UNIVERSE_* settings do. One function
 * answers both the scan and `universes`, so what an agent is shown is what a scan reads.
 */

export const SCAN_UNIVERSES = ['US', 'ETF', 'CRYPTO', 'ALL'] as const;
export type ScanUniverseName = (typeof SCAN_UNIVERSES)[number];

export interface ScanUniverse {
  readonly name: ScanUniverseName;
  /** `providers`: a configured provider lists the instruments; `configuration`: SCAN_UNIVERSE_* settings. */
  readonly source: 'providers' | 'configuration';
  readonly instruments: readonly Instrument[];
}

export interface ScanUniverseSettings {
  readonly US: readonly string[];
  readonly CRYPTO: readonly string[];
}

export function scanUniverse(
  written: string,
  listed: readonly UniverseEntry[],
  settings: ScanUniverseSettings,
  max: number,
): ScanUniverse {
  const name = written.toUpperCase();
  const known = listed.map((e) => e.instrument);
  const pick = (
    test: (i: Instrument) => boolean,
    fallback: readonly string[],
    crypto = false,
  ): ScanUniverse => {
    const own = known.filter(test);
    const list = own.length
      ? own
      : fallback.map((s) => parseInstrument(s, crypto ? { assetClass: 'crypto' } : {}));
    return {
      name: name as ScanUniverseName,
      source: own.length ? 'providers' : 'configuration',
      instruments: list.slice(0, max),
    };
  };
  // One pair per coin: the USDT pair stands for the coin in scans.
  const usdtPair = (i: Instrument) => i.assetClass === 'crypto' && i.quote === 'USDT';
  switch (name) {
    case 'US':
      return pick(
        (i) => (i.assetClass === 'equity' || i.assetClass === 'etf') && (i.market ?? 'US') === 'US',
        settings.US,
      );
    case 'ETF':
      return pick((i) => i.assetClass === 'etf', []);
    case 'CRYPTO':
      return pick(usdtPair, settings.CRYPTO, true);
    case 'ALL': {
      const parts = [
        scanUniverse('US', listed, settings, max),
        scanUniverse('CRYPTO', listed, settings, max),
      ];
      return {
        name: 'ALL',
        source: parts.every((p) => p.source === 'providers') ? 'providers' : 'configuration',
        instruments: parts.flatMap((p) => p.instruments).slice(0, max),
      };
    }
    default:
      throw new FkDslQueryError(
        `unknown universe ${written}; use US, ETF, CRYPTO, ALL or a list like [AAPL, MSFT]`,
        { universe: written },
      );
  }
}

/**
 * What an event is about beyond its symbol: asset type, name, market, exchange and currency, from
 * the instrument notation and the providers' own universe (the simulated market lists names).
 */
import { marketInfo } from '../../market-data/markets.ts';
import type { UniverseEntry } from '../../market-data/providers/provider.ts';
import type { Instrument } from '../../market-data/types.ts';
import type { AssetDescriber, SubjectAsset } from '../watchdog.ts';

/** A describer over a universe listing, indexed once (the listing is read lazily, at first use). */
export function assetDescriber(universe: () => readonly UniverseEntry[]): AssetDescriber {
  let index: Map<string, UniverseEntry> | undefined;
  return (instrument) => {
    index ??= new Map(universe().map((e) => [keyOf(e.instrument), e]));
    return describeAsset(instrument, index.get(keyOf(instrument)));
  };
}

/** A parsed ticker is an equity whether it is a share or an ETF, and a US listing unless told. */
function keyOf(i: Instrument): string {
  const listed = i.assetClass === 'equity' || i.assetClass === 'etf';
  return `${listed ? 'equity' : i.assetClass}:${listed ? (i.market ?? 'US') : ''}:${i.symbol}`;
}

export function describeAsset(instrument: Instrument, entry?: UniverseEntry): SubjectAsset {
  const listed =
    instrument.assetClass === 'equity' ||
    instrument.assetClass === 'etf' ||
    instrument.assetClass === 'index';
  const market = listed && instrument.assetClass !== 'index' ? (instrument.market ?? 'US') : undefined;
  const currency =
    instrument.quote ?? (market ? marketInfo(market)?.currency : undefined) ?? (listed ? 'USD' : undefined);
  return {
    symbol: instrument.symbol,
    // The universe knows an ETF from a share; the notation alone reads both as equities.
    assetType: entry?.instrument.assetClass ?? instrument.assetClass,
    ...(entry?.name ? { name: entry.name } : {}),
    ...(market ? { market } : {}),
    ...(entry?.exchange ? { exchange: entry.exchange } : {}),
    ...(currency ? { currency } : {}),
  };
}

/** The assets of the subjects findings were made about, by symbol. */
export function assetsOf(
  describe: AssetDescriber,
  subjects: readonly { readonly symbol: string; readonly instrument: Instrument }[],
  symbols: Iterable<string | null>,
): Map<string, SubjectAsset> {
  const wanted = new Set(symbols);
  const out = new Map<string, SubjectAsset>();
  for (const s of subjects)
    if (wanted.has(s.symbol) && !out.has(s.symbol)) out.set(s.symbol, describe(s.instrument));
  return out;
}

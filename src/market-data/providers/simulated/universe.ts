import type { AssetClass, Instrument } from '../../types.ts';
import type { Capability, UniverseEntry } from '../provider.ts';
import { OBSERVED_SERIES, type ObservedSeriesCode } from './macro.ts';
import { type CoinSpec, LISTED, type ListedSpec, type PathSpec } from './universe-data.ts';
import { COIN_QUOTES, COINS, FX, INDICES, MACRO_MARKETS, USDC_USDT } from './universe-markets.ts';

/**
 * Instruments of the simulated market and how each maps onto a price path: BTC/USDT, BTC/USDC and
 * BTC/USD share Bitcoin's path, ^GSPC is SPY's path scaled, USDT/USDC is the inverse of USDC/USDT.
 */
export interface View {
  readonly path: PathSpec;
  readonly scale: number;
  readonly invert: boolean;
  /** Share of the path's volume traded in this instrument; null when the instrument has no volume. */
  readonly volumeShare: number | null;
  /** Rounds a price to the instrument's tick (monotone, so aggregates of rounded values agree). */
  readonly round: (price: number) => number;
}

export interface Known {
  readonly instrument: Instrument;
  readonly name: string;
  readonly exchange: string | null;
  readonly sector: string | null;
  readonly industry: string | null;
  readonly currency: string;
  /** Priced from a path; absent for monthly/quarterly macro series. */
  readonly view?: View;
  readonly observed?: ObservedSeriesCode;
  readonly listed?: ListedSpec;
  /** The base coin of a crypto pair. */
  readonly coin?: CoinSpec;
}

export const VENUE = 'simulated';
export const CRYPTO_EXCHANGE = 'Simulated exchange';

const roundTo = (decimals: number) => {
  const f = 10 ** decimals;
  return (price: number) => Math.round(price * f) / f;
};

/** Six significant digits, like crypto venues quote across price magnitudes. */
export function roundSignificant(price: number): number {
  if (!(price > 0)) return price;
  const f = 10 ** (5 - Math.floor(Math.log10(price)));
  return Math.round(price * f) / f;
}

const cents = roundTo(2);
const view = (
  path: PathSpec,
  round: View['round'],
  volumeShare: number | null,
  scale = 1,
  invert = false,
) => ({
  path,
  scale,
  invert,
  volumeShare,
  round,
});

/** Where each quote asset's share of a coin's volume trades. */
const QUOTE_SHARE: Readonly<Record<(typeof COIN_QUOTES)[number], number>> = {
  USDT: 0.6,
  USDC: 0.15,
  USD: 0.25,
};

function build(): Known[] {
  const known: Known[] = [];
  for (const spec of LISTED) {
    known.push({
      instrument: { symbol: spec.symbol, assetClass: spec.assetClass, market: 'US' },
      name: spec.name,
      exchange: spec.exchange,
      sector: spec.sector,
      industry: spec.industry,
      currency: 'USD',
      view: view(spec.path, cents, 1),
      listed: spec,
    });
  }
  for (const index of INDICES) {
    const etf = LISTED.find((l) => l.symbol === index.etf)!;
    known.push({
      instrument: { symbol: index.symbol, assetClass: 'index' },
      name: index.name,
      exchange: index.exchange,
      sector: null,
      industry: null,
      currency: 'USD',
      view: view(etf.path, cents, null, index.scale),
    });
  }
  for (const coin of COINS) {
    for (const quote of COIN_QUOTES) {
      if (quote === coin.symbol) continue;
      let pairView: View;
      if (!coin.stable) pairView = view(coin.path, roundSignificant, QUOTE_SHARE[quote]);
      else if (quote === 'USD') pairView = view(coin.path, roundSignificant, 1);
      else pairView = view(USDC_USDT, roundSignificant, 1, 1, coin.symbol === 'USDT');
      known.push({
        instrument: { symbol: `${coin.symbol}/${quote}`, assetClass: 'crypto', base: coin.symbol, quote },
        name: `${coin.name} / ${quote}`,
        exchange: CRYPTO_EXCHANGE,
        sector: 'Cryptocurrency',
        industry: coin.industry,
        currency: quote,
        view: pairView,
        coin,
      });
    }
  }
  for (const fx of FX) {
    known.push({
      instrument: { symbol: fx.symbol, assetClass: 'fx', base: fx.base, quote: fx.quote },
      name: fx.name,
      exchange: null,
      sector: null,
      industry: null,
      currency: fx.quote,
      view: view(fx.path, roundTo(fx.quote === 'JPY' ? 3 : 5), null),
    });
  }
  for (const macro of MACRO_MARKETS) {
    known.push({
      instrument: { symbol: macro.symbol, assetClass: 'macro' },
      name: macro.name,
      exchange: null,
      sector: null,
      industry: null,
      currency: 'USD',
      view: view(macro.path, roundTo(macro.decimals), null),
    });
  }
  for (const series of OBSERVED_SERIES) {
    known.push({
      instrument: { symbol: series.code, assetClass: 'macro' },
      name: series.name,
      exchange: null,
      sector: null,
      industry: null,
      currency: 'USD',
      observed: series.code,
    });
  }
  return known;
}

const KNOWN = build();
const BY_KEY = new Map(KNOWN.map((k) => [keyOf(k.instrument.assetClass, k.instrument.symbol), k]));

function keyOf(assetClass: AssetClass, symbol: string): string {
  // A bare ticker parses as an equity whether it is a stock or an ETF.
  return `${assetClass === 'etf' ? 'equity' : assetClass}:${symbol}`;
}

/** The universe entry behind an instrument, or undefined when the simulated market does not know it. */
export function resolve(instrument: Instrument): Known | undefined {
  const known = BY_KEY.get(keyOf(instrument.assetClass, instrument.symbol.toUpperCase()));
  if (!known) return undefined;
  if (known.listed && instrument.market !== undefined && instrument.market.toUpperCase() !== 'US')
    return undefined;
  return known;
}

export const universeEntries: readonly UniverseEntry[] = KNOWN.map((k) => ({
  instrument: k.instrument,
  name: k.name,
  exchange: k.exchange,
  sector: k.sector,
}));

/** Capabilities that make sense for an instrument (not just ones the provider has). */
export function capableOf(capability: Capability, known: Known): boolean {
  const assetClass = known.instrument.assetClass;
  switch (capability) {
    case 'quote':
    case 'bars':
    case 'venueStatus':
    case 'search':
      return true;
    case 'stream':
      return known.view !== undefined;
    case 'profile':
      return assetClass === 'equity' || assetClass === 'etf' || assetClass === 'crypto';
    case 'cryptoStats':
    case 'orderBook':
    case 'transfers':
    case 'largeTrades':
      return assetClass === 'crypto';
    case 'funding':
      return assetClass === 'crypto' && known.coin?.stable === false;
    case 'earnings':
      return assetClass === 'equity';
  }
}

/** Coins whose paths carry the demo-mode price anomalies (none of them is in a default watched pair). */
export const ANOMALY_COINS = ['BNB', 'DOGE', 'LINK', 'LTC', 'TRX', 'BCH', 'ATOM', 'NEAR', 'UNI', 'ETC'];

export const TRADED_COINS: readonly CoinSpec[] = COINS.filter((c) => !c.stable);
export const EQUITIES: readonly ListedSpec[] = LISTED.filter((l) => l.assetClass === 'equity');

import type { CalendarKind } from './calendar.ts';

/**
 * The simulated universe: real instruments (names, exchanges, sectors, share counts and supplies
 * close to reality) whose prices are simulated. Levels are anchored so that the simulated price is
 * near the real one on 2015-01-02 and 2025-01-02 (split-adjusted); between and after those dates the
 * path is the model's own.
 */

/** Common drivers of returns; loadings on them make assets move together. */
export type Factor =
  | 'market'
  | 'tech'
  | 'fin'
  | 'energy'
  | 'defensive'
  | 'crypto'
  | 'alt'
  | 'rates'
  | 'dollar'
  | 'gold';

export const FACTORS: readonly Factor[] = [
  'market',
  'tech',
  'fin',
  'energy',
  'defensive',
  'crypto',
  'alt',
  'rates',
  'dollar',
  'gold',
];

/** Behaviour class of a price path; kind-wide parameters live in daily.ts. */
export type PathKind = 'equity' | 'etf' | 'coin' | 'stable' | 'fx' | 'rate' | 'vix';

/** One simulated price path (several instruments may share it: BTC/USDT, BTC/USDC and BTC/USD). */
export interface PathSpec {
  readonly key: string;
  readonly kind: PathKind;
  readonly calendar: CalendarKind;
  readonly level2015: number;
  readonly level2025: number;
  /** Annualised volatility in the normal regime. */
  readonly vol: number;
  readonly loadings: Readonly<Partial<Record<Factor, number>>>;
  /** Typical daily volume: shares for listed paths, USD for crypto paths, 0 when nothing trades. */
  readonly dailyVolume: number;
}

export interface ListedSpec {
  readonly symbol: string;
  readonly name: string;
  readonly exchange: string;
  readonly assetClass: 'equity' | 'etf';
  readonly sector: string | null;
  readonly industry: string;
  readonly path: PathSpec;
  readonly sharesOutstanding: number;
  /** Price/earnings ratio the simulated earnings are scaled to (equities only). */
  readonly targetPe: number | null;
}

export interface CoinSpec {
  readonly symbol: string;
  readonly name: string;
  readonly industry: string;
  readonly path: PathSpec;
  readonly circulatingSupply: number;
  readonly stable: boolean;
}

export interface FxSpec {
  readonly symbol: string;
  readonly base: string;
  readonly quote: string;
  readonly name: string;
  readonly path: PathSpec;
}

export interface IndexSpec {
  readonly symbol: string;
  readonly name: string;
  readonly exchange: string;
  /** The ETF whose path the index follows, scaled (an index and its tracker move together). */
  readonly etf: string;
  readonly scale: number;
}

export interface MacroMarketSpec {
  readonly symbol: string;
  readonly name: string;
  readonly path: PathSpec;
  readonly decimals: number;
}

export type Levels = readonly [level2015: number, level2025: number, vol: number];
export type Loadings = PathSpec['loadings'];

export const path = (
  key: string,
  kind: PathKind,
  calendar: CalendarKind,
  [level2015, level2025, vol]: Levels,
  loadings: Loadings,
  dailyVolume: number,
): PathSpec => ({ key, kind, calendar, level2015, level2025, vol, loadings, dailyVolume });

type ListedModel = readonly [
  level2015: number,
  level2025: number,
  vol: number,
  loadings: Loadings,
  sharesBillions: number,
  volumeMillions: number,
  targetPe?: number,
];

const TECH = (m: number, t: number) => ({ market: m, tech: t });
const FIN = (m: number, f: number) => ({ market: m, fin: f });
const DEF = (m: number, d: number) => ({ market: m, defensive: d });
const CARDS = { market: 0.6, fin: 0.35, tech: 0.2 };
const OIL = { market: 0.45, energy: 0.7 };
const NAS = 'NASDAQ';
const NYSE = 'NYSE';
const ARCA = 'NYSE Arca';
const TECHNOLOGY = 'Technology';
const CYCLICAL = 'Consumer Cyclical';
const COMMUNICATION = 'Communication Services';
const FINANCIAL = 'Financial Services';
const HEALTHCARE = 'Healthcare';
const ENERGY = 'Energy';
const DEFENSIVE = 'Consumer Defensive';
const INDUSTRIALS = 'Industrials';

/** Stocks: symbol, name, exchange, sector, industry. */
const STOCKS: ReadonlyArray<readonly [string, string, string, string, string]> = [
  ['AAPL', 'Apple Inc.', NAS, TECHNOLOGY, 'Consumer Electronics'],
  ['MSFT', 'Microsoft Corporation', NAS, TECHNOLOGY, 'Software - Infrastructure'],
  ['NVDA', 'NVIDIA Corporation', NAS, TECHNOLOGY, 'Semiconductors'],
  ['TSLA', 'Tesla, Inc.', NAS, CYCLICAL, 'Auto Manufacturers'],
  ['AMZN', 'Amazon.com, Inc.', NAS, CYCLICAL, 'Internet Retail'],
  ['GOOGL', 'Alphabet Inc.', NAS, COMMUNICATION, 'Internet Content & Information'],
  ['META', 'Meta Platforms, Inc.', NAS, COMMUNICATION, 'Internet Content & Information'],
  ['AVGO', 'Broadcom Inc.', NAS, TECHNOLOGY, 'Semiconductors'],
  ['AMD', 'Advanced Micro Devices, Inc.', NAS, TECHNOLOGY, 'Semiconductors'],
  ['INTC', 'Intel Corporation', NAS, TECHNOLOGY, 'Semiconductors'],
  ['NFLX', 'Netflix, Inc.', NAS, COMMUNICATION, 'Entertainment'],
  ['BRK.B', 'Berkshire Hathaway Inc.', NYSE, FINANCIAL, 'Insurance - Diversified'],
  ['JPM', 'JPMorgan Chase & Co.', NYSE, FINANCIAL, 'Banks - Diversified'],
  ['V', 'Visa Inc.', NYSE, FINANCIAL, 'Credit Services'],
  ['MA', 'Mastercard Incorporated', NYSE, FINANCIAL, 'Credit Services'],
  ['JNJ', 'Johnson & Johnson', NYSE, HEALTHCARE, 'Drug Manufacturers - General'],
  ['UNH', 'UnitedHealth Group Incorporated', NYSE, HEALTHCARE, 'Healthcare Plans'],
  ['XOM', 'Exxon Mobil Corporation', NYSE, ENERGY, 'Oil & Gas Integrated'],
  ['CVX', 'Chevron Corporation', NYSE, ENERGY, 'Oil & Gas Integrated'],
  ['WMT', 'Walmart Inc.', NAS, DEFENSIVE, 'Discount Stores'],
  ['PG', 'The Procter & Gamble Company', NYSE, DEFENSIVE, 'Household & Personal Products'],
  ['KO', 'The Coca-Cola Company', NYSE, DEFENSIVE, 'Beverages - Non-Alcoholic'],
  ['PEP', 'PepsiCo, Inc.', NAS, DEFENSIVE, 'Beverages - Non-Alcoholic'],
  ['HD', 'The Home Depot, Inc.', NYSE, CYCLICAL, 'Home Improvement Retail'],
  ['DIS', 'The Walt Disney Company', NYSE, COMMUNICATION, 'Entertainment'],
  ['BA', 'The Boeing Company', NYSE, INDUSTRIALS, 'Aerospace & Defense'],
];

/** ETFs: symbol, name, exchange, category. */
const FUNDS: ReadonlyArray<readonly [string, string, string, string]> = [
  ['SPY', 'SPDR S&P 500 ETF Trust', ARCA, 'Large Blend'],
  ['QQQ', 'Invesco QQQ Trust, Series 1', NAS, 'Large Growth'],
  ['IWM', 'iShares Russell 2000 ETF', ARCA, 'Small Blend'],
  ['DIA', 'SPDR Dow Jones Industrial Average ETF Trust', ARCA, 'Large Value'],
  ['XLF', 'Financial Select Sector SPDR Fund', ARCA, 'Financial'],
  ['XLE', 'Energy Select Sector SPDR Fund', ARCA, 'Equity Energy'],
  ['XLK', 'Technology Select Sector SPDR Fund', ARCA, 'Technology'],
  ['GLD', 'SPDR Gold Shares', ARCA, 'Commodities Focused'],
  ['TLT', 'iShares 20+ Year Treasury Bond ETF', NAS, 'Long Government'],
];

/** Level in 2015 and 2025, volatility, factor loadings, shares (bn), daily volume (m), target P/E. */
const MODEL: Readonly<Record<string, ListedModel>> = {
  AAPL: [27, 243, 0.27, TECH(0.65, 0.5), 15.0, 50, 30],
  MSFT: [41, 420, 0.25, TECH(0.65, 0.55), 7.43, 20, 33],
  NVDA: [0.5, 138, 0.5, TECH(0.55, 0.55), 24.4, 250, 45],
  TSLA: [15, 380, 0.6, TECH(0.45, 0.35), 3.2, 90, 90],
  AMZN: [15, 220, 0.32, TECH(0.6, 0.45), 10.5, 40, 40],
  GOOGL: [26, 190, 0.3, TECH(0.6, 0.45), 12.2, 25, 24],
  META: [78, 590, 0.38, TECH(0.55, 0.45), 2.52, 13, 27],
  AVGO: [10, 230, 0.4, TECH(0.55, 0.5), 4.7, 25, 35],
  AMD: [2.7, 122, 0.52, TECH(0.5, 0.5), 1.62, 45, 45],
  INTC: [36, 20, 0.38, TECH(0.55, 0.35), 4.36, 60, 30],
  NFLX: [49, 890, 0.42, TECH(0.5, 0.35), 0.43, 4, 48],
  'BRK.B': [150, 455, 0.18, FIN(0.65, 0.4), 2.16, 4, 22],
  JPM: [62, 240, 0.24, FIN(0.6, 0.55), 2.8, 9, 13],
  V: [65, 316, 0.22, CARDS, 1.95, 7, 31],
  MA: [86, 525, 0.23, CARDS, 0.92, 3, 38],
  JNJ: [104, 145, 0.17, DEF(0.45, 0.5), 2.41, 7, 16],
  UNH: [100, 505, 0.25, DEF(0.5, 0.35), 0.92, 4, 20],
  XOM: [92, 107, 0.27, OIL, 4.4, 15, 14],
  CVX: [112, 145, 0.28, OIL, 1.76, 8, 15],
  WMT: [29, 90, 0.19, DEF(0.45, 0.45), 8.0, 18, 35],
  PG: [91, 167, 0.16, DEF(0.4, 0.55), 2.35, 7, 26],
  KO: [42, 62, 0.16, DEF(0.4, 0.6), 4.31, 14, 25],
  PEP: [95, 152, 0.17, DEF(0.4, 0.6), 1.37, 6, 22],
  HD: [105, 390, 0.23, { market: 0.65 }, 0.99, 3.5, 26],
  DIS: [94, 111, 0.28, { market: 0.6 }, 1.81, 9, 35],
  BA: [130, 177, 0.38, { market: 0.6 }, 0.75, 8, 40],
  SPY: [205, 585, 0.165, { market: 0.97 }, 1.03, 55],
  QQQ: [101, 515, 0.21, TECH(0.85, 0.45), 0.62, 35],
  IWM: [119, 222, 0.22, { market: 0.85 }, 0.3, 30],
  DIA: [178, 425, 0.16, { market: 0.93 }, 0.065, 3.5],
  XLF: [20, 48, 0.21, FIN(0.7, 0.6), 1.0, 40],
  XLE: [79, 86, 0.28, { market: 0.5, energy: 0.75 }, 0.43, 17],
  XLK: [41, 232, 0.23, TECH(0.8, 0.5), 0.3, 6],
  GLD: [113, 242, 0.14, { gold: 0.9 }, 0.31, 8],
  TLT: [125, 87, 0.15, { rates: -0.85 }, 0.55, 40],
};

function listed(
  symbol: string,
  assetClass: 'equity' | 'etf',
  identity: Omit<ListedSpec, 'symbol' | 'assetClass' | 'path' | 'sharesOutstanding' | 'targetPe'>,
): ListedSpec {
  const [level2015, level2025, vol, loadings, shares, volume, targetPe] = MODEL[symbol]!;
  return {
    symbol,
    assetClass,
    ...identity,
    path: path(symbol, assetClass, 'us', [level2015, level2025, vol], loadings, volume * 1e6),
    sharesOutstanding: shares * 1e9,
    targetPe: targetPe ?? null,
  };
}

export const LISTED: readonly ListedSpec[] = [
  ...STOCKS.map(([symbol, name, exchange, sector, industry]) =>
    listed(symbol, 'equity', { name, exchange, sector, industry }),
  ),
  ...FUNDS.map(([symbol, name, exchange, category]) =>
    listed(symbol, 'etf', { name, exchange, sector: null, industry: category }),
  ),
];

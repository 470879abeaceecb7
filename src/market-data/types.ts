/**
 * The market-data vocabulary shared by providers, arbitration, tools, streams and (later) the
 * FK-DSL and watchdogs. Every value that reaches a user was produced by a named provider; `asOf` is
 * always the time the value describes (the quote's own time), never the time it was fetched.
 */

export const ASSET_CLASSES = ['equity', 'etf', 'index', 'crypto', 'fx', 'macro'] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

/**
 * A tradable or observable thing, in Vigil's canonical notation:
 * - equity / etf: upper-case ticker, share classes with a dot (`AAPL`, `BRK.B`), plus the market
 *   code (`US` unless another listing was asked for);
 * - crypto: `BASE/QUOTE` (`BTC/USDT`, `ETH/USD`);
 * - fx: `BASE/QUOTE` with assetClass fx (`EUR/USD`);
 * - index: caret form (`^GSPC`);
 * - macro: series code (`US10Y`, `CPI`, `VIX`, `DXY`, `UNEMPLOYMENT`, `GDP`, `FED_RATE`).
 */
export interface Instrument {
  /** Canonical symbol, as above. */
  readonly symbol: string;
  readonly assetClass: AssetClass;
  /** Market code for listed instruments (`US`, `UK`, `DE`...); see markets.ts. */
  readonly market?: string;
  /** Crypto and fx: base asset (`BTC`). */
  readonly base?: string;
  /** Crypto and fx: quote asset (`USDT`). */
  readonly quote?: string;
}

export type BarInterval = '1m' | '5m' | '15m' | '30m' | '1h' | '1d';

export const BAR_INTERVAL_MS: Readonly<Record<BarInterval, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '1d': 86_400_000,
};

/** Latest price of an instrument. */
export interface Quote {
  readonly symbol: string;
  readonly price: number;
  /**
   * Absolute change against the reference price: the previous regular-session close for listed
   * instruments, the price 24 hours earlier for crypto (rolling 24 h, as exchanges report it).
   */
  readonly change: number | null;
  /** `change` as a percentage of the reference price (signed; 1.5 means +1.5 %). */
  readonly changePercent: number | null;
  readonly previousClose: number | null;
  readonly open: number | null;
  readonly dayHigh: number | null;
  readonly dayLow: number | null;
  /** Volume of the current session (listed) or the last 24 h (crypto), in units of the instrument. */
  readonly volume: number | null;
  readonly currency: string;
  /** Time of the last trade or quote update the price reflects. */
  readonly asOf: Date;
  /** Identity hints some providers return with a quote (saves a profile call at depth `quick`). */
  readonly name?: string;
  readonly exchange?: string;
  readonly marketState?: 'pre' | 'regular' | 'post' | 'closed' | 'continuous';
}

/** One OHLCV bar; `time` is the bar's open time (UTC). Prices adjusted for splits where the provider does. */
export interface Bar {
  readonly time: Date;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  /** Traded volume in units of the instrument; null where the provider publishes none (e.g. CoinGecko OHLC). */
  readonly volume: number | null;
  /** Close adjusted for splits and dividends, when the provider gives it. */
  readonly adjClose?: number;
}

export interface Profile {
  readonly symbol: string;
  readonly name: string;
  readonly exchange: string | null;
  readonly currency: string;
  readonly assetClass: AssetClass;
  readonly sector: string | null;
  readonly industry: string | null;
  readonly marketCap: number | null;
  readonly peRatio: number | null;
  readonly beta: number | null;
  readonly averageVolume: number | null;
  readonly week52High: number | null;
  readonly week52Low: number | null;
  readonly sharesOutstanding: number | null;
  readonly asOf: Date;
}

/** Rolling 24-hour statistics of a crypto pair on one venue. */
export interface CryptoStats {
  readonly symbol: string;
  readonly venue: string;
  readonly lastPrice: number;
  readonly priceChange: number;
  readonly priceChangePercent: number;
  readonly high: number;
  readonly low: number;
  /** Base-asset volume over 24 h; null where the provider reports only quote volume. */
  readonly volume: number | null;
  /** Quote-asset volume over 24 h. */
  readonly quoteVolume: number | null;
  /** Market capitalisation of the base asset in USD, when the provider knows it. */
  readonly marketCap: number | null;
  readonly asOf: Date;
}

export interface OrderBookLevel {
  readonly price: number;
  readonly size: number;
}

export interface OrderBook {
  readonly symbol: string;
  readonly venue: string;
  /** Best first (highest bid). */
  readonly bids: readonly OrderBookLevel[];
  /** Best first (lowest ask). */
  readonly asks: readonly OrderBookLevel[];
  readonly asOf: Date;
}

export interface FundingRate {
  readonly symbol: string;
  readonly venue: string;
  /** Rate per funding interval as a fraction (0.0001 = 0.01 %). */
  readonly rate: number;
  readonly intervalHours: number;
  readonly markPrice: number | null;
  readonly nextFundingTime: Date | null;
  /** Time the rate applies to (the funding time for settled rates, the estimate time otherwise). */
  readonly asOf: Date;
}

export interface EarningsReport {
  readonly symbol: string;
  /** When the result was (or will be) published. */
  readonly reportDate: Date;
  readonly fiscalPeriodEnd: Date | null;
  /** null until reported. */
  readonly reportedEps: number | null;
  readonly estimatedEps: number | null;
  /** (reported - estimated) / |estimated| * 100, when both are known. */
  readonly surprisePercent: number | null;
}

/** A large on-chain or exchange transfer. */
export interface Transfer {
  readonly id: string;
  /** Asset symbol (`BTC`). */
  readonly asset: string;
  readonly amount: number;
  readonly usdValue: number;
  readonly from: string;
  readonly to: string;
  readonly fromType: 'exchange' | 'wallet' | 'unknown';
  readonly toType: 'exchange' | 'wallet' | 'unknown';
  readonly time: Date;
}

/** One exchange trade (an aggregate of fills of one taker order at one price, as Binance groups them). */
export interface Trade {
  /** The venue's own id of the trade, unique per venue and pair. */
  readonly id: string;
  /** Canonical symbol (`BTC/USDT`). */
  readonly symbol: string;
  readonly venue: string;
  readonly price: number;
  /** Base-asset quantity. */
  readonly quantity: number;
  /**
   * price x quantity: the quote amount, which is a USD amount for the USD and USD-stablecoin quotes
   * (USDT, USDC, FDUSD, BUSD) that providers offer large trades for.
   */
  readonly usdValue: number;
  /** The aggressor's side: `sell` when the buyer's order was the resting (maker) one. */
  readonly side: 'buy' | 'sell';
  readonly time: Date;
}

export interface VenueStatus {
  readonly venue: string;
  readonly status: 'up' | 'degraded' | 'down';
  /** Round-trip time of the check; null when the venue did not answer. */
  readonly latencyMs: number | null;
  readonly detail: string | null;
  readonly checkedAt: Date;
}

/** A live price update pushed by a provider stream (one trade or ticker update). */
export interface StreamTick {
  readonly symbol: string;
  readonly price: number;
  /** Volume traded in this update, when known. */
  readonly size: number | null;
  readonly asOf: Date;
}

/** Most bars one request may ask for (a decade of daily bars is ~2,520). */
export const MAX_BARS_PER_REQUEST = 50_000;

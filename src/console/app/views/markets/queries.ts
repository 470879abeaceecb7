/** The GraphQL the markets view sends, and the shapes it reads back (see schema.graphql). */
import { type ApiError, apiError } from '../../api.ts';

export type MarketState = 'CLOSED' | 'CONTINUOUS' | 'POST' | 'PRE' | 'REGULAR';

export interface PriceTick {
  readonly symbol: string;
  /** The symbols of the subscription naming this instrument, as written: how a row finds its tick. */
  readonly requested: readonly string[];
  readonly price: number;
  readonly change: number | null;
  readonly changePercent: number | null;
  readonly marketState: MarketState;
  readonly asOf: string;
  readonly seq: number;
  readonly snapshot: boolean;
  readonly provider: string;
  readonly live: boolean;
  readonly currency: string;
}

export const PRICES_SUBSCRIPTION = `subscription Prices($symbols: [String!]!, $intervalMs: Int!) {
  prices(symbols: $symbols, intervalMs: $intervalMs) {
    symbol requested price change changePercent marketState asOf seq snapshot provider live currency
  }
}`;

export interface Lineage {
  readonly used: readonly string[];
  readonly simulated: boolean;
  readonly asOf: string;
}

export interface Quote {
  readonly symbol: string;
  readonly price: number;
  readonly change: number | null;
  readonly changePercent: number | null;
  readonly marketState: MarketState | null;
  readonly currency: string;
  readonly asOf: string;
}

export interface QuoteResult {
  readonly requested: string;
  readonly error: { readonly code: string; readonly message: string } | null;
  readonly instrument: { readonly symbol: string; readonly name: string | null } | null;
  readonly lineage: Lineage | null;
  readonly quote: Quote | null;
}

const QUOTE_FIELDS = 'symbol price change changePercent marketState currency asOf';

/** The watch list's first picture: one round trip, and an unknown symbol fails alone. */
export const QUOTES_QUERY = `query Quotes($symbols: [String!]!) {
  quotes(symbols: $symbols) {
    requested error { code message } instrument { symbol name }
    lineage { used simulated asOf } quote { ${QUOTE_FIELDS} }
  }
}`;

/** One symbol: checks it exists (adding to the watch list) and heads the symbol page. */
export const QUOTE_QUERY = `query Quote($symbol: String!) {
  quote(symbol: $symbol) { instrument { symbol name } lineage { used simulated asOf } quote { ${QUOTE_FIELDS} } }
}`;

/** `quote` answers the shape each result of `quotes` has. */
export interface SourcedQuote {
  readonly instrument: { readonly symbol: string; readonly name: string | null };
  readonly lineage: Lineage;
  readonly quote: Quote;
}

export type BarInterval =
  | 'ONE_MINUTE'
  | 'FIVE_MINUTES'
  | 'FIFTEEN_MINUTES'
  | 'THIRTY_MINUTES'
  | 'ONE_HOUR'
  | 'ONE_DAY';

export interface Bar {
  readonly time: string;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number | null;
}

export interface BarPage {
  readonly totalCount: number;
  readonly instrument: { readonly symbol: string; readonly name: string | null };
  readonly lineage: Lineage;
  readonly pageInfo: { readonly hasNextPage: boolean; readonly endCursor: string | null };
  readonly nodes: readonly Bar[];
  /** SMA 20, EMA 20, Bollinger 20 (see STUDIES), each list one value per node. */
  readonly studies: readonly Study[];
}

/** An indicator series Vigil computed over the page (BarConnection.studies). */
export interface Study {
  readonly kind: 'SMA' | 'EMA' | 'BOLLINGER_BANDS';
  readonly values: readonly (number | null)[];
  readonly upper: readonly (number | null)[] | null;
  readonly lower: readonly (number | null)[] | null;
}

/** The overlays the symbol page offers, asked with every page of bars (in this order). */
export const STUDIES = { sma: [20], ema: [20], bollinger: [{ period: 20, stdDevs: 2 }] };

export const BARS_QUERY = `query Bars($symbol: String!, $interval: BarInterval!, $from: DateTime, $first: Int,
  $after: String, $sma: [Int!], $ema: [Int!], $bollinger: [BollingerBandsInput!]) {
  bars(symbol: $symbol, interval: $interval, from: $from, first: $first, after: $after) {
    totalCount instrument { symbol name } lineage { used simulated asOf }
    pageInfo { hasNextPage endCursor }
    nodes { time open high low close volume }
    studies(sma: $sma, ema: $ema, bollinger: $bollinger) { kind values upper lower }
  }
}`;

/** A sparkline needs closes only. */
export const SPARK_QUERY = `query Spark($symbol: String!, $from: DateTime!) {
  bars(symbol: $symbol, interval: ONE_HOUR, from: $from, first: 1000) { nodes { time close } }
}`;

/** fetchQuery rejects with an ApiError already; anything else (a thrown Error) is put in words. */
export function asApiError(error: unknown): ApiError {
  const e = error as Partial<ApiError> | null;
  return e && typeof e.message === 'string' && typeof e.fields === 'object'
    ? (e as ApiError)
    : apiError(error);
}

import type {
  AssetClass,
  Bar,
  BarInterval,
  CryptoStats,
  EarningsReport,
  FundingRate,
  Instrument,
  OrderBook,
  Profile,
  Quote,
  StreamTick,
  Trade,
  Transfer,
  VenueStatus,
} from '../types.ts';
import type { CircuitState } from './http/circuit-breaker.ts';

/**
 * One narrow interface for every source of market data. A provider implements the methods it
 * can, lists them in `capabilities`, and answers `supports()` for a given instrument (asset class,
 * quote currency, known universe). Every call takes named parameters and an AbortSignal that carries
 * the caller's timeout; providers pass it to their I/O. Failures are ProviderError subclasses
 * (providers/provider-errors.ts), never made-up values.
 */
export type Capability =
  | 'quote'
  | 'bars'
  | 'profile'
  | 'cryptoStats'
  | 'orderBook'
  | 'funding'
  | 'earnings'
  | 'transfers'
  | 'largeTrades'
  | 'venueStatus'
  | 'stream'
  | 'search';

export interface Call {
  readonly signal: AbortSignal;
}

export interface InstrumentCall extends Call {
  readonly instrument: Instrument;
}

export interface BarsCall extends InstrumentCall {
  readonly interval: BarInterval;
  /** Inclusive start of the range (bar open times >= start). */
  readonly start: Date;
  /** Exclusive end of the range (bar open times < end). */
  readonly end: Date;
}

export interface OrderBookCall extends InstrumentCall {
  /** Levels per side wanted (the provider may return fewer). */
  readonly depth: number;
  /**
   * The book as it stood at this past time. Only providers with `pastOrderBooks` honour it (a
   * venue's REST API serves the current book only); others are never called with it.
   */
  readonly at?: Date;
}

export interface EarningsCall extends InstrumentCall {
  readonly from: Date;
  readonly to: Date;
}

export interface TransfersCall extends Call {
  /** Only transfers at or after this time. */
  readonly since: Date;
  readonly minUsd: number;
  /** Restrict to these asset symbols (`BTC`); all when absent. */
  readonly assets?: readonly string[];
}

export interface LargeTradesCall extends InstrumentCall {
  /** Only trades at or after this time. */
  readonly since: Date;
  /** Only trades worth at least this much (USD). */
  readonly minUsd: number;
}

export interface SearchCall extends Call {
  /** What the user typed: part of a name or a symbol (`apple`, `AAP`, `bitcoin`), trimmed, non-empty. */
  readonly query: string;
  /** Matches wanted (the provider may return fewer). */
  readonly limit: number;
}

/** One answer of an instrument search: an instrument in Vigil's notation and what it is called. */
export interface InstrumentMatch {
  readonly instrument: Instrument;
  readonly name: string;
  readonly exchange: string | null;
}

export interface StreamSubscription {
  readonly instrument: Instrument;
  onTick(tick: StreamTick): void;
  /** The stream failed; the caller may resubscribe (possibly elsewhere). */
  onError(error: Error): void;
}

/** An entry of a provider's own instrument universe (the simulated market, a configured watchlist). */
export interface UniverseEntry {
  readonly instrument: Instrument;
  readonly name: string;
  readonly exchange: string | null;
  readonly sector: string | null;
}

export interface MarketDataProvider {
  /** Stable id used in configuration and lineage (`simulated`, `yahoo`, `binance`...). */
  readonly id: string;
  readonly displayName: string;
  /** false for the simulated market: its values describe no real market. */
  readonly live: boolean;
  readonly capabilities: ReadonlySet<Capability>;
  /** Asset classes this provider can price at all. */
  readonly assetClasses: ReadonlySet<AssetClass>;
  /**
   * Whether `orderBook` answers for a past time (OrderBookCall.at): the simulated market's book is a
   * function of its seed and the time, so it can. Kept apart from `capabilities`, which are what
   * clients can ask for; this only lets a watchdog fill a depth baseline it has not yet recorded.
   */
  readonly pastOrderBooks?: boolean;

  supports(capability: Capability, instrument?: Instrument): boolean;

  quote?(call: InstrumentCall): Promise<Quote>;
  /** Sorted by time ascending, one bar per time, no bars with missing prices. */
  bars?(call: BarsCall): Promise<Bar[]>;
  profile?(call: InstrumentCall): Promise<Profile>;
  cryptoStats?(call: InstrumentCall): Promise<CryptoStats>;
  orderBook?(call: OrderBookCall): Promise<OrderBook>;
  /** The current (or most recent) funding rate of the instrument's perpetual contract. */
  funding?(call: InstrumentCall): Promise<FundingRate>;
  /** Reports with reportDate in [from, to], ascending. */
  earnings?(call: EarningsCall): Promise<EarningsReport[]>;
  /** Transfers since `since`, ascending by time. */
  transfers?(call: TransfersCall): Promise<Transfer[]>;
  /**
   * The instrument's exchange trades worth at least `minUsd` since `since`, ascending by time. A
   * provider may read a bounded number of trades per call; it documents which end of a busier window
   * it reads.
   */
  largeTrades?(call: LargeTradesCall): Promise<Trade[]>;
  venueStatus?(call: Call): Promise<VenueStatus[]>;
  /** Live updates for one instrument; returns a function that stops them. */
  stream?(subscription: StreamSubscription): () => void;
  /**
   * Instruments whose name or symbol matches a query, best first; only instruments Vigil can write
   * (listings on markets it knows, coins, currency pairs, indices).
   */
  search?(call: SearchCall): Promise<InstrumentMatch[]>;
  /** The instruments the provider knows by itself, when it has such a list. */
  universe?(): readonly UniverseEntry[];
  /** The state of its HTTP client's circuit breaker (the worst one when it has several). */
  circuit?(): CircuitState;
  /** Releases sockets and timers. */
  close?(): Promise<void>;
}

/** A configured market-data provider, as clients see it. */
export interface ProviderInfo {
  readonly id: string;
  readonly displayName: string;
  readonly live: boolean;
  readonly capabilities: readonly Capability[];
}

import type { Dispatcher } from 'undici';
import type { Clock } from '../../platform/clock.ts';
import { systemClock } from '../../platform/clock.ts';
import {
  type AssetClass,
  BAR_INTERVAL_MS,
  type Bar,
  type CryptoStats,
  type FundingRate,
  type Instrument,
  type OrderBook,
  type Quote,
  type Trade,
  type VenueStatus,
} from '../types.ts';
import {
  type AggTrade,
  BINANCE,
  BINANCE_FUTURES,
  barsInRange,
  binanceError,
  binanceSymbol,
  depthLimitFor,
  FUTURES_QUOTES,
  KLINE_INTERVALS,
  parseAggTrades,
  parseDepth,
  parseKlines,
  parsePremiumIndex,
  parseTicker24h,
  quoteFromTicker,
  SPOT_QUOTES,
  statsFromTicker,
  tradeFromAgg,
  USD_QUOTES,
} from './binance.parse.ts';
import { type BinanceStreamTuning, BinanceTradeStream, type WebSocketFactory } from './binance.stream.ts';
import { type CircuitState, worstCircuit } from './http/circuit-breaker.ts';
import { type HttpRequest, type HttpResponse, ProviderHttp, parseRetryAfter } from './http/provider-http.ts';
import { probeVenue } from './http/venue-probe.ts';
import type {
  BarsCall,
  Call,
  Capability,
  InstrumentCall,
  LargeTradesCall,
  MarketDataProvider,
  OrderBookCall,
  StreamSubscription,
} from './provider.ts';
import { unknownSymbol, unsupported } from './provider-errors.ts';

export interface BinanceOptions {
  /** Spot REST, `https://api.binance.com` (no trailing slash). */
  readonly baseUrl: string;
  /** USD-M futures REST, `https://fapi.binance.com`. */
  readonly futuresBaseUrl: string;
  /** Spot WebSocket streams, `wss://stream.binance.com:9443`; the combined endpoint `/stream` is used. */
  readonly wsUrl: string;
  readonly dispatcher?: Dispatcher;
  /** Requests per second per REST host (default 10, burst 20: far inside Binance's weight budget). */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  readonly clock?: Clock;
  readonly webSocketFactory?: WebSocketFactory;
  /** Reconnect and heartbeat timing of the trade stream (tests shorten it). */
  readonly streamTuning?: Partial<BinanceStreamTuning>;
}

const CAPABILITIES: ReadonlySet<Capability> = new Set([
  'quote',
  'bars',
  'cryptoStats',
  'orderBook',
  'funding',
  'largeTrades',
  'venueStatus',
  'stream',
]);
const ASSET_CLASSES: ReadonlySet<AssetClass> = new Set(['crypto']);
const KLINES_PER_PAGE = 1_000;
/** Longer ranges than this many bars are refused rather than paged for most of a caller's deadline. */
const MAX_BARS = 50_000;
/** aggTrades answers at most 1,000 per request (weight 4 each). */
const AGG_TRADES_PER_PAGE = 1_000;
/** Requests per largeTrades call: 3,000 trades, minutes of BTCUSDT at its busiest. */
const AGG_TRADE_PAGES = 3;

/**
 * Binance spot (quotes, 24 h statistics, klines, order book, trade stream) and USD-M futures
 * (funding). Only pairs Binance lists are supported: a USD-quoted instrument is not silently
 * answered with a USDT price, so arbitration asks a provider that has USD.
 */
export function createBinanceProvider(options: BinanceOptions): MarketDataProvider {
  return new BinanceProvider(options);
}

class BinanceProvider implements MarketDataProvider {
  readonly id = BINANCE;
  readonly displayName = 'Binance';
  readonly live = true;
  readonly capabilities = CAPABILITIES;
  readonly assetClasses = ASSET_CLASSES;
  readonly #clock: Clock;
  readonly #spot: ProviderHttp;
  readonly #futures: ProviderHttp;
  readonly #stream: BinanceTradeStream;

  constructor(options: BinanceOptions) {
    this.#clock = options.clock ?? systemClock;
    const httpOptions = {
      ratePerSecond: options.ratePerSecond ?? 10,
      burst: options.burst ?? 20,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    };
    this.#spot = new ProviderHttp({ provider: BINANCE, baseUrl: trimSlash(options.baseUrl), ...httpOptions });
    this.#futures = new ProviderHttp({
      provider: BINANCE,
      baseUrl: trimSlash(options.futuresBaseUrl),
      ...httpOptions,
    });
    this.#stream = new BinanceTradeStream({
      url: `${trimSlash(options.wsUrl)}/stream`,
      ...(options.webSocketFactory ? { webSocketFactory: options.webSocketFactory } : {}),
      ...(options.streamTuning ? { tuning: options.streamTuning } : {}),
    });
  }

  circuit(): CircuitState {
    return worstCircuit(this.#spot.circuit.state, this.#futures.circuit.state);
  }

  supports(capability: Capability, instrument?: Instrument): boolean {
    if (!CAPABILITIES.has(capability)) return false;
    if (!instrument) return true;
    if (capability === 'venueStatus') return true;
    const quotes =
      capability === 'funding' ? FUTURES_QUOTES : capability === 'largeTrades' ? USD_QUOTES : SPOT_QUOTES;
    return binanceSymbol(instrument, quotes) !== undefined;
  }

  async quote(call: InstrumentCall): Promise<Quote> {
    return quoteFromTicker(await this.#ticker(call), call.instrument);
  }

  async cryptoStats(call: InstrumentCall): Promise<CryptoStats> {
    return statsFromTicker(await this.#ticker(call), call.instrument);
  }

  async bars({ instrument, interval, start, end, signal }: BarsCall): Promise<Bar[]> {
    const symbol = pairOf(instrument);
    const step = BAR_INTERVAL_MS[interval];
    // Binance's endTime is inclusive, our end is not.
    const last = end.getTime() - 1;
    if (last < start.getTime()) return [];
    if ((end.getTime() - start.getTime()) / step > MAX_BARS) {
      throw unsupported(BINANCE, `more than ${MAX_BARS} ${interval} bars in one call`);
    }
    const fetchPage = async (from: number, limit: number) => {
      const res = await binanceGet(
        this.#spot,
        {
          path: '/api/v3/klines',
          query: { symbol, interval: KLINE_INTERVALS[interval], startTime: from, endTime: last, limit },
          signal,
        },
        instrument.symbol,
      );
      return parseKlines(res.body);
    };
    return pagedKlines(fetchPage, start, end, step);
  }

  async orderBook({ instrument, depth, signal }: OrderBookCall): Promise<OrderBook> {
    const symbol = pairOf(instrument);
    const wanted = Math.max(1, Math.floor(depth));
    const res = await binanceGet(
      this.#spot,
      { path: '/api/v3/depth', query: { symbol, limit: depthLimitFor(wanted) }, signal },
      instrument.symbol,
    );
    const { bids, asks } = parseDepth(res.body, wanted);
    return {
      symbol: instrument.symbol,
      venue: BINANCE,
      bids,
      asks,
      // The depth body has no time: the Date header is when Binance produced the snapshot (to the
      // second). Without one, the moment of receipt is the closest truthful time there is.
      asOf: res.date ?? this.#clock.now(),
    };
  }

  async funding({ instrument, signal }: InstrumentCall): Promise<FundingRate> {
    const symbol = pairOf(instrument, FUTURES_QUOTES);
    const res = await binanceGet(
      this.#futures,
      { path: '/fapi/v1/premiumIndex', query: { symbol }, signal },
      instrument.symbol,
    );
    return parsePremiumIndex(res.body, instrument);
  }

  async largeTrades({ instrument, since, minUsd, signal }: LargeTradesCall): Promise<Trade[]> {
    if (instrument.quote && SPOT_QUOTES.has(instrument.quote) && !USD_QUOTES.has(instrument.quote))
      throw unsupported(BINANCE, `large trades valued in ${instrument.quote} (only USD-stablecoin pairs)`);
    const symbol = pairOf(instrument, USD_QUOTES);
    const fetchPage = async (fromId: number | undefined, limit: number) => {
      const query = fromId === undefined ? { symbol, limit } : { symbol, fromId, limit };
      const res = await binanceGet(
        this.#spot,
        { path: '/api/v3/aggTrades', query, signal },
        instrument.symbol,
      );
      return parseAggTrades(res.body);
    };
    const trades = await newestAggTrades(fetchPage, since);
    return trades.map((t) => tradeFromAgg(t, instrument)).filter((t) => t.usdValue >= minUsd);
  }

  async venueStatus({ signal }: Call): Promise<VenueStatus[]> {
    return Promise.all([
      this.#probe(this.#spot, '/api/v3/ping', BINANCE, signal),
      this.#probe(this.#futures, '/fapi/v1/ping', BINANCE_FUTURES, signal),
    ]);
  }

  stream(subscription: StreamSubscription): () => void {
    return this.#stream.subscribe(subscription);
  }

  async close(): Promise<void> {
    this.#stream.close();
  }

  async #ticker({ instrument, signal }: InstrumentCall) {
    const symbol = pairOf(instrument);
    const res = await binanceGet(
      this.#spot,
      { path: '/api/v3/ticker/24hr', query: { symbol }, signal },
      instrument.symbol,
    );
    return parseTicker24h(res.body);
  }

  #probe(http: ProviderHttp, path: string, venue: string, signal: AbortSignal): Promise<VenueStatus> {
    return probeVenue(
      venue,
      async () => {
        const res = await http.get({ path, signal });
        const refused = binanceError(res.status, res.body, venue, undefined);
        if (refused) throw refused;
      },
      this.#clock,
    );
  }
}

/** The Binance pair for the instrument among pairs quoted in `quotes`; unsupported or unknown otherwise. */
function pairOf(instrument: Instrument, quotes = SPOT_QUOTES): string {
  if (instrument.assetClass !== 'crypto') throw unsupported(BINANCE, `${instrument.assetClass} instruments`);
  const symbol = binanceSymbol(instrument, quotes);
  if (!symbol) {
    throw unknownSymbol(
      BINANCE,
      instrument.symbol,
      `Binance lists no ${instrument.quote ?? '?'} pair for it`,
    );
  }
  return symbol;
}

/** GET that returns the body of a 2xx answer and turns Binance's error answers into ProviderErrors. */
async function binanceGet(http: ProviderHttp, req: HttpRequest, symbol: string): Promise<HttpResponse> {
  const res = await http.get(req);
  const error = binanceError(res.status, res.body, symbol, parseRetryAfter(res.headers['retry-after']));
  if (error) throw error;
  return res;
}

/**
 * Klines for [start, end) page by page: Binance answers at most `pageSize` klines from `startTime`
 * on, so a full page means there may be more after its newest kline.
 */
export async function pagedKlines(
  fetchPage: (from: number, limit: number) => Promise<Bar[]>,
  start: Date,
  end: Date,
  step: number,
  pageSize = KLINES_PER_PAGE,
): Promise<Bar[]> {
  const collected: Bar[] = [];
  for (let from = start.getTime(); from < end.getTime(); ) {
    const limit = Math.max(1, Math.min(pageSize, Math.ceil((end.getTime() - from) / step)));
    const page = await fetchPage(from, limit);
    collected.push(...page);
    const newest = page.at(-1)?.time.getTime();
    // A short page is the last; a page reaching the end leaves no room for another bar; a page that
    // does not move forward would repeat forever.
    if (page.length < limit || newest === undefined || newest + step >= end.getTime() || newest < from) break;
    from = newest + 1;
  }
  return barsInRange(collected, start, end);
}

/**
 * Aggregate trades at or after `since`, ascending, read from the newest end: the most recent page
 * first, then pages before it by id (ids are consecutive per symbol). A window with more than
 * `maxPages` x `pageSize` trades is cut at its oldest end: a watchdog polling every cycle cares
 * most about the latest trades, and earlier cycles read the older part of its window unless more
 * than that many trades happen within one cycle.
 */
export async function newestAggTrades(
  fetchPage: (fromId: number | undefined, limit: number) => Promise<AggTrade[]>,
  since: Date,
  maxPages = AGG_TRADE_PAGES,
  pageSize = AGG_TRADES_PER_PAGE,
): Promise<AggTrade[]> {
  const byId = new Map<number, AggTrade>();
  let page = await fetchPage(undefined, pageSize);
  for (let n = 1; ; n++) {
    for (const t of page) byId.set(t.id, t);
    const oldest = page.reduce<AggTrade | undefined>((o, t) => (o && o.id <= t.id ? o : t), undefined);
    // A short page reaches the symbol's first trade; an old enough trade reaches the window's start.
    if (
      n >= maxPages ||
      !oldest ||
      page.length < pageSize ||
      oldest.time.getTime() < since.getTime() ||
      oldest.id === 0
    )
      break;
    const fromId = Math.max(0, oldest.id - pageSize);
    page = await fetchPage(fromId, oldest.id - fromId);
    // A page that does not reach back before the previous one would repeat forever.
    if (!page.some((t) => t.id < oldest.id)) break;
  }
  return [...byId.values()].filter((t) => t.time.getTime() >= since.getTime()).sort((a, b) => a.id - b.id);
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

import type {
  Bar,
  BarInterval,
  CryptoStats,
  FundingRate,
  Instrument,
  OrderBookLevel,
  Quote,
  Trade,
} from '../types.ts';
import { badResponse, ProviderError, unknownSymbol } from './provider-errors.ts';

/**
 * Pure parsers for Binance spot REST, USD-M futures REST and spot WebSocket payloads. Binance sends
 * prices and quantities as decimal strings and times as epoch milliseconds; a missing field is null
 * (never 0) and a field that is present but not a number makes the whole answer a bad response.
 */
export const BINANCE = 'binance';
export const BINANCE_FUTURES = 'binance-futures';

/**
 * Quote assets with spot pairs on Binance. USD is deliberately absent: Binance has no USD pairs, and
 * answering BTC/USD with a USDT price would hide a currency substitution from arbitration.
 */
export const SPOT_QUOTES: ReadonlySet<string> = new Set([
  'USDT',
  'USDC',
  'FDUSD',
  'BTC',
  'ETH',
  'BNB',
  'EUR',
  'TRY',
  'BRL',
  'JPY',
]);

/**
 * Quote assets whose amounts are USD amounts: large trades are offered only for these pairs, since
 * valuing an ETH/BTC trade in USD would take a second price from elsewhere.
 */
export const USD_QUOTES: ReadonlySet<string> = new Set(['USDT', 'USDC', 'FDUSD']);

/** Margin assets of USD-M perpetuals (the `funding` capability). */
export const FUTURES_QUOTES: ReadonlySet<string> = new Set(['USDT', 'USDC']);

export const KLINE_INTERVALS: Readonly<Record<BarInterval, string>> = {
  '1m': '1m',
  '5m': '5m',
  '15m': '15m',
  '30m': '30m',
  '1h': '1h',
  '1d': '1d',
};

/** The `limit` values /api/v3/depth accepts. */
const DEPTH_LIMITS = [5, 10, 20, 50, 100, 500, 1000] as const;

/** `BTC/USDT` -> `BTCUSDT`, or undefined when Binance lists no pair with that quote asset. */
export function binanceSymbol(instrument: Instrument, quotes: ReadonlySet<string> = SPOT_QUOTES) {
  if (instrument.assetClass !== 'crypto' || !instrument.base || !instrument.quote) return undefined;
  if (!quotes.has(instrument.quote)) return undefined;
  return `${instrument.base}${instrument.quote}`;
}

/** The smallest limit Binance accepts that still gives `depth` levels (1000 at most). */
export function depthLimitFor(depth: number): number {
  return DEPTH_LIMITS.find((limit) => limit >= depth) ?? 1000;
}

// ---- numbers ----

const DECIMAL = /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/;

/** A number sent as a JSON number or a decimal string; null when absent. */
export function decimal(value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && DECIMAL.test(value)) return Number(value);
  throw badResponse(BINANCE, `${field} is ${JSON.stringify(value)}, not a number`);
}

export function required(value: unknown, field: string): number {
  const n = decimal(value, field);
  if (n === null) throw badResponse(BINANCE, `${field} is missing`);
  return n;
}

export function positive(value: unknown, field: string): number {
  const n = required(value, field);
  if (!(n > 0)) throw badResponse(BINANCE, `${field} is ${n}, not a price`);
  return n;
}

export function time(value: unknown, field: string): Date {
  const ms = required(value, field);
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) throw badResponse(BINANCE, `${field} is not a time`);
  return date;
}

export function record(value: unknown, what: string): Record<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw badResponse(BINANCE, `${what} is not an object`);
}

// ---- REST ----

export interface Ticker24h {
  readonly lastPrice: number;
  readonly priceChange: number | null;
  readonly priceChangePercent: number | null;
  readonly openPrice: number | null;
  readonly highPrice: number | null;
  readonly lowPrice: number | null;
  readonly volume: number | null;
  readonly quoteVolume: number | null;
  /** End of the rolling 24 h window: the time of the statistics. */
  readonly closeTime: Date;
}

/** GET /api/v3/ticker/24hr?symbol= (FULL). */
export function parseTicker24h(body: unknown): Ticker24h {
  const t = record(body, '24hr ticker');
  return {
    lastPrice: positive(t.lastPrice, 'lastPrice'),
    priceChange: decimal(t.priceChange, 'priceChange'),
    priceChangePercent: decimal(t.priceChangePercent, 'priceChangePercent'),
    openPrice: decimal(t.openPrice, 'openPrice'),
    highPrice: decimal(t.highPrice, 'highPrice'),
    lowPrice: decimal(t.lowPrice, 'lowPrice'),
    volume: decimal(t.volume, 'volume'),
    quoteVolume: decimal(t.quoteVolume, 'quoteVolume'),
    closeTime: time(t.closeTime, 'closeTime'),
  };
}

/**
 * The reference of a crypto quote is the price 24 h ago. Binance's `prevClosePrice` is the close of
 * the previous 24 h window, which drifts from the window's open; lastPrice - priceChange is the open
 * that priceChange and priceChangePercent were computed against.
 */
export function quoteFromTicker(t: Ticker24h, instrument: Instrument): Quote {
  const previousClose = t.priceChange !== null ? t.lastPrice - t.priceChange : t.openPrice;
  const change = previousClose !== null ? t.lastPrice - previousClose : null;
  const changePercent =
    t.priceChangePercent ??
    (change !== null && previousClose !== null && previousClose > 0 ? (change / previousClose) * 100 : null);
  return {
    symbol: instrument.symbol,
    price: t.lastPrice,
    change,
    changePercent,
    previousClose,
    open: t.openPrice,
    dayHigh: t.highPrice,
    dayLow: t.lowPrice,
    volume: t.volume,
    // Only instruments binanceSymbol() accepted get here, and those have a quote asset.
    currency: instrument.quote!,
    asOf: t.closeTime,
    exchange: 'Binance',
    marketState: 'continuous',
  };
}

export function statsFromTicker(t: Ticker24h, instrument: Instrument): CryptoStats {
  const need = (value: number | null, field: string): number => {
    if (value === null) throw badResponse(BINANCE, `${field} is missing`);
    return value;
  };
  return {
    symbol: instrument.symbol,
    venue: BINANCE,
    lastPrice: t.lastPrice,
    priceChange: need(t.priceChange, 'priceChange'),
    priceChangePercent: need(t.priceChangePercent, 'priceChangePercent'),
    high: need(t.highPrice, 'highPrice'),
    low: need(t.lowPrice, 'lowPrice'),
    volume: need(t.volume, 'volume'),
    quoteVolume: t.quoteVolume,
    // A venue knows its order flow, not the coin's supply.
    marketCap: null,
    asOf: t.closeTime,
  };
}

/** GET /api/v3/klines: arrays of [openTime, open, high, low, close, volume, closeTime, ...]. */
export function parseKlines(body: unknown): Bar[] {
  if (!Array.isArray(body)) throw badResponse(BINANCE, 'klines is not an array');
  return body.map((row: unknown, i) => {
    if (!Array.isArray(row) || row.length < 6) throw badResponse(BINANCE, `kline ${i} is not a kline array`);
    return {
      time: time(row[0], `kline ${i} open time`),
      open: positive(row[1], `kline ${i} open`),
      high: positive(row[2], `kline ${i} high`),
      low: positive(row[3], `kline ${i} low`),
      close: positive(row[4], `kline ${i} close`),
      volume: decimal(row[5], `kline ${i} volume`),
    };
  });
}

/** Bars with open time in [start, end), ascending, one per time (pages may overlap at the seams). */
export function barsInRange(bars: readonly Bar[], start: Date, end: Date): Bar[] {
  const byTime = new Map<number, Bar>();
  for (const bar of bars) {
    const t = bar.time.getTime();
    if (t >= start.getTime() && t < end.getTime()) byTime.set(t, bar);
  }
  return [...byTime.values()].sort((a, b) => a.time.getTime() - b.time.getTime());
}

/** GET /api/v3/depth: `[price, quantity]` string pairs, best first; the body carries no time. */
export function parseDepth(body: unknown, depth: number): { bids: OrderBookLevel[]; asks: OrderBookLevel[] } {
  const book = record(body, 'depth');
  const side = (raw: unknown, name: string): OrderBookLevel[] => {
    if (!Array.isArray(raw)) throw badResponse(BINANCE, `${name} is not an array`);
    return raw.slice(0, depth).map((level: unknown, i) => {
      if (!Array.isArray(level)) throw badResponse(BINANCE, `${name}[${i}] is not a level`);
      return {
        price: positive(level[0], `${name}[${i}] price`),
        size: required(level[1], `${name}[${i}] size`),
      };
    });
  };
  return { bids: side(book.bids, 'bids'), asks: side(book.asks, 'asks') };
}

/** USD-M perpetuals settle funding every 8 hours unless Binance adjusts a symbol's interval. */
export const FUNDING_INTERVAL_HOURS = 8;

/** GET /fapi/v1/premiumIndex?symbol=: the current (estimated) rate of the running interval. */
export function parsePremiumIndex(body: unknown, instrument: Instrument): FundingRate {
  const p = record(body, 'premiumIndex');
  const next = decimal(p.nextFundingTime, 'nextFundingTime');
  return {
    symbol: instrument.symbol,
    venue: BINANCE,
    rate: required(p.lastFundingRate, 'lastFundingRate'),
    intervalHours: FUNDING_INTERVAL_HOURS,
    markPrice: decimal(p.markPrice, 'markPrice'),
    // 0 is what the endpoint sends for contracts without scheduled funding (delivery contracts).
    nextFundingTime: next ? new Date(next) : null,
    asOf: time(p.time, 'time'),
  };
}

export interface AggTrade {
  /** Aggregate trade id (`a`): consecutive per symbol, so pages can be walked by id. */
  readonly id: number;
  readonly price: number;
  readonly quantity: number;
  readonly time: Date;
  /** `m`: the buyer's order was resting, so the aggressor sold. */
  readonly buyerIsMaker: boolean;
}

/** GET /api/v3/aggTrades: `{a, p, q, f, l, T, m, M}` records (the stream's aggTrade without e, E, s). */
export function parseAggTrades(body: unknown): AggTrade[] {
  if (!Array.isArray(body)) throw badResponse(BINANCE, 'aggTrades is not an array');
  return body.map((raw: unknown, i) => {
    const t = record(raw, `aggTrade ${i}`);
    const id = required(t.a, `aggTrade ${i} id`);
    if (!Number.isSafeInteger(id) || id < 0)
      throw badResponse(BINANCE, `aggTrade ${i} id is ${id}, not an id`);
    if (typeof t.m !== 'boolean') throw badResponse(BINANCE, `aggTrade ${i} maker flag is missing`);
    return {
      id,
      price: positive(t.p, `aggTrade ${i} price`),
      quantity: required(t.q, `aggTrade ${i} quantity`),
      time: time(t.T, `aggTrade ${i} time`),
      buyerIsMaker: t.m,
    };
  });
}

/** Only instruments quoted in USD_QUOTES get here: the quote amount is the USD value. */
export function tradeFromAgg(t: AggTrade, instrument: Instrument): Trade {
  return {
    id: String(t.id),
    symbol: instrument.symbol,
    venue: BINANCE,
    price: t.price,
    quantity: t.quantity,
    usdValue: t.price * t.quantity,
    side: t.buyerIsMaker ? 'sell' : 'buy',
    time: t.time,
  };
}

/**
 * Binance's own error answers (the 4xx bodies ProviderHttp hands back): `{"code":-1121,"msg":
 * "Invalid symbol."}` is an unknown symbol; 418 is an IP ban, which is rate limiting with a
 * (usually long) Retry-After. Returns undefined for a 2xx answer.
 */
export function binanceError(
  status: number,
  body: unknown,
  symbol: string,
  retryAfterMs: number | undefined,
): ProviderError | undefined {
  if (status >= 200 && status < 300) return undefined;
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const msg = typeof b.msg === 'string' ? b.msg : typeof body === 'string' ? body.slice(0, 120) : '';
  if (status === 400 && b.code === -1121) return unknownSymbol(BINANCE, symbol, msg || undefined);
  if (status === 418 || status === 429) {
    return new ProviderError(
      BINANCE,
      'rate_limited',
      `${status === 418 ? 'IP banned' : 'rate limited'} (${status})${msg ? `: ${msg}` : ''}`,
      {
        status,
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
      },
    );
  }
  // Other 4xx answers refuse the request itself (a parameter Binance rejects): asking again won't help.
  return new ProviderError(
    BINANCE,
    'bad_response',
    `refused (${status}${b.code !== undefined ? ` code ${String(b.code)}` : ''})${msg ? `: ${msg}` : ''}`,
    { status },
  );
}

import { roundFloat } from '../../quant/round.ts';
import { FIAT, USD_EQUIVALENTS } from '../instruments.ts';
import type { Bar, CryptoStats, Instrument, Quote } from '../types.ts';
import { badResponse, ProviderError, unknownSymbol } from './provider-errors.ts';

/**
 * Pure parsers for the CoinGecko public API v3. CoinGecko is an aggregator: its prices are volume-
 * weighted across exchanges, quoted against a `vs_currency`, and its coins are addressed by ids
 * (`bitcoin`), not tickers, hence the static map below.
 */
export const COINGECKO = 'coingecko';

/** CoinGecko API ids of the coins Vigil recognises (instruments.ts KNOWN_COINS). */
export const COIN_IDS: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  ETH: 'ethereum',
  SOL: 'solana',
  BNB: 'binancecoin',
  XRP: 'ripple',
  ADA: 'cardano',
  DOGE: 'dogecoin',
  AVAX: 'avalanche-2',
  DOT: 'polkadot',
  MATIC: 'matic-network',
  POL: 'polygon-ecosystem-token',
  LINK: 'chainlink',
  LTC: 'litecoin',
  TRX: 'tron',
  SHIB: 'shiba-inu',
  ATOM: 'cosmos',
  UNI: 'uniswap',
  XLM: 'stellar',
  BCH: 'bitcoin-cash',
  NEAR: 'near',
  APT: 'aptos',
  ARB: 'arbitrum',
  OP: 'optimism',
  TON: 'the-open-network',
  FIL: 'filecoin',
  ETC: 'ethereum-classic',
  ICP: 'internet-computer',
  SUI: 'sui',
  USDT: 'tether',
  USDC: 'usd-coin',
  DAI: 'dai',
  FDUSD: 'first-digital-usd',
  PEPE: 'pepe',
  AAVE: 'aave',
  MKR: 'maker',
  INJ: 'injective-protocol',
  HBAR: 'hedera-hashgraph',
  ALGO: 'algorand',
};

/**
 * The `vs_currency` for an instrument's quote asset. CoinGecko prices no stablecoin pairs: a
 * `BTC/USDT` request is answered with the USD price (Quote.currency says `USD`), which arbitration
 * already treats as equivalent (instruments.ts USD_EQUIVALENTS).
 */
export function vsCurrency(quote: string): string | undefined {
  if (USD_EQUIVALENTS.has(quote)) return 'usd';
  if (FIAT.has(quote) || quote === 'BTC' || quote === 'ETH') return quote.toLowerCase();
  return undefined;
}

export interface CoinPair {
  readonly id: string;
  readonly vs: string;
}

export function coinPair(instrument: Instrument): CoinPair | undefined {
  if (instrument.assetClass !== 'crypto' || !instrument.base || !instrument.quote) return undefined;
  const id = COIN_IDS[instrument.base];
  const vs = vsCurrency(instrument.quote);
  return id && vs && instrument.base !== instrument.quote ? { id, vs } : undefined;
}

// ---- numbers and times ----

function num(value: unknown, field: string): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw badResponse(COINGECKO, `${field} is ${JSON.stringify(value)}, not a number`);
}

function need(value: unknown, field: string): number {
  const n = num(value, field);
  if (n === null) throw badResponse(COINGECKO, `${field} is missing`);
  return n;
}

function price(value: unknown, field: string): number {
  const n = need(value, field);
  if (!(n > 0)) throw badResponse(COINGECKO, `${field} is ${n}, not a price`);
  return n;
}

/**
 * When a cached answer was produced: its Date minus its Age (CoinGecko is served through a CDN
 * that reports how long it held the response). Used only when the body carries no time of its own.
 */
export function responseTime(date: Date | null, ageHeader: string | undefined): Date | null {
  if (!date) return null;
  const age = ageHeader !== undefined && /^\d+$/.test(ageHeader.trim()) ? Number(ageHeader) : 0;
  return new Date(date.getTime() - age * 1000);
}

/** The price 24 h ago implied by a 24 h change in percent. */
function reference(last: number, changePercent: number | null): number | null {
  return changePercent !== null && changePercent > -100 ? roundFloat(last / (1 + changePercent / 100)) : null;
}

// ---- /simple/price ----

/**
 * GET /simple/price?ids=&vs_currencies=&include_24hr_change=true&include_24hr_vol=true&
 * include_last_updated_at=true. An unknown id is answered with `{}`, an unsupported vs_currency
 * with `{"<id>":{}}`. The include_* fields may be absent (older answers and the recorded fixture):
 * change fields are then null and the time comes from `fallbackTime` (responseTime()).
 */
export function quoteFromSimplePrice(
  body: unknown,
  instrument: Instrument,
  pair: CoinPair,
  fallbackTime: Date | null,
): Quote {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badResponse(COINGECKO, 'not an object');
  const entry = (body as Record<string, unknown>)[pair.id];
  if (!entry || typeof entry !== 'object' || !(pair.vs in entry)) {
    throw unknownSymbol(COINGECKO, instrument.symbol, `no ${pair.vs} price for ${pair.id}`);
  }
  const e = entry as Record<string, unknown>;
  const last = price(e[pair.vs], pair.vs);
  const changePercent = num(e[`${pair.vs}_24h_change`], `${pair.vs}_24h_change`);
  const previousClose = reference(last, changePercent);
  const updatedAt = num(e.last_updated_at, 'last_updated_at');
  const asOf = updatedAt !== null && updatedAt > 0 ? new Date(updatedAt * 1000) : fallbackTime;
  if (!asOf) throw badResponse(COINGECKO, 'neither last_updated_at nor a Date header');
  return {
    symbol: instrument.symbol,
    price: last,
    change: previousClose !== null ? roundFloat(last - previousClose) : null,
    changePercent: previousClose !== null ? changePercent : null,
    previousClose,
    open: null,
    dayHigh: null,
    dayLow: null,
    // CoinGecko reports volume in the vs_currency only; a volume in coins would be an estimate.
    volume: null,
    currency: pair.vs.toUpperCase(),
    asOf,
    marketState: 'continuous',
  };
}

// ---- /coins/markets ----

/** GET /coins/markets?vs_currency=&ids=: a one-element array, or `[]` for an unknown id. */
export function statsFromMarkets(
  body: unknown,
  instrument: Instrument,
  pair: CoinPair,
  fallbackTime: Date | null,
): CryptoStats {
  if (!Array.isArray(body)) throw badResponse(COINGECKO, 'markets is not an array');
  const m = body.find((row: unknown) => (row as { id?: unknown } | null)?.id === pair.id) as
    | Record<string, unknown>
    | undefined;
  if (!m) throw unknownSymbol(COINGECKO, instrument.symbol, `no market data for ${pair.id}`);
  const last = price(m.current_price, 'current_price');
  const quoteVolume = num(m.total_volume, 'total_volume');
  const marketCap = num(m.market_cap, 'market_cap');
  const updated = typeof m.last_updated === 'string' ? new Date(m.last_updated) : null;
  const asOf = updated && !Number.isNaN(updated.getTime()) ? updated : fallbackTime;
  if (!asOf) throw badResponse(COINGECKO, 'neither last_updated nor a Date header');
  return {
    symbol: instrument.symbol,
    venue: COINGECKO,
    lastPrice: last,
    priceChange: need(m.price_change_24h, 'price_change_24h'),
    priceChangePercent: need(m.price_change_percentage_24h, 'price_change_percentage_24h'),
    high: price(m.high_24h, 'high_24h'),
    low: price(m.low_24h, 'low_24h'),
    // total_volume is in the vs_currency: the base-asset volume is not reported, so it stays unknown.
    volume: null,
    quoteVolume,
    // Market cap is in the vs_currency and means "unknown" when 0; Vigil's is in USD.
    marketCap: pair.vs === 'usd' && marketCap !== null && marketCap > 0 ? marketCap : null,
    asOf,
  };
}

// ---- /coins/{id}/ohlc ----

/**
 * GET /coins/{id}/ohlc?vs_currency=&days=: `[ms, open, high, low, close]` rows whose time is the
 * candle's CLOSE (CoinGecko documents this; the recording's last candle closes after it was made).
 * Returns bars stamped with their open time, sorted, one per time, volume null.
 *
 * A close time between boundaries (CoinGecko's still-running candle, or a repeated point a moment
 * before the previous one, as its market_chart answers show) belongs to the candle ending at the
 * next boundary; of two rows for one candle the later one wins. Spacing that contradicts `candleMs`
 * makes the answer a bad response: CoinGecko picks the granularity, and a wrong guess would
 * mislabel every bar.
 */
export function parseOhlc(body: unknown, candleMs: number): Bar[] {
  if (!Array.isArray(body)) throw badResponse(COINGECKO, 'ohlc is not an array');
  const byClose = new Map<number, { raw: number; bar: Bar }>();
  body.forEach((row: unknown, i) => {
    if (!Array.isArray(row) || row.length < 5) throw badResponse(COINGECKO, `candle ${i} is not [t,o,h,l,c]`);
    const raw = need(row[0], `candle ${i} time`);
    const close = Math.ceil(raw / candleMs) * candleMs;
    const bar: Bar = {
      time: new Date(close - candleMs),
      open: price(row[1], `candle ${i} open`),
      high: price(row[2], `candle ${i} high`),
      low: price(row[3], `candle ${i} low`),
      close: price(row[4], `candle ${i} close`),
      volume: null,
    };
    const seen = byClose.get(close);
    if (!seen || raw >= seen.raw) byClose.set(close, { raw, bar });
  });
  const bars = [...byClose.values()].map((v) => v.bar).sort((a, b) => a.time.getTime() - b.time.getTime());
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 1; i < bars.length; i++) {
    smallest = Math.min(smallest, bars[i]!.time.getTime() - bars[i - 1]!.time.getTime());
  }
  if (bars.length > 1 && smallest !== candleMs) {
    throw badResponse(COINGECKO, `candles ${smallest} ms apart where ${candleMs} ms candles were expected`);
  }
  return bars;
}

/**
 * Merges parseOhlc's candles (sorted, one per time) into bars of `targetMs`, aligned to UTC
 * multiples of it. A bar is made only from a complete set of candles: a period with a missing candle
 * has no bar, because its open, high, low or close would be a guess.
 */
export function aggregate(candles: readonly Bar[], candleMs: number, targetMs: number): Bar[] {
  if (targetMs === candleMs) return [...candles];
  const per = targetMs / candleMs;
  const groups = new Map<number, Bar[]>();
  for (const candle of candles) {
    const key = Math.floor(candle.time.getTime() / targetMs) * targetMs;
    const group = groups.get(key) ?? [];
    group.push(candle);
    groups.set(key, group);
  }
  const bars: Bar[] = [];
  for (const [time, group] of groups) {
    if (group.length !== per) continue;
    bars.push({
      time: new Date(time),
      open: group[0]!.open,
      high: Math.max(...group.map((c) => c.high)),
      low: Math.min(...group.map((c) => c.low)),
      close: group.at(-1)!.close,
      volume: null,
    });
  }
  return bars.sort((a, b) => a.time.getTime() - b.time.getTime());
}

/** Bars with open time in [start, end). */
export function inRange(bars: readonly Bar[], start: Date, end: Date): Bar[] {
  return bars.filter((b) => b.time.getTime() >= start.getTime() && b.time.getTime() < end.getTime());
}

/**
 * CoinGecko's error answers that ProviderHttp hands back: 404 `{"error":"coin not found"}` is an
 * unknown coin; 400/422 `{"error":"Missing parameter ids"}` means CoinGecko refused the request.
 */
export function coinGeckoError(status: number, body: unknown, symbol: string): ProviderError | undefined {
  if (status >= 200 && status < 300) return undefined;
  const b = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const raw = b.error ?? b.status;
  const text =
    typeof raw === 'string'
      ? raw
      : raw && typeof raw === 'object'
        ? JSON.stringify(raw).slice(0, 200)
        : typeof body === 'string'
          ? body.slice(0, 120)
          : '';
  if (status === 404) return unknownSymbol(COINGECKO, symbol, text || undefined);
  return new ProviderError(COINGECKO, 'bad_response', `refused (${status})${text ? `: ${text}` : ''}`, {
    status,
  });
}

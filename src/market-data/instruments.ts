import { ValidationError } from '../platform/errors.ts';
import { MARKET_CODES, marketForSuffix, marketInfo } from './markets.ts';
import type { AssetClass, Instrument } from './types.ts';

/**
 * Turns what a user typed into a canonical Instrument. Accepted notations:
 *   equities   AAPL, brk.b, BRK-B, VOD.L (Yahoo market suffix), with `market` for other listings
 *   crypto     BTC/USDT, btc-usd, BTCUSDT, or a bare coin (BTC) where the caller says it is crypto
 *   fx         EUR/USD, EURUSD=X
 *   indices    ^GSPC
 *   macro      US10Y, CPI, VIX, DXY, UNEMPLOYMENT, GDP, FED_RATE
 * A bare ticker is an equity unless the caller says otherwise (BTC is also a US-listed ETF).
 */

/** Coins recognised in `BTC-USD` / `BTCUSDT` notations without a hint. */
export const KNOWN_COINS = new Set([
  'BTC',
  'ETH',
  'SOL',
  'BNB',
  'XRP',
  'ADA',
  'DOGE',
  'AVAX',
  'DOT',
  'MATIC',
  'POL',
  'LINK',
  'LTC',
  'TRX',
  'SHIB',
  'ATOM',
  'UNI',
  'XLM',
  'BCH',
  'NEAR',
  'APT',
  'ARB',
  'OP',
  'TON',
  'FIL',
  'ETC',
  'ICP',
  'SUI',
  'USDT',
  'USDC',
  'DAI',
  'FDUSD',
  'PEPE',
  'AAVE',
  'MKR',
  'INJ',
  'HBAR',
  'ALGO',
]);

/** Quote assets accepted after a coin. */
export const CRYPTO_QUOTES = ['USDT', 'USDC', 'FDUSD', 'BUSD', 'USD', 'EUR', 'GBP', 'BTC', 'ETH'] as const;

/** Quote assets treated as the US dollar when values from different venues are compared. */
export const USD_EQUIVALENTS = new Set(['USD', 'USDT', 'USDC', 'FDUSD', 'BUSD', 'DAI']);

export const FIAT = new Set([
  'USD',
  'EUR',
  'GBP',
  'JPY',
  'CHF',
  'CAD',
  'AUD',
  'NZD',
  'CNY',
  'HKD',
  'SEK',
  'NOK',
  'INR',
  'MXN',
  'SGD',
]);

export const MACRO_SERIES = new Set([
  'US10Y',
  'US2Y',
  'CPI',
  'VIX',
  'DXY',
  'UNEMPLOYMENT',
  'GDP',
  'FED_RATE',
]);

export interface ParseHint {
  /** What the caller expects (`crypto` for search-by-coin); a bare coin is then BASE/`quote`. */
  readonly assetClass?: AssetClass;
  /** Market code for listed instruments (default US). */
  readonly market?: string;
  /** Quote asset for a bare coin (default USDT). */
  readonly quote?: string;
  /** Argument name to use in error messages (default `symbol`). */
  readonly field?: string;
}

const MAX_LENGTH = 24;

export function parseInstrument(input: string, hint: ParseHint = {}): Instrument {
  const field = hint.field ?? 'symbol';
  const raw = input.trim().toUpperCase();
  if (raw.length === 0) throw new ValidationError(field, 'must not be empty');
  if (raw.length > MAX_LENGTH) throw new ValidationError(field, `must be at most ${MAX_LENGTH} characters`);
  if (!/^[\^A-Z0-9./=_-]+$/.test(raw)) {
    throw new ValidationError(field, `${JSON.stringify(input)} contains characters no symbol has`);
  }

  if (hint.assetClass === 'crypto') return parseCrypto(raw, hint, field);

  if (raw.startsWith('^')) {
    if (!/^\^[A-Z0-9.]{1,10}$/.test(raw))
      throw new ValidationError(field, `${input} is not an index symbol like ^GSPC`);
    return { symbol: raw, assetClass: 'index' };
  }
  if (raw.endsWith('=X')) {
    const pair = raw.slice(0, -2);
    if (!/^[A-Z]{6}$/.test(pair))
      throw new ValidationError(field, `${input} is not an fx symbol like EURUSD=X`);
    return fx(pair.slice(0, 3), pair.slice(3), field);
  }
  if (raw.includes('/')) {
    const [base, quote, ...rest] = raw.split('/');
    if (!base || !quote || rest.length > 0)
      throw new ValidationError(field, `${input} is not a BASE/QUOTE pair`);
    if (FIAT.has(base) && FIAT.has(quote)) return fx(base, quote, field);
    return crypto(base, quote, field);
  }
  if (MACRO_SERIES.has(raw) && hint.assetClass !== 'equity') return { symbol: raw, assetClass: 'macro' };

  const dashed = /^([A-Z0-9]{2,10})-([A-Z]{3,5})$/.exec(raw);
  if (dashed && KNOWN_COINS.has(dashed[1]!) && (CRYPTO_QUOTES as readonly string[]).includes(dashed[2]!)) {
    return crypto(dashed[1]!, dashed[2]!, field);
  }
  const joined = splitJoinedPair(raw);
  if (joined) return crypto(joined.base, joined.quote, field);

  return parseListed(raw, hint, field, input);
}

export interface ResolveHint {
  /**
   * An asset class the caller named explicitly (`asset_type`, `assetClass`); absent when the caller
   * left it open, so a bare coin can be read as the coin.
   */
  readonly assetClass?: AssetClass;
  /** Market code for listed instruments (default US). */
  readonly market?: string;
  /** Quote asset of a bare coin (default USDT, like search-by-coin). */
  readonly quote?: string;
  /** Argument name to use in error messages (default `symbol`). */
  readonly field?: string;
}

/**
 * The one reading of a symbol every surface shares (price streams, quotes, bars): the notations of
 * parseInstrument, plus a bare coin (`BTC`, `eth`) read as the coin against USDT when the caller
 * named no asset class, as search-by-coin reads it. BTC is also a US-listed fund: asking for the
 * equity explicitly still gets the fund. Stablecoins stay listed tickers (USDT against USDT means
 * nothing). Other asset classes are no parsing hints: `asset_type: equity`, the old protocol's
 * default, never turns BTC/USDT or VIX into a share.
 */
export function resolveInstrument(input: string, hint: ResolveHint = {}): Instrument {
  const { assetClass, market, quote, field } = hint;
  const base = { ...(market ? { market } : {}), ...(field ? { field } : {}) };
  if (assetClass === 'crypto')
    return parseInstrument(input, { ...base, assetClass, ...(quote ? { quote } : {}) });
  const raw = input.trim().toUpperCase();
  if (assetClass === undefined && KNOWN_COINS.has(raw) && !USD_EQUIVALENTS.has(raw)) {
    return parseInstrument(raw, { ...base, assetClass: 'crypto', ...(quote ? { quote } : {}) });
  }
  return parseInstrument(input, base);
}

function parseListed(raw: string, hint: ParseHint, field: string, input: string): Instrument {
  let ticker = raw;
  let market = hint.market ? hint.market.toUpperCase() : undefined;
  const dot = /^([A-Z0-9]{1,10})\.([A-Z]{1,3})$/.exec(raw);
  if (dot) {
    const byMarket =
      dot[2]!.length >= 2 || dot[2] === 'L' || dot[2] === 'T' ? marketForSuffix(`.${dot[2]}`) : undefined;
    if (byMarket) {
      if (market && market !== byMarket.code) {
        throw new ValidationError(
          field,
          `${input} is listed in ${byMarket.code}, but market ${market} was given`,
        );
      }
      ticker = dot[1]!;
      market = byMarket.code;
    }
  }
  // Share classes are written with a dot: BRK-B and BRK.B are the same instrument.
  ticker = ticker.replace(/^([A-Z0-9]{1,10})-([A-Z])$/, '$1.$2');
  if (!/^[A-Z0-9]{1,10}(\.[A-Z]{1,2})?$/.test(ticker)) {
    throw new ValidationError(
      field,
      `${JSON.stringify(input)} is not a ticker (letters and digits, optional share class like BRK.B)`,
    );
  }
  const code = market ?? 'US';
  if (!marketInfo(code)) {
    throw new ValidationError(
      'market',
      `unknown market ${JSON.stringify(code)}; known markets: ${MARKET_CODES.join(', ')}`,
    );
  }
  return { symbol: ticker, assetClass: 'equity', market: code };
}

function parseCrypto(raw: string, hint: ParseHint, field: string): Instrument {
  if (raw.includes('/')) {
    const [base, quote, ...rest] = raw.split('/');
    if (!base || !quote || rest.length > 0)
      throw new ValidationError(field, `${raw} is not a BASE/QUOTE pair`);
    return crypto(base, quote, field);
  }
  const dashed = /^([A-Z0-9]{2,10})-([A-Z]{3,5})$/.exec(raw);
  if (dashed) return crypto(dashed[1]!, dashed[2]!, field);
  const joined = splitJoinedPair(raw);
  if (joined) return crypto(joined.base, joined.quote, field);
  const quote = (hint.quote ?? 'USDT').toUpperCase();
  return crypto(raw, quote, 'pair');
}

function splitJoinedPair(raw: string): { base: string; quote: string } | undefined {
  for (const quote of ['USDT', 'USDC', 'FDUSD', 'BUSD']) {
    if (raw.endsWith(quote) && raw.length > quote.length) {
      const base = raw.slice(0, -quote.length);
      if (KNOWN_COINS.has(base)) return { base, quote };
    }
  }
  return undefined;
}

function crypto(base: string, quote: string, field: string): Instrument {
  if (!/^[A-Z0-9]{2,10}$/.test(base)) throw new ValidationError(field, `${base} is not a coin symbol`);
  if (!/^[A-Z0-9]{2,6}$/.test(quote))
    throw new ValidationError(field === 'symbol' ? 'pair' : field, `${quote} is not a quote asset`);
  if (base === quote) throw new ValidationError(field, `base and quote asset are both ${base}`);
  return { symbol: `${base}/${quote}`, assetClass: 'crypto', base, quote };
}

function fx(base: string, quote: string, field: string): Instrument {
  if (!FIAT.has(base) || !FIAT.has(quote))
    throw new ValidationError(field, `${base}/${quote} is not a currency pair Vigil knows`);
  if (base === quote) throw new ValidationError(field, `base and quote currency are both ${base}`);
  return { symbol: `${base}/${quote}`, assetClass: 'fx', base, quote };
}

/** A stable key for caches and hubs: `equity:US:AAPL`, `crypto:BTC/USDT`. */
export function instrumentKey(instrument: Instrument): string {
  return instrument.market
    ? `${instrument.assetClass}:${instrument.market}:${instrument.symbol}`
    : `${instrument.assetClass}:${instrument.symbol}`;
}

/** Yahoo Finance ticker for an instrument (`BRK-B`, `VOD.L`, `BTC-USD`, `EURUSD=X`, `^GSPC`). */
export function yahooSymbol(instrument: Instrument): string | undefined {
  switch (instrument.assetClass) {
    case 'equity':
    case 'etf': {
      const suffix = marketInfo(instrument.market ?? 'US')?.suffix ?? '';
      return `${instrument.symbol.replace('.', '-')}${suffix}`;
    }
    case 'index':
      return instrument.symbol;
    case 'fx':
      return `${instrument.base}${instrument.quote}=X`;
    case 'crypto':
      return USD_EQUIVALENTS.has(instrument.quote ?? '')
        ? `${instrument.base}-USD`
        : `${instrument.base}-${instrument.quote}`;
    case 'macro':
      return MACRO_YAHOO[instrument.symbol];
  }
}

/** Macro series with a Yahoo-listed proxy (yields, volatility, dollar index). */
const MACRO_YAHOO: Record<string, string> = { US10Y: '^TNX', VIX: '^VIX', DXY: 'DX-Y.NYB' };

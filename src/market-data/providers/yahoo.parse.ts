import { roundFloat } from '../../quant/round.ts';
import { instrumentFromTicker } from '../search/instrument-search.ts';
import type { AssetClass, Bar, Profile, Quote } from '../types.ts';
import type { InstrumentMatch } from './provider.ts';
import { badResponse, ProviderError, unknownSymbol } from './provider-errors.ts';

/**
 * Pure readers of Yahoo Finance responses (chart v8, quote v7, search v1). They trust nothing:
 * numbers may be missing or null, arrays may be ragged, and a value Yahoo leaves out stays null
 * instead of 0.
 */

export const YAHOO = 'yahoo';

type Json = Record<string, unknown>;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A finite number from a number or a numeric string, else null. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

/** A price: Yahoo writes 0 where it has no value, and no instrument trades at 0. */
function price(value: unknown): number | null {
  const n = num(value);
  return n !== null && n > 0 ? n : null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function epochSeconds(value: unknown): Date | null {
  const n = num(value);
  return n !== null && n > 0 ? new Date(n * 1000) : null;
}

export interface Chart {
  readonly meta: Json;
  /** Sorted by time, one bar per time, bars with a missing price dropped; not yet cut to a range. */
  readonly bars: Bar[];
}

/**
 * Reads a chart v8 answer of any status the HTTP client hands back (2xx and the 4xx it leaves to
 * adapters). A 404 or a `Not Found` chart error means the symbol has no data at Yahoo.
 */
export function parseChart(body: unknown, status: number, symbol: string): Chart {
  const chart = record(record(body)?.chart);
  const error = record(chart?.error);
  if (error || status >= 400) {
    const code = text(error?.code);
    const description = text(error?.description);
    if (status === 404 || code === 'Not Found') throw unknownSymbol(YAHOO, symbol, description);
    // "Data doesn't exist for startDate = ..., endDate = ...": Yahoo has nothing for the symbol in
    // the range (not listed then, or not at all). An answer about the symbol, not a refused request;
    // Yahoo's own words are the reason callers see.
    if (status === 400 && description && /^data doesn.t exist/i.test(description)) {
      throw unknownSymbol(YAHOO, symbol, description);
    }
    if (status === 400 || status === 422 || code === 'Bad Request' || code === 'Unprocessable Entity') {
      // Yahoo refuses ranges it does not keep (1m bars older than ~30 days) and bad intervals.
      throw new ProviderError(
        YAHOO,
        'unsupported',
        `chart request refused: ${description ?? code ?? status}`,
        {
          status,
        },
      );
    }
    throw badResponse(YAHOO, `chart answered ${status}${description ? `: ${description}` : ''}`);
  }
  const results = chart?.result;
  const result = Array.isArray(results) ? record(results[0]) : undefined;
  const meta = record(result?.meta);
  if (!result || !meta) throw badResponse(YAHOO, 'chart without result or meta');
  // Yahoo writes 0 for the volume of currencies, which trade off-exchange: no volume is known.
  return { meta, bars: chartBars(result, meta.instrumentType !== 'CURRENCY') };
}

function chartBars(result: Json, hasVolume: boolean): Bar[] {
  const times = result.timestamp;
  // A range without trading (a weekend) comes back with no timestamp array and `quote: [{}]`.
  if (times === undefined) return [];
  if (!Array.isArray(times)) throw badResponse(YAHOO, 'chart timestamp is not an array');
  const indicators = record(result.indicators);
  const quote = record(Array.isArray(indicators?.quote) ? indicators.quote[0] : undefined);
  if (!quote) throw badResponse(YAHOO, 'chart without indicators.quote');
  const column = (values: unknown): readonly unknown[] => (Array.isArray(values) ? values : []);
  const open = column(quote.open);
  const high = column(quote.high);
  const low = column(quote.low);
  const close = column(quote.close);
  const volume = column(quote.volume);
  const adjSeries = record(Array.isArray(indicators?.adjclose) ? indicators.adjclose[0] : undefined);
  const adjclose = Array.isArray(adjSeries?.adjclose) ? adjSeries.adjclose : undefined;

  const byTime = new Map<number, Bar>();
  times.forEach((t, i) => {
    const time = epochSeconds(t);
    const o = price(open[i]);
    const h = price(high[i]);
    const l = price(low[i]);
    const c = price(close[i]);
    if (!time || o === null || h === null || l === null || c === null) return;
    const v = num(volume[i]);
    const adj = adjclose ? price(adjclose[i]) : null;
    // A repeated time is Yahoo re-sending the still-open bar; the later entry is the newer one.
    byTime.set(time.getTime(), {
      time,
      open: o,
      high: h,
      low: l,
      close: c,
      volume: hasVolume && v !== null && v >= 0 ? v : null,
      ...(adj !== null ? { adjClose: adj } : {}),
    });
  });
  return [...byTime.values()].sort((a, b) => a.time.getTime() - b.time.getTime());
}

/** Bars whose open time lies in [start, end): Yahoo treats `period2` as inclusive. */
export function barsInRange(bars: readonly Bar[], start: Date, end: Date): Bar[] {
  const from = start.getTime();
  const to = end.getTime();
  return bars.filter((bar) => bar.time.getTime() >= from && bar.time.getTime() < to);
}

/**
 * A quote from a chart's `meta` (chart v8 needs no crumb, quote v7 does). `bars` are the chart's
 * own bars, used only for the session open when the chart is daily.
 */
export function quoteFromChart(chart: Chart, symbol: string, assetClass: AssetClass): Quote {
  const { meta, bars } = chart;
  const last = price(meta.regularMarketPrice);
  const asOf = epochSeconds(meta.regularMarketTime);
  const currency = text(meta.currency);
  if (last === null) throw badResponse(YAHOO, `chart meta of ${symbol} has no regularMarketPrice`);
  if (!asOf) throw badResponse(YAHOO, `chart meta of ${symbol} has no regularMarketTime`);
  if (!currency) throw badResponse(YAHOO, `chart meta of ${symbol} has no currency`);

  // chartPreviousClose is the close before the chart's first bar: the previous session only when
  // the chart covers one day; for longer charts it belongs to an older day.
  const previousClose =
    price(meta.previousClose) ?? (meta.range === '1d' ? price(meta.chartPreviousClose) : null);
  // Yahoo's crypto reference is the 00:00 UTC close, not the price 24 hours ago Vigil means by change.
  const hasReference = previousClose !== null && assetClass !== 'crypto';
  const change = hasReference ? roundFloat(last - previousClose) : null;
  const name = text(meta.longName) ?? text(meta.shortName);
  const exchange = text(meta.fullExchangeName) ?? text(meta.exchangeName);
  return {
    symbol,
    price: last,
    change,
    changePercent: hasReference && change !== null ? roundFloat((change / previousClose) * 100) : null,
    previousClose,
    open: sessionOpen(meta, bars, asOf),
    dayHigh: price(meta.regularMarketDayHigh),
    dayLow: price(meta.regularMarketDayLow),
    volume: meta.instrumentType === 'CURRENCY' ? null : nonNegative(meta.regularMarketVolume),
    currency,
    asOf,
    ...(name ? { name } : {}),
    ...(exchange ? { exchange } : {}),
  };
}

/** The open of the session the price belongs to, read from a daily bar of that same session. */
function sessionOpen(meta: Json, bars: readonly Bar[], asOf: Date): number | null {
  if (meta.dataGranularity !== '1d') return null;
  const bar = bars.at(-1);
  if (!bar) return null;
  const age = asOf.getTime() - bar.time.getTime();
  return age >= 0 && age < 86_400_000 ? bar.open : null;
}

function nonNegative(value: unknown): number | null {
  const n = num(value);
  return n !== null && n >= 0 ? n : null;
}

const QUOTE_TYPES: Readonly<Record<string, AssetClass>> = {
  EQUITY: 'equity',
  ETF: 'etf',
  CRYPTOCURRENCY: 'crypto',
  CURRENCY: 'fx',
  INDEX: 'index',
};

export function assetClassOf(quoteType: unknown): AssetClass | undefined {
  return typeof quoteType === 'string' ? QUOTE_TYPES[quoteType.toUpperCase()] : undefined;
}

/**
 * A profile from quote v7. Quote v7 carries no sector, industry or beta, so those stay null.
 * `fallbackAsOf` is used only when the row has no regularMarketTime.
 */
export function profileFromQuoteV7(
  body: unknown,
  yahooTicker: string,
  instrument: { readonly symbol: string; readonly assetClass: AssetClass },
  fallbackAsOf: Date,
): Profile {
  const response = record(record(body)?.quoteResponse);
  const rows = response?.result;
  if (!response || !Array.isArray(rows)) throw badResponse(YAHOO, 'quote v7 without quoteResponse.result');
  const error = record(response.error);
  if (error)
    throw badResponse(YAHOO, `quote v7 error: ${text(error.description) ?? text(error.code) ?? '?'}`);
  const row = rows
    .map(record)
    .find((r) => typeof r?.symbol === 'string' && r.symbol.toUpperCase() === yahooTicker.toUpperCase());
  if (!row) throw unknownSymbol(YAHOO, instrument.symbol);
  const name = text(row.longName) ?? text(row.shortName) ?? text(row.displayName);
  const currency = text(row.currency);
  if (!name) throw badResponse(YAHOO, `quote v7 row for ${yahooTicker} has no name`);
  if (!currency) throw badResponse(YAHOO, `quote v7 row for ${yahooTicker} has no currency`);
  return {
    symbol: instrument.symbol,
    name,
    exchange: text(row.fullExchangeName) ?? text(row.exchange) ?? null,
    currency,
    // Types Vigil has no class for (mutual funds, futures) keep the class the caller asked about.
    assetClass: assetClassOf(row.quoteType) ?? instrument.assetClass,
    sector: null,
    industry: null,
    marketCap: price(row.marketCap),
    peRatio: num(row.trailingPE),
    beta: null,
    averageVolume: nonNegative(row.averageDailyVolume3Month),
    week52High: price(row.fiftyTwoWeekHigh),
    week52Low: price(row.fiftyTwoWeekLow),
    sharesOutstanding: price(row.sharesOutstanding),
    asOf: epochSeconds(row.regularMarketTime) ?? fallbackAsOf,
  };
}

/**
 * Cookies from Set-Cookie headers as one Cookie header value. The HTTP client joins repeated
 * headers with `, `, and `Expires=Wed, 21 Oct ...` holds a comma too, so split only where a new
 * `name=` follows.
 */
export function cookieHeader(setCookie: string | undefined): string | undefined {
  if (!setCookie) return undefined;
  const pairs = setCookie
    .split(/,\s*(?=[^;,=\s]+=)/)
    .map((cookie) => cookie.split(';', 1)[0]!.trim())
    .filter((pair) => /^[^=\s]+=/.test(pair));
  return pairs.length > 0 ? pairs.join('; ') : undefined;
}

/** A crumb is a short opaque token; an HTML page or an empty body means Yahoo refused the session. */
export function parseCrumb(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  const crumb = body.trim();
  return /^[^\s<>{}"]{1,64}$/.test(crumb) ? crumb : undefined;
}

/**
 * Matches of finance search v1 (`quotes[]`), in Yahoo's order, as instruments Vigil can write:
 * options, futures, funds and listings on markets Vigil does not know are left out.
 */
export function parseSearch(body: unknown): InstrumentMatch[] {
  const quotes = record(body)?.quotes;
  if (!Array.isArray(quotes)) throw badResponse(YAHOO, 'search without quotes');
  const matches: InstrumentMatch[] = [];
  for (const row of quotes.map(record)) {
    const ticker = text(row?.symbol);
    const assetClass = assetClassOf(row?.quoteType);
    if (!row || !ticker || !assetClass) continue;
    const instrument = instrumentFromTicker(ticker, assetClass);
    if (!instrument) continue;
    matches.push({
      instrument,
      name: text(row.longname) ?? text(row.shortname) ?? instrument.symbol,
      exchange: text(row.exchDisp) ?? text(row.exchange) ?? null,
    });
  }
  return matches;
}

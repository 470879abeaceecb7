import { localTime, MARKETS, wallClockToUtc } from '../markets.ts';
import { instrumentFromTicker } from '../search/instrument-search.ts';
import type { Bar, EarningsReport, Quote } from '../types.ts';
import type { InstrumentMatch } from './provider.ts';
import { badResponse, unknownSymbol } from './provider-errors.ts';

/**
 * Pure readers of Finnhub answers. Finnhub answers an unknown symbol with HTTP 200 and zeros, so a
 * zero price is a missing value here, never a price.
 */

export const FINNHUB = 'finnhub';

type Json = Record<string, unknown>;

const US = MARKETS.US!;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A finite number from a number or a numeric string, else null. */
export function fhNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function positive(value: unknown): number | null {
  const n = fhNumber(value);
  return n !== null && n > 0 ? n : null;
}

function json(body: unknown, what: string): Json {
  const object = record(body);
  if (!object) throw badResponse(FINNHUB, `${what}: not a JSON object: ${String(body).slice(0, 80)}`);
  return object;
}

/** /quote. `t` is the time of the last price, in epoch seconds; t = 0 means Finnhub has no such symbol. */
export function parseQuote(body: unknown, symbol: string): Quote {
  const q = json(body, 'quote');
  const last = positive(q.c);
  const t = fhNumber(q.t);
  if (last === null || t === null || t <= 0) throw unknownSymbol(FINNHUB, symbol, 'quote is all zeros');
  const previousClose = positive(q.pc);
  return {
    symbol,
    price: last,
    change: previousClose !== null ? fhNumber(q.d) : null,
    changePercent: previousClose !== null ? fhNumber(q.dp) : null,
    previousClose,
    open: positive(q.o),
    dayHigh: positive(q.h),
    dayLow: positive(q.l),
    // /quote carries no volume.
    volume: null,
    // Finnhub serves US listings only through this adapter, and those are priced in dollars.
    currency: US.currency,
    asOf: new Date(t * 1000),
  };
}

/** Wall-clock minute in New York by which a report is out, per Finnhub's `hour`. */
const REPORT_MINUTE: Readonly<Record<string, number>> = {
  bmo: US.openMinute, // before market open: out by the open
  dmh: 13 * 60, // during market hours
  amc: 17 * 60, // after market close
};

/**
 * /calendar/earnings rows for `symbol` with reportDate in [from, to], ascending. Finnhub gives the
 * fiscal quarter and year but not the period's end date, so fiscalPeriodEnd is null.
 */
export function parseEarningsCalendar(body: unknown, symbol: string, from: Date, to: Date): EarningsReport[] {
  const rows = json(body, 'earnings calendar').earningsCalendar;
  if (!Array.isArray(rows)) throw badResponse(FINNHUB, 'earningsCalendar is not an array');
  const reports: EarningsReport[] = [];
  for (const row of rows.map(record)) {
    if (!row || typeof row.symbol !== 'string' || row.symbol.toUpperCase() !== symbol.toUpperCase()) continue;
    const minute = typeof row.hour === 'string' ? (REPORT_MINUTE[row.hour] ?? 0) : 0;
    const reportDate = wallClockToUtc(String(row.date ?? ''), minute, US.timeZone);
    if (!reportDate || reportDate < from || reportDate > to) continue;
    const reportedEps = fhNumber(row.epsActual);
    const estimatedEps = fhNumber(row.epsEstimate);
    reports.push({
      symbol,
      reportDate,
      fiscalPeriodEnd: null,
      reportedEps,
      estimatedEps,
      surprisePercent:
        reportedEps !== null && estimatedEps !== null && estimatedEps !== 0
          ? ((reportedEps - estimatedEps) / Math.abs(estimatedEps)) * 100
          : null,
    });
  }
  return reports.sort((a, b) => a.reportDate.getTime() - b.reportDate.getTime());
}

/**
 * /stock/candle. `s: "no_data"` is an empty range, not an error. Daily candles are stamped at the
 * start of the New York day; they are moved to the session open of their date, which is how the
 * other daily sources time a daily bar.
 */
export function parseCandles(body: unknown, daily: boolean): Bar[] {
  const candles = json(body, 'candles');
  if (candles.s === 'no_data') return [];
  if (candles.s !== 'ok') throw badResponse(FINNHUB, `candle status ${JSON.stringify(candles.s)}`);
  const column = (key: string): readonly unknown[] => {
    const values = candles[key];
    if (!Array.isArray(values)) throw badResponse(FINNHUB, `candles without "${key}"`);
    return values;
  };
  const [t, o, h, l, c] = ['t', 'o', 'h', 'l', 'c'].map(column) as [
    readonly unknown[],
    readonly unknown[],
    readonly unknown[],
    readonly unknown[],
    readonly unknown[],
  ];
  const v = Array.isArray(candles.v) ? candles.v : [];
  const byTime = new Map<number, Bar>();
  t.forEach((stamp, i) => {
    const seconds = fhNumber(stamp);
    const open = positive(o[i]);
    const high = positive(h[i]);
    const low = positive(l[i]);
    const close = positive(c[i]);
    if (
      seconds === null ||
      seconds <= 0 ||
      open === null ||
      high === null ||
      low === null ||
      close === null
    ) {
      return;
    }
    const time = daily ? sessionOpenOf(seconds) : new Date(seconds * 1000);
    if (!time) return;
    const volume = fhNumber(v[i]);
    byTime.set(time.getTime(), {
      time,
      open,
      high,
      low,
      close,
      volume: volume !== null && volume >= 0 ? volume : null,
    });
  });
  return [...byTime.values()].sort((a, b) => a.time.getTime() - b.time.getTime());
}

/**
 * The New York session open on the trading date of a daily stamp. The date is read six hours after
 * the stamp, so a stamp at New York midnight, UTC midnight or the open all name the same day.
 */
function sessionOpenOf(seconds: number): Date | null {
  const local = localTime(new Date(seconds * 1000 + 6 * 3_600_000), US.timeZone);
  const date = `${local.year}-${String(local.month).padStart(2, '0')}-${String(local.day).padStart(2, '0')}`;
  return wallClockToUtc(date, US.openMinute, US.timeZone);
}

/** Finnhub security types Vigil has a class for (ADRs and REITs trade as shares). */
const SEARCH_TYPES: Readonly<Record<string, 'equity' | 'etf'>> = {
  'COMMON STOCK': 'equity',
  ADR: 'equity',
  REIT: 'equity',
  ETP: 'etf',
};

/**
 * /search (symbol lookup): `{count, result:[{description, displaySymbol, symbol, type}]}`, in
 * Finnhub's order. Listings are written with Yahoo-style suffixes (`AAPL.SW`); those on markets
 * Vigil does not know, and types it has no class for (warrants, preferred shares), are left out.
 */
export function parseSymbolSearch(body: unknown): InstrumentMatch[] {
  const rows = json(body, 'search').result;
  if (!Array.isArray(rows)) throw badResponse(FINNHUB, 'search without result');
  const matches: InstrumentMatch[] = [];
  for (const row of rows.map(record)) {
    const symbol = typeof row?.symbol === 'string' ? row.symbol.trim() : '';
    const assetClass = SEARCH_TYPES[String(row?.type ?? '').toUpperCase()];
    if (!row || !symbol || !assetClass) continue;
    const instrument = instrumentFromTicker(symbol, assetClass);
    if (!instrument) continue;
    const name = typeof row.description === 'string' ? row.description.trim() : '';
    matches.push({ instrument, name: name || instrument.symbol, exchange: null });
  }
  return matches;
}

import { MARKETS, wallClockToUtc } from '../markets.ts';
import type { Bar, EarningsReport, Quote } from '../types.ts';
import { badResponse, ProviderError, unknownSymbol } from './provider-errors.ts';

/**
 * Pure readers of Alpha Vantage answers. Every number arrives as a string, keys are numbered
 * (`05. price`), missing values are written `None`, and errors come back as HTTP 200 with a body
 * whose only content is a message.
 */

export const ALPHAVANTAGE = 'alphavantage';

type Json = Record<string, unknown>;

const US = MARKETS.US!;

function record(value: unknown): Json | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : undefined;
}

/** A finite number from `"121.7400"`, `"0.4207%"` or a number; `None`, `-` and blanks are null. */
export function avNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string') return null;
  const trimmed = value.trim().replace(/%$/, '');
  if (trimmed === '' || trimmed === 'None' || trimmed === '-') return null;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : null;
}

function positive(value: unknown): number | null {
  const n = avNumber(value);
  return n !== null && n > 0 ? n : null;
}

/** `{"05. price": ...}` -> `{price: ...}`, so a renumbering upstream does not break the reader. */
function unnumbered(fields: Json): Json {
  return Object.fromEntries(
    Object.entries(fields).map(([key, value]) => [key.replace(/^\d+\.\s*/, ''), value]),
  );
}

const RATE_LIMIT_TEXT = /frequency|rate limit|calls per|requests per/i;

/**
 * Throws the ProviderError an answer stands for when it does not hold `dataKey`: the soft errors
 * (`Information`/`Note` for rate limits and premium refusals, `Error Message` for a symbol or call
 * Alpha Vantage does not know) and anything that is not a JSON object.
 */
export function expectData(body: unknown, dataKey: string, symbol: string): Json {
  const json = record(body);
  if (!json) throw badResponse(ALPHAVANTAGE, `not a JSON object: ${String(body).slice(0, 80)}`);
  if (dataKey in json) return json;
  const errorMessage = json['Error Message'];
  if (typeof errorMessage === 'string') throw unknownSymbol(ALPHAVANTAGE, symbol, errorMessage.slice(0, 160));
  const message = json.Information ?? json.Note;
  if (typeof message === 'string') {
    if (RATE_LIMIT_TEXT.test(message)) {
      throw new ProviderError(ALPHAVANTAGE, 'rate_limited', `rate limit reached: ${message.slice(0, 200)}`);
    }
    throw new ProviderError(ALPHAVANTAGE, 'unauthorized', `refused for this key: ${message.slice(0, 200)}`);
  }
  throw badResponse(ALPHAVANTAGE, `no "${dataKey}" in the answer (keys: ${Object.keys(json).join(', ')})`);
}

/**
 * GLOBAL_QUOTE. Alpha Vantage dates the quote by trading day only, so asOf is that day's 16:00
 * close in New York; during the session that instant is still ahead, and the answer cannot be newer
 * than the response itself, so the response Date caps it.
 */
export function parseGlobalQuote(body: unknown, symbol: string, responseDate: Date | null): Quote {
  const raw = record(expectData(body, 'Global Quote', symbol)['Global Quote']);
  if (!raw || Object.keys(raw).length === 0) throw unknownSymbol(ALPHAVANTAGE, symbol, 'empty Global Quote');
  const q = unnumbered(raw);
  const last = positive(q.price);
  const day = typeof q['latest trading day'] === 'string' ? q['latest trading day'] : '';
  if (last === null) throw badResponse(ALPHAVANTAGE, `GLOBAL_QUOTE for ${symbol} has no price`);
  const close = wallClockToUtc(day, US.closeMinute, US.timeZone);
  if (!close) throw badResponse(ALPHAVANTAGE, `GLOBAL_QUOTE for ${symbol} has no latest trading day`);
  const asOf = responseDate && responseDate < close ? responseDate : close;
  const volume = avNumber(q.volume);
  return {
    symbol,
    price: last,
    change: avNumber(q.change),
    changePercent: avNumber(q['change percent']),
    previousClose: positive(q['previous close']),
    open: positive(q.open),
    dayHigh: positive(q.high),
    dayLow: positive(q.low),
    volume: volume !== null && volume >= 0 ? volume : null,
    currency: US.currency,
    asOf,
  };
}

/**
 * TIME_SERIES_DAILY, unadjusted (the adjusted series is a premium endpoint). A daily bar opens at
 * the New York session open of its date, which is how the other daily sources time theirs.
 */
export function parseDailySeries(body: unknown, symbol: string): Bar[] {
  const series = record(expectData(body, 'Time Series (Daily)', symbol)['Time Series (Daily)']);
  if (!series) throw badResponse(ALPHAVANTAGE, 'Time Series (Daily) is not an object');
  const bars: Bar[] = [];
  for (const [date, value] of Object.entries(series)) {
    const fields = record(value);
    const time = wallClockToUtc(date, US.openMinute, US.timeZone);
    if (!fields || !time) continue;
    const f = unnumbered(fields);
    const open = positive(f.open);
    const high = positive(f.high);
    const low = positive(f.low);
    const close = positive(f.close);
    if (open === null || high === null || low === null || close === null) continue;
    const volume = avNumber(f.volume);
    bars.push({ time, open, high, low, close, volume: volume !== null && volume >= 0 ? volume : null });
  }
  return bars.sort((a, b) => a.time.getTime() - b.time.getTime());
}

/** Wall-clock time of day in New York by which a report published at `reportTime` is out. */
const REPORT_MINUTE: Readonly<Record<string, number>> = {
  'pre-market': US.openMinute,
  'post-market': 17 * 60,
};

/**
 * EARNINGS quarterly reports with reportDate in [from, to], ascending. The report date has no time
 * of day unless the answer carries `reportTime`; without it the report is placed at the start of
 * that New York day. Fiscal period ends are calendar dates (00:00 UTC).
 */
export function parseEarnings(body: unknown, symbol: string, from: Date, to: Date): EarningsReport[] {
  const rows = expectData(body, 'quarterlyEarnings', symbol).quarterlyEarnings;
  if (!Array.isArray(rows)) throw badResponse(ALPHAVANTAGE, 'quarterlyEarnings is not an array');
  const reports: EarningsReport[] = [];
  for (const row of rows.map(record)) {
    if (!row) continue;
    const minute = typeof row.reportTime === 'string' ? (REPORT_MINUTE[row.reportTime] ?? 0) : 0;
    const reportDate = wallClockToUtc(String(row.reportedDate ?? ''), minute, US.timeZone);
    if (!reportDate || reportDate < from || reportDate > to) continue;
    const reportedEps = avNumber(row.reportedEPS);
    const estimatedEps = avNumber(row.estimatedEPS);
    reports.push({
      symbol,
      reportDate,
      fiscalPeriodEnd: calendarDate(row.fiscalDateEnding),
      reportedEps,
      estimatedEps,
      surprisePercent: avNumber(row.surprisePercentage) ?? surprise(reportedEps, estimatedEps),
    });
  }
  return reports.sort((a, b) => a.reportDate.getTime() - b.reportDate.getTime());
}

function surprise(reported: number | null, estimated: number | null): number | null {
  if (reported === null || estimated === null || estimated === 0) return null;
  return ((reported - estimated) / Math.abs(estimated)) * 100;
}

function calendarDate(value: unknown): Date | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const date = new Date(`${value}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

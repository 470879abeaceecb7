import { parseInstrument } from '../../market-data/instruments.ts';
import type { Bar, Instrument } from '../../market-data/types.ts';
import { ValidationError } from '../../platform/errors.ts';
import { alignedLogReturns } from '../../quant/bar-alignment.ts';
import { sharpe } from '../../quant/indicators/index.ts';
import { annualizedVolatility, beta, maxDrawdown, mean, pearson } from '../../quant/indicators/statistics.ts';
import { periodsPerYear } from '../../quant/periods.ts';
import type { Argument, AssetRef, MetricCall } from '../ast.ts';
import { FkDslQueryError } from '../errors.ts';
import { type MetricUnit, metricSpec } from '../metrics-catalog.ts';
import { printMetric } from '../printer.ts';
import type { Needs, QueryData } from './query-data.ts';
import { indicatorPeriod, technicalValue } from './technical.ts';
import { type BarWindow, toWindow } from './windows.ts';

export type MetricValue = number | null | { readonly [key: string]: MetricValue };

export interface MetricOutcome {
  /** The call as canonical text: `VOLATILITY(30d)`. */
  readonly metric: string;
  readonly value: MetricValue;
  readonly unit: MetricUnit;
  /** Time of the newest data point used. */
  readonly asOf: string | null;
  readonly window?: { readonly interval: string; readonly bars: number; readonly text: string };
  /** Bars actually used (less than asked when the history is shorter). */
  readonly barsUsed?: number;
  readonly error?: string;
}

/** Indicators are computed over at least this much history so their smoothing has settled. */
export const MIN_INDICATOR_HISTORY = 250;

export function resolveAsset(asset: AssetRef): Instrument {
  try {
    return parseInstrument(asset.symbol);
  } catch (error) {
    if (error instanceof ValidationError) {
      const at = asset.at ? ` (line ${asset.at.line}, column ${asset.at.column})` : '';
      throw new FkDslQueryError(`${asset.symbol}${at}: ${error.message.replace(/^symbol: /, '')}`, {
        symbol: asset.symbol,
      });
    }
    throw error;
  }
}

const assetArgs = (call: MetricCall): AssetRef[] =>
  call.args.filter((a): a is AssetRef => a.kind === 'asset');
const windowArg = (call: MetricCall): Argument | undefined =>
  call.args.find((a) => a.kind === 'duration' || a.kind === 'number');

function defaultBenchmark(instrument: Instrument): Instrument {
  if (instrument.assetClass === 'crypto')
    return parseInstrument(instrument.base === 'BTC' ? 'ETH/USDT' : 'BTC/USDT');
  return parseInstrument('SPY');
}

function benchmarkOf(call: MetricCall, instrument: Instrument): Instrument {
  const given = assetArgs(call)[0];
  return given ? resolveAsset(given) : defaultBenchmark(instrument);
}

function windowOf(call: MetricCall, instrument: Instrument): BarWindow {
  const spec = metricSpec(call.name)!;
  const param = spec.params.find((p) => p.type === 'window');
  return toWindow(windowArg(call), param?.default ?? 1, instrument.assetClass);
}

/** Declares what `call` needs of `instrument` (and of other assets it refers to). */
export function declareNeeds(call: MetricCall, instrument: Instrument, data: QueryData): void {
  if (call.name === 'TECHNICAL') {
    for (const arg of call.args) if (arg.kind === 'metric') declareNeeds(arg, instrument, data);
    return;
  }
  if (call.name === 'CORRELATE' || call.name === 'BETA') {
    const window = windowOf(call, instrument);
    const others = call.name === 'BETA' ? [benchmarkOf(call, instrument)] : assetArgs(call).map(resolveAsset);
    for (const i of [instrument, ...others]) data.need(i, barsNeed(window, 1));
    return;
  }
  data.need(instrument, ownNeeds(call, instrument));
}

function barsNeed(window: BarWindow, extra: number): Needs {
  return window.interval === '1h' ? { hourly: window.bars + extra } : { daily: window.bars + extra };
}

function ownNeeds(call: MetricCall, instrument: Instrument): Needs {
  switch (call.name) {
    case 'PRICE':
    case 'CHANGE':
      return { quote: true };
    case 'VOLUME':
      return windowArg(call) ? barsNeed(windowOf(call, instrument), 0) : { quote: true };
    case 'MARKETCAP':
    case 'PE':
      return { profile: true };
    case 'AVG_VOLUME':
      return barsNeed(windowOf(call, instrument), 0);
    case 'PRICE_CHANGE':
    case 'MOMENTUM':
    case 'VOLATILITY':
    case 'DRAWDOWN':
    case 'SHARPE':
      return barsNeed(windowOf(call, instrument), 1);
    default:
      return { daily: Math.max(MIN_INDICATOR_HISTORY, indicatorPeriod(call) * 5) };
  }
}

/** Computes `call` for `instrument` from loaded data; a missing input becomes `error`, never a value. */
export function computeMetric(call: MetricCall, instrument: Instrument, data: QueryData): MetricOutcome {
  const label = printMetric(call);
  const unit = metricSpec(call.name)!.unit;
  try {
    const { value, asOf, window, barsUsed } = compute(call, instrument, data);
    return {
      metric: label,
      value: clean(value),
      unit,
      asOf: asOf ? asOf.toISOString() : null,
      ...(window ? { window: { interval: window.interval, bars: window.bars, text: window.text } } : {}),
      ...(barsUsed !== undefined ? { barsUsed } : {}),
    };
  } catch (error) {
    if (error instanceof FkDslQueryError) throw error;
    return {
      metric: label,
      value: null,
      unit,
      asOf: null,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

interface Computed {
  readonly value: MetricValue;
  readonly asOf: Date | null;
  readonly window?: BarWindow;
  readonly barsUsed?: number;
}

function compute(call: MetricCall, instrument: Instrument, data: QueryData): Computed {
  const computer = Object.hasOwn(COMPUTERS, call.name) ? COMPUTERS[call.name]! : technical;
  return computer(call, instrument, data);
}

type Computer = (call: MetricCall, instrument: Instrument, data: QueryData) => Computed;

/** How each metric is computed from the loaded data; the indicators (RSI, SMA(n), ...) by `technical`. */
const COMPUTERS: Readonly<Record<string, Computer>> = {
  PRICE: (_call, instrument, data) => fromQuote(instrument, data, (q) => q.price),
  CHANGE: (_call, instrument, data) => fromQuote(instrument, data, (q) => q.changePercent),
  MARKETCAP: (_call, instrument, data) => fromProfile(instrument, data, (p) => p.marketCap),
  PE: (_call, instrument, data) => fromProfile(instrument, data, (p) => p.peRatio),
  VOLUME: (call, instrument, data) =>
    windowArg(call)
      ? volumes(call, instrument, data, (values) => values.reduce((s, v) => s + v, 0))
      : fromQuote(instrument, data, (q) => q.volume),
  AVG_VOLUME: (call, instrument, data) => volumes(call, instrument, data, mean),
  PRICE_CHANGE: priceChange,
  MOMENTUM: priceChange,
  VOLATILITY: (call, instrument, data) =>
    fromReturns(call, instrument, data, (bars, year) => annualizedVolatility(closes(bars), year) * 100),
  DRAWDOWN: (call, instrument, data) => {
    const { window, bars } = series(call, instrument, data, 1);
    return { value: maxDrawdown(closes(bars)) * 100, asOf: lastTime(bars), window, barsUsed: bars.length };
  },
  SHARPE: (call, instrument, data) =>
    fromReturns(call, instrument, data, (bars, year) => sharpe(closes(bars), year)),
  CORRELATE: correlate,
  BETA: betaOf,
  TECHNICAL: technicalGroup,
};

function fromQuote(
  instrument: Instrument,
  data: QueryData,
  pick: (quote: ReturnType<typeof loadedQuote>) => MetricValue,
): Computed {
  const q = loadedQuote(instrument, data);
  return { value: pick(q), asOf: q.asOf };
}

function loadedQuote(instrument: Instrument, data: QueryData) {
  return loaded(data.get(instrument).quote, 'quote');
}

function fromProfile(
  instrument: Instrument,
  data: QueryData,
  pick: (profile: ReturnType<typeof loadedProfile>) => MetricValue,
): Computed {
  const p = loadedProfile(instrument, data);
  return { value: pick(p), asOf: p.asOf };
}

function loadedProfile(instrument: Instrument, data: QueryData) {
  return loaded(data.get(instrument).profile, 'profile');
}

/** A sum or an average of the window's volumes (null when no bar has one). */
function volumes(
  call: MetricCall,
  instrument: Instrument,
  data: QueryData,
  combine: (values: number[]) => number,
): Computed {
  const { window, bars } = series(call, instrument, data, 0);
  const values = bars.map((b) => b.volume).filter((v): v is number => v !== null);
  return {
    value: values.length ? combine(values) : null,
    asOf: lastTime(bars),
    window,
    barsUsed: bars.length,
  };
}

function priceChange(call: MetricCall, instrument: Instrument, data: QueryData): Computed {
  const { window, bars } = series(call, instrument, data, 1);
  requireBars(bars, window.bars + 1, label(call));
  return {
    value: (bars.at(-1)!.close / bars[0]!.close - 1) * 100,
    asOf: lastTime(bars),
    window,
    barsUsed: bars.length,
  };
}

/** A statistic of the window's returns, annualized with the instrument's periods per year. */
function fromReturns(
  call: MetricCall,
  instrument: Instrument,
  data: QueryData,
  statistic: (bars: ReturnType<typeof series>['bars'], periodsPerYear: number) => number,
): Computed {
  const { window, bars } = series(call, instrument, data, 1);
  requireBars(bars, 3, label(call));
  const year = periodsPerYear(instrument.assetClass, window.interval === '1h' ? 'hourly' : 'daily');
  return { value: statistic(bars, year), asOf: lastTime(bars), window, barsUsed: bars.length };
}

function correlate(call: MetricCall, instrument: Instrument, data: QueryData): Computed {
  const { window, bars } = series(call, instrument, data, 1);
  const value: Record<string, number | null> = {};
  for (const asset of assetArgs(call)) {
    const other = resolveAsset(asset);
    const pair = alignedLogReturns(bars, seriesOf(other, window, data, 1));
    value[other.symbol] = pair.a.length >= 3 ? pearson(pair.a, pair.b) : null;
  }
  return { value, asOf: lastTime(bars), window, barsUsed: bars.length };
}

function betaOf(call: MetricCall, instrument: Instrument, data: QueryData): Computed {
  const { window, bars } = series(call, instrument, data, 1);
  const bench = benchmarkOf(call, instrument);
  const pair = alignedLogReturns(bars, seriesOf(bench, window, data, 1));
  requireBars(pair.a, 3, `${label(call)} (returns on common dates with ${bench.symbol})`);
  return { value: beta(pair.a, pair.b), asOf: lastTime(bars), window, barsUsed: bars.length };
}

/** TECHNICAL(RSI, MACD, ...): each indicator's value by its printed name, as of the latest. */
function technicalGroup(call: MetricCall, instrument: Instrument, data: QueryData): Computed {
  const value: Record<string, MetricValue> = {};
  let asOf: Date | null = null;
  for (const arg of call.args) {
    if (arg.kind !== 'metric') continue;
    const inner = compute(arg, instrument, data);
    value[printMetric(arg)] = inner.value;
    asOf = inner.asOf ?? asOf;
  }
  return { value, asOf };
}

function technical(call: MetricCall, instrument: Instrument, data: QueryData): Computed {
  const bars = loaded(data.get(instrument).daily, 'daily bars');
  requireBars(bars, indicatorPeriod(call) + 1, label(call));
  return { value: technicalValue(call, bars), asOf: lastTime(bars), barsUsed: bars.length };
}

/** A single number for comparisons: objects give their primary component. */
export function scalarOf(outcome: MetricOutcome): number | null {
  const v = outcome.value;
  if (v === null || typeof v === 'number') return v;
  const primary: Record<string, string> = { MACD: 'macd', BOLLINGER_BANDS: 'percentB', STOCH: 'k' };
  const name = outcome.metric.replace(/\(.*$/, '');
  const key = primary[name];
  if (key !== undefined) return typeof v[key] === 'number' ? (v[key] as number) : null;
  if (name === 'CORRELATE') {
    const first = Object.values(v)[0];
    return typeof first === 'number' ? first : null;
  }
  throw new FkDslQueryError(`${outcome.metric} has several values and cannot be compared with a number`);
}

function series(call: MetricCall, instrument: Instrument, data: QueryData, extra: number) {
  const window = windowOf(call, instrument);
  return { window, bars: seriesOf(instrument, window, data, extra) };
}

function seriesOf(instrument: Instrument, window: BarWindow, data: QueryData, extra: number): Bar[] {
  const d = data.get(instrument);
  const all = loaded(
    window.interval === '1h' ? d.hourly : d.daily,
    `${window.interval} bars of ${instrument.symbol}`,
  );
  return all.slice(-(window.bars + extra));
}

function loaded<T>(item: { ok: true; value: T } | { ok: false; error: Error } | undefined, what: string): T {
  if (!item) throw new Error(`${what} was not loaded`);
  if (!item.ok) throw item.error;
  return item.value;
}

function requireBars(bars: ArrayLike<unknown>, needed: number, what: string): void {
  if (bars.length < needed)
    throw new Error(`${what} needs ${needed} data points, only ${bars.length} are available`);
}

const closes = (bars: readonly Bar[]) => Float64Array.from(bars, (b) => b.close);
const lastTime = (bars: readonly Bar[]) => bars.at(-1)?.time ?? null;
const label = (call: MetricCall) => printMetric(call);

/** NaN and infinities never reach a result: they become null. */
function clean(value: MetricValue): MetricValue {
  if (value === null) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clean(v)]));
}

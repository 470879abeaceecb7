/**
 * Every metric FK-DSL knows: its arguments, unit and meaning. The parser checks calls against
 * this catalog (so a misspelt metric is a syntax error with a position); the evaluator computes
 * them. Windows are bar counts (`SMA(20)`) or durations (`VOLATILITY(30d)`, see durations.ts).
 */
import { ANNUALISED_DAILY } from '../quant/periods.ts';

export type ParamType = 'window' | 'number' | 'asset' | 'indicator';

export interface ParamSpec {
  readonly name: string;
  readonly type: ParamType;
  /** Shown in docs and used when the argument is left out; undefined = required. */
  readonly default?: string | number;
  /** The parameter may repeat (CORRELATE's assets, TECHNICAL's indicators). */
  readonly repeated?: boolean;
  /** May be left out although it has no default (VOLUME without a window = session volume). */
  readonly optional?: boolean;
  /** Numbers and window lengths in bars: the allowed range (validate.ts checks every argument). */
  readonly range?: ArgumentRange;
  /** Windows that must be daily (`SMA(24h)` would silently mean 24 daily bars). */
  readonly dailyOnly?: boolean;
}

export interface ArgumentRange {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

/**
 * Longest indicator period: five periods of history must fit in the ten years a query may fetch,
 * so the smoothing has settled (see MIN_INDICATOR_HISTORY).
 */
export const MAX_INDICATOR_PERIOD = 500;
const period = (min: number): ArgumentRange => ({ min, max: MAX_INDICATOR_PERIOD, integer: true });
/** Windows: the fewest bars a metric is defined on; the most is checked per asset class (windows.ts). */
const bars = (min: number): ArgumentRange => ({ min, max: Number.POSITIVE_INFINITY, integer: true });

export type MetricUnit = 'price' | 'percent' | 'ratio' | 'volume' | 'currency' | 'number' | 'object';

export interface MetricSpec {
  readonly name: string;
  readonly params: readonly ParamSpec[];
  readonly unit: MetricUnit;
  readonly description: string;
  /** Usable inside TECHNICAL(...). */
  readonly technical?: boolean;
}

const w = (name: string, dflt: string | number | undefined, range: ArgumentRange): ParamSpec => ({
  name,
  type: 'window',
  range,
  ...(dflt !== undefined ? { default: dflt } : {}),
});
const n = (name: string, dflt: number, range: ArgumentRange): ParamSpec => ({
  name,
  type: 'number',
  range,
  default: dflt,
});

const SPECS: MetricSpec[] = [
  { name: 'PRICE', params: [], unit: 'price', description: 'latest price (arbitrated quote)' },
  {
    name: 'CHANGE',
    params: [],
    unit: 'percent',
    description: 'change against the previous close (24 h for crypto), in percent',
  },
  {
    name: 'VOLUME',
    params: [{ name: 'window', type: 'window', optional: true, range: bars(1) }],
    unit: 'volume',
    description: 'session (crypto: 24 h) volume; VOLUME(n) = total volume of the last n daily bars',
  },
  {
    name: 'AVG_VOLUME',
    params: [w('window', '30d', bars(1))],
    unit: 'volume',
    description: 'mean daily volume over the window',
  },
  {
    name: 'PRICE_CHANGE',
    params: [w('window', undefined, bars(1))],
    unit: 'percent',
    description: 'close-to-close change over the window, in percent',
  },
  {
    name: 'MOMENTUM',
    params: [w('window', 10, bars(1))],
    unit: 'percent',
    description:
      'rate of change over the window in percent (same formula as PRICE_CHANGE, with a default window)',
  },
  {
    name: 'VOLATILITY',
    params: [w('window', '30d', bars(2))],
    unit: 'percent',
    description: `annualised volatility: sample sd of daily log returns ${ANNUALISED_DAILY}, in percent`,
  },
  {
    name: 'CORRELATE',
    params: [{ name: 'with', type: 'asset', repeated: true }, w('window', '90d', bars(3))],
    unit: 'object',
    description: 'Pearson correlation of daily log returns with each asset, on common dates',
  },
  {
    name: 'BETA',
    params: [
      { name: 'benchmark', type: 'asset', default: 'SPY (BTC/USDT for crypto)' },
      w('window', '1y', bars(3)),
    ],
    unit: 'ratio',
    description: 'cov(asset, benchmark) / var(benchmark) of daily log returns',
  },
  {
    name: 'DRAWDOWN',
    params: [w('window', '1y', bars(1))],
    unit: 'percent',
    description: 'largest peak-to-trough fall of closes in the window, in percent',
  },
  {
    name: 'SHARPE',
    params: [w('window', '1y', bars(2))],
    unit: 'ratio',
    description: 'annualised Sharpe ratio of daily log returns, risk-free rate 0',
  },
  {
    name: 'MARKETCAP',
    params: [],
    unit: 'currency',
    description: 'market capitalisation (from the profile provider)',
  },
  {
    name: 'PE',
    params: [],
    unit: 'ratio',
    description: 'price / trailing earnings per share (from the profile provider)',
  },
  {
    name: 'RSI',
    params: [n('period', 14, period(2))],
    unit: 'number',
    description: 'RSI with Wilder smoothing',
    technical: true,
  },
  {
    name: 'MACD',
    params: [n('fast', 12, period(1)), n('slow', 26, period(2)), n('signal', 9, period(1))],
    unit: 'object',
    description: 'MACD line, signal and histogram on SMA-seeded EMAs (scalar use: the line)',
    technical: true,
  },
  {
    name: 'BOLLINGER_BANDS',
    params: [n('period', 20, period(2)), n('deviations', 2, { min: 0.1, max: 10, integer: false })],
    unit: 'object',
    description: 'SMA ± k population standard deviations (scalar use: %B)',
    technical: true,
  },
  {
    name: 'SMA',
    params: [{ ...w('period', undefined, period(1)), dailyOnly: true }],
    unit: 'price',
    description: 'simple moving average of closes',
    technical: true,
  },
  {
    name: 'EMA',
    params: [{ ...w('period', undefined, period(1)), dailyOnly: true }],
    unit: 'price',
    description: 'exponential moving average (SMA-seeded)',
    technical: true,
  },
  {
    name: 'ATR',
    params: [n('period', 14, period(1))],
    unit: 'price',
    description: 'average true range, Wilder smoothing',
    technical: true,
  },
  {
    name: 'STOCH',
    params: [n('k', 14, period(1)), n('smoothing', 3, period(1)), n('d', 3, period(1))],
    unit: 'object',
    description: 'slow stochastic %K and %D (scalar use: %K)',
    technical: true,
  },
  {
    name: 'TECHNICAL',
    params: [{ name: 'indicator', type: 'indicator', repeated: true }],
    unit: 'object',
    description: 'several technical indicators at once: TECHNICAL(RSI, MACD, SMA(50))',
  },
];

export const METRICS: ReadonlyMap<string, MetricSpec> = new Map(SPECS.map((s) => [s.name, s]));

/** Aliases users write, mapped to catalog names. */
export const METRIC_ALIASES: Readonly<Record<string, string>> = {
  BOLLINGER: 'BOLLINGER_BANDS',
  BBANDS: 'BOLLINGER_BANDS',
  STOCHASTIC: 'STOCH',
  MARKET_CAP: 'MARKETCAP',
  PE_RATIO: 'PE',
  CORRELATION: 'CORRELATE',
};

export function metricSpec(name: string): MetricSpec | undefined {
  const upper = name.toUpperCase();
  return METRICS.get(METRIC_ALIASES[upper] ?? upper);
}

/** Metrics whose values are percentages: `VOLATILITY(30d) > 40%` and `> 40` mean the same. */
export function isPercentMetric(name: string): boolean {
  return metricSpec(name)?.unit === 'percent';
}

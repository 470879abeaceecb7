import { builder } from '../builder.ts';
import { AssetClassEnum } from '../market-data/market-data.graphql.ts';
import type { AssetClass } from '../market-data/types.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { roundFloat } from '../quant/round.ts';
import type { AssetResult, LineageSummary } from './evaluator/evaluate.ts';
import type { MetricOutcome, MetricValue } from './evaluator/metrics.ts';
import { type MetricUnit, metricSpec } from './metrics-catalog.ts';

/**
 * The numbers FK-DSL statements give, typed: metric values with their unit, the components of
 * metrics that give several values, windows and lineage. Every type here is a value object (it
 * belongs to the statement result that carries it and has no id of its own).
 */

export const VALUE_OBJECT = 'Value object: clients should not normalise it (Apollo `keyFields: false`).';

/** The unit of every p-value. */
export const P_VALUE = 'a probability from 0 to 1';

/**
 * A number as FK-DSL results show it: without float noise (12 significant digits; integers such
 * as volumes stay exact), and null where the computation gave no finite number (NaN, infinities,
 * or a stored result in which they already became null).
 */
export function tidy(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isFinite(value)) return null;
  return Number.isInteger(value) ? value : roundFloat(value);
}

/** `tidy` over a whole JSON value (the deprecated JSON fields), so both forms carry the same numbers. */
export function tidyJson(value: unknown): unknown {
  if (typeof value === 'number') return tidy(value);
  if (Array.isArray(value)) return value.map(tidyJson);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, tidyJson(v)]));
}

export const METRIC_UNIT_DESCRIPTIONS: Readonly<Record<MetricUnit, string>> = {
  price: "In the instrument's quote currency (USD for AAPL, USDT for BTC/USDT).",
  percent: 'In percent: -2.43 means -2.43 %.',
  ratio: 'A plain ratio, no unit (BETA, SHARPE, P/E; Bollinger %B: 0 = lower band, 1 = upper band).',
  volume: 'Units traded: shares for listed instruments, units of the base asset for crypto pairs.',
  currency: 'An amount of money (market capitalisation), in the currency its profile provider reports.',
  number:
    'A dimensionless number on its own scale: RSI and stochastic %K/%D from 0 to 100, correlations from -1 to 1.',
  object: 'Several values: see `components`, each with its own unit.',
};

export const MetricUnitEnum = builder.enumType('FkDslMetricUnit', {
  description: 'The unit of an FK-DSL metric value.',
  values: enumValues(METRIC_UNIT_DESCRIPTIONS),
});

/** One named value of a metric that gives several (MACD's line, signal and histogram, ...). */
export interface Component {
  readonly name: string;
  readonly value: MetricValue;
  readonly unit: MetricUnit;
}

const baseName = (metric: string) => metric.replace(/\(.*$/, '').toUpperCase();

/** The catalog unit of a metric call (`VOLATILITY(30d)`); null for a name the catalog does not know. */
export const unitOfMetric = (metric: string): MetricUnit | null => metricSpec(baseName(metric))?.unit ?? null;

/** The unit of a component, from the metric that gave it. */
function componentUnit(metric: string, key: string): MetricUnit {
  switch (baseName(metric)) {
    case 'TECHNICAL':
      // One component per indicator, named as written (`SMA(50)`): the indicator's own unit.
      return metricSpec(baseName(key))?.unit ?? 'number';
    case 'MACD':
      return 'price';
    case 'BOLLINGER_BANDS':
      return key === 'percentB' ? 'ratio' : 'price';
    default:
      // STOCH's %K and %D (0 to 100), CORRELATE's coefficients (-1 to 1).
      return 'number';
  }
}

/** The components of a metric value, or null when it is a single number (or none). */
export function componentsOf(metric: string, value: unknown): Component[] | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  return Object.entries(value as Record<string, MetricValue>).map(([name, v]) => ({
    name,
    value: v,
    unit: componentUnit(metric, name),
  }));
}

export const ComponentRef = builder.objectRef<Component>('FkDslMetricComponent');

// Declared before it is implemented: a component may have components of its own.
ComponentRef.implement({
  description:
    'One of several values a metric gives: MACD gives `macd`, `signal` and `histogram`; BOLLINGER_BANDS ' +
    '`upper`, `middle`, `lower` and `percentB`; STOCH `k` and `d`; CORRELATE one coefficient per asset ' +
    '(named by its symbol); TECHNICAL one per indicator, named as written (`RSI`, `SMA(50)`), which may ' +
    `have components of its own (TECHNICAL(MACD)). ${VALUE_OBJECT}`,
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'Component name: a key (`signal`), a symbol or an indicator.',
    }),
    unit: t.field({ type: MetricUnitEnum, description: 'Unit of `value`.', resolve: (c) => c.unit }),
    value: t.float({
      nullable: true,
      description:
        'The value, in `unit`; null when it could not be computed or the component has components.',
      resolve: (c) => tidy(c.value),
    }),
    components: t.field({
      type: [ComponentRef],
      nullable: true,
      description:
        'Its own components (an indicator of TECHNICAL that gives several values); null otherwise.',
      resolve: (c) => componentsOf(c.name, c.value),
    }),
  }),
});

const IntervalEnum = builder.enumType('FkDslBarInterval', {
  description: 'The bars a window counts.',
  values: {
    DAY: {
      value: '1d',
      description: 'Daily bars (trading sessions for listed instruments, days for crypto).',
    },
    HOUR: { value: '1h', description: 'Hourly bars.' },
  } as const,
});

type Window = NonNullable<MetricOutcome['window']>;

const WindowRef = builder.objectRef<Window>('FkDslWindow').implement({
  description: `The bars a metric was computed over. ${VALUE_OBJECT}`,
  fields: (t) => ({
    interval: t.field({
      type: IntervalEnum,
      description: 'Daily or hourly bars.',
      resolve: (w) => w.interval as '1d' | '1h',
    }),
    bars: t.exposeInt('bars', { description: 'Bars the window asks for (a count of bars).' }),
    text: t.exposeString('text', { description: 'The window as written in the query (`30d`, `20`).' }),
  }),
});

export const MetricValueRef = builder.objectRef<MetricOutcome>('FkDslMetricValue').implement({
  description: `One metric of one asset: its value with its unit, what it was computed from, or why it could not be. ${VALUE_OBJECT}`,
  fields: (t) => ({
    metric: t.exposeString('metric', {
      description: 'The metric call in canonical form: `VOLATILITY(30d)`.',
    }),
    unit: t.field({
      type: MetricUnitEnum,
      description: 'Unit of `value` (and what `components` are).',
      resolve: (m) => m.unit,
    }),
    value: t.float({
      nullable: true,
      description:
        'The value in `unit` when the metric gives one number; null when it gives several (see `components`), ' +
        'when the data has none (a P/E without earnings), or when it failed (see `error`).',
      resolve: (m) => tidy(m.value),
    }),
    components: t.field({
      type: [ComponentRef],
      nullable: true,
      description:
        'The values of a metric that gives several (MACD, BOLLINGER_BANDS, STOCH, CORRELATE, TECHNICAL); null otherwise.',
      resolve: (m) => componentsOf(m.metric, m.value),
    }),
    asOf: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Time of the newest data point used (quote time or last bar); null when it failed.',
      resolve: (m) => m.asOf,
    }),
    window: t.field({
      type: WindowRef,
      nullable: true,
      description: 'The window of a metric computed over bars; null for quote and profile metrics.',
      resolve: (m) => m.window ?? null,
    }),
    barsUsed: t.int({
      nullable: true,
      description:
        'Bars actually used: fewer than the window asks for when the history is shorter. Null for quote and profile metrics.',
      resolve: (m) => m.barsUsed ?? null,
    }),
    error: t.string({
      nullable: true,
      description:
        'Why the metric has no value (missing data for this asset); the other metrics still have theirs.',
      resolve: (m) => m.error ?? null,
    }),
  }),
});

export const LINEAGE_SOURCES = ['quote', 'profile', 'dailyBars', 'hourlyBars'] as const;
type LineageSource = (typeof LINEAGE_SOURCES)[number];

const LineageSourceEnum = builder.enumType('FkDslDataKind', {
  description: 'The kinds of market data a statement fetches for an instrument.',
  values: enumValues<LineageSource>({
    quote: 'The latest quote.',
    profile: 'The company or coin profile (market cap, P/E).',
    dailyBars: 'Daily OHLCV bars.',
    hourlyBars: 'Hourly OHLCV bars.',
  }),
});

const LineageRef = builder
  .objectRef<LineageSummary & { readonly kind: LineageSource }>('FkDslLineage')
  .implement({
    description: `Where one kind of data of an asset came from. ${VALUE_OBJECT}`,
    fields: (t) => ({
      kind: t.field({ type: LineageSourceEnum, description: 'Which data.', resolve: (l) => l.kind }),
      used: t.exposeStringList('used', { description: 'Providers whose values were used.' }),
      asOf: t.field({ type: 'DateTime', description: 'Time the data describes.', resolve: (l) => l.asOf }),
      simulated: t.exposeBoolean('simulated', {
        description: 'True when it comes from the simulated market.',
      }),
      cacheHit: t.exposeBoolean('cacheHit', { description: 'True when it was answered from the cache.' }),
      agreement: t.float({
        description:
          'Share of answering providers that agreed, a fraction from 0 to 1 (1 = unanimous or one source).',
        resolve: (l) => roundFloat(l.agreement),
      }),
    }),
  });

export const AssetRef = builder.objectRef<AssetResult>('FkDslAsset').implement({
  description: `The metrics of one asset in an EVALUATE or COMPARE statement. ${VALUE_OBJECT}`,
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The canonical symbol (`BTC/USDT`, `BRK.B`).' }),
    written: t.exposeString('written', { description: 'The symbol as written in the query.' }),
    assetClass: t.field({
      type: AssetClassEnum,
      description: 'What kind of instrument it is.',
      resolve: (a) => a.assetClass as AssetClass,
    }),
    metrics: t.field({
      type: [MetricValueRef],
      description: 'One per metric of the statement, in its order.',
      resolve: (a) => [...a.metrics],
    }),
    asOf: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'Time of the newest data point behind any metric; null when none has data.',
      resolve: (a) => a.asOf,
    }),
    lineage: t.field({
      type: [LineageRef],
      description: 'Where each kind of data came from (only the kinds that were fetched and answered).',
      resolve: (a) =>
        Object.entries(a.lineage)
          .filter((e): e is [LineageSource, LineageSummary] =>
            LINEAGE_SOURCES.includes(e[0] as LineageSource),
          )
          .map(([kind, summary]) => ({ ...summary, kind })),
    }),
  }),
});

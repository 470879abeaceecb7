import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import type { StatementOutcome } from './fk-dsl.service.ts';
import { MacroResultRef } from './fk-dsl-macro.graphql.ts';
import { ExplainRef, type StatementKind } from './fk-dsl-plan.graphql.ts';
import {
  AssetRef,
  ComponentRef,
  componentsOf,
  MetricUnitEnum,
  tidy,
  tidyJson,
  unitOfMetric,
  VALUE_OBJECT,
} from './fk-dsl-values.graphql.ts';

/**
 * What each kind of FK-DSL statement gives, as GraphQL types: the `FkDslResult` union over one
 * result type per statement kind (MACRO's in fk-dsl-macro.graphql.ts, EXPLAIN's in
 * fk-dsl-plan.graphql.ts).
 */

type Outcome<K extends StatementKind> = Extract<StatementOutcome, { readonly kind: K }>;

const EvaluateRef = builder.objectRef<Outcome<'evaluate'>>('FkDslEvaluateResult').implement({
  description: `What an EVALUATE statement gives: the metrics of its asset. ${VALUE_OBJECT}`,
  fields: (t) => ({
    asset: t.field({ type: AssetRef, description: 'The asset and its metrics.', resolve: (s) => s.asset }),
  }),
});

interface CompareRow {
  readonly metric: string;
  readonly cells: ReadonlyArray<{ readonly symbol: string; readonly value: unknown }>;
}

const CompareCellRef = builder
  .objectRef<{ readonly metric: string; readonly symbol: string; readonly value: unknown }>(
    'FkDslCompareCell',
  )
  .implement({
    description: `One asset's value of one metric in a COMPARE table. ${VALUE_OBJECT}`,
    fields: (t) => ({
      symbol: t.exposeString('symbol', { description: 'The asset (canonical symbol): the column.' }),
      value: t.float({
        nullable: true,
        description: "The value in the row's unit; null when it gives several (see components) or none.",
        resolve: (c) => tidy(c.value),
      }),
      components: t.field({
        type: [ComponentRef],
        nullable: true,
        description: 'The values of a metric that gives several (MACD, TECHNICAL, ...); null otherwise.',
        resolve: (c) => componentsOf(c.metric, c.value),
      }),
    }),
  });

const CompareRowRef = builder.objectRef<CompareRow>('FkDslCompareRow').implement({
  description: `One metric across the compared assets. ${VALUE_OBJECT}`,
  fields: (t) => ({
    metric: t.exposeString('metric', {
      description: 'The metric call in canonical form: `VOLATILITY(30d)`.',
    }),
    unit: t.field({
      type: MetricUnitEnum,
      nullable: true,
      description: "Unit of the row's values; null for a metric the catalog does not know.",
      resolve: (r) => unitOfMetric(r.metric),
    }),
    cells: t.field({
      type: [CompareCellRef],
      description: 'One per asset, in the order of `symbols`.',
      resolve: (r) => r.cells.map((c) => ({ ...c, metric: r.metric })),
    }),
  }),
});

const CompareTableRef = builder.objectRef<Outcome<'compare'>>('FkDslCompareTable').implement({
  description: `A COMPARE statement's values as a table: one row per metric, one column per asset. ${VALUE_OBJECT}`,
  fields: (t) => ({
    symbols: t.stringList({
      description: 'The columns: the assets (canonical symbols) in the order they were written.',
      resolve: (s) => [...new Set(s.assets.map((a) => a.symbol))],
    }),
    rows: t.field({
      type: [CompareRowRef],
      description: 'The rows: one per metric, in the order they were written.',
      resolve: (s) =>
        Object.entries(s.table).map(([metric, bySymbol]) => ({
          metric,
          cells: Object.entries(bySymbol).map(([symbol, value]) => ({ symbol, value })),
        })),
    }),
  }),
});

const CompareRef = builder.objectRef<Outcome<'compare'>>('FkDslCompareResult').implement({
  description: `What a COMPARE statement gives: each asset's metrics, and the same values as a table. ${VALUE_OBJECT}`,
  fields: (t) => ({
    assets: t.field({
      type: [AssetRef],
      description: 'Each asset with its metrics (units, windows, lineage), in the order written.',
      resolve: (s) => [...s.assets],
    }),
    table: t.field({
      type: CompareTableRef,
      description: 'The values as rows (metrics) and columns (assets).',
      resolve: (s) => s,
    }),
  }),
});

type Pair = Outcome<'correlate'>['pairs'][number];

const PairRef = builder.objectRef<Pair>('FkDslCorrelationPair').implement({
  description: `The correlation of two assets' log returns. ${VALUE_OBJECT}`,
  fields: (t) => ({
    a: t.exposeString('a', { description: 'First asset (canonical symbol).' }),
    b: t.exposeString('b', { description: 'Second asset (canonical symbol).' }),
    correlation: t.float({
      nullable: true,
      description: 'Pearson correlation of log returns, from -1 to 1; null with fewer than 3 common returns.',
      resolve: (p) => tidy(p.correlation),
    }),
    observations: t.exposeInt('observations', {
      description: 'Returns on the dates (or hours) both assets have.',
    }),
    from: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'First common date.',
      resolve: (p) => p.from,
    }),
    to: t.field({ type: 'DateTime', nullable: true, description: 'Last common date.', resolve: (p) => p.to }),
  }),
});

const CorrelateRef = builder.objectRef<Outcome<'correlate'>>('FkDslCorrelateResult').implement({
  description:
    'What a CORRELATE statement gives: the correlation matrix as pairs (every pair, or the first asset ' +
    `against each other one with WITH). ${VALUE_OBJECT}`,
  fields: (t) => ({
    window: t.exposeString('window', { description: 'The window, as written or the default (`90d`).' }),
    pairs: t.field({
      type: [PairRef],
      description: 'One entry per pair of assets.',
      resolve: (s) => [...s.pairs],
    }),
  }),
});

type ScanOutcome = Outcome<'scan'>;

const ScanUniverseEnum = builder.enumType('FkDslScanUniverse', {
  description: 'What a SCAN statement scanned.',
  values: enumValues<ScanOutcome['universe']>({
    US: 'US-listed equities and ETFs.',
    ETF: 'Exchange-traded funds.',
    CRYPTO: 'Crypto pairs (one USDT pair per coin).',
    ALL: 'US and CRYPTO together.',
    list: 'The list of assets written in the statement: [AAPL, MSFT].',
  }),
});

const ScanValueRef = builder
  .objectRef<{ readonly metric: string; readonly value: number | null }>('FkDslScanValue')
  .implement({
    description: `One metric a SCAN computed for an instrument (for its conditions or ORDER BY). ${VALUE_OBJECT}`,
    fields: (t) => ({
      metric: t.exposeString('metric', {
        description: 'The metric call in canonical form: `RSI`, `VOLATILITY(30d)`.',
      }),
      unit: t.field({
        type: MetricUnitEnum,
        nullable: true,
        description: 'Unit of the value; null for a metric the catalog does not know.',
        resolve: (v) => unitOfMetric(v.metric),
      }),
      value: t.float({
        nullable: true,
        description:
          "The value in `unit` (a metric that gives several values gives its primary one: MACD's line, %B, %K).",
        resolve: (v) => tidy(v.value),
      }),
    }),
  });

const ScanMatchRef = builder.objectRef<ScanOutcome['matches'][number]>('FkDslScanMatch').implement({
  description: `An instrument that met every condition of a SCAN: a row of its result. ${VALUE_OBJECT}`,
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The instrument (canonical symbol).' }),
    values: t.field({
      type: [ScanValueRef],
      description: 'The metrics computed for it, in the order the conditions (then ORDER BY) name them.',
      resolve: (m) => Object.entries(m.values).map(([metric, value]) => ({ metric, value })),
    }),
  }),
});

const ScanSkipRef = builder.objectRef<ScanOutcome['skipped'][number]>('FkDslScanSkip').implement({
  description: `An instrument a SCAN could not judge, never matched on a made-up value. ${VALUE_OBJECT}`,
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The instrument (canonical symbol).' }),
    reason: t.exposeString('reason', { description: 'The metric that had no value, and why.' }),
  }),
});

const ScanRef = builder.objectRef<ScanOutcome>('FkDslScanResult').implement({
  description: `What a SCAN statement gives: the matching instruments as rows, and those it skipped. ${VALUE_OBJECT}`,
  fields: (t) => ({
    universe: t.field({
      type: ScanUniverseEnum,
      description: 'What was scanned.',
      resolve: (s) => s.universe,
    }),
    scanned: t.exposeInt('scanned', {
      description: 'Instruments scanned (matched, not matched and skipped).',
    }),
    matches: t.field({
      type: [ScanMatchRef],
      description: 'The instruments that met every condition, in ORDER BY order, at most LIMIT of them.',
      resolve: (s) => [...s.matches],
    }),
    skipped: t.field({
      type: [ScanSkipRef],
      description: 'Instruments with a missing input, with the reason.',
      resolve: (s) => [...s.skipped],
    }),
  }),
});

type Succeeded = Exclude<StatementOutcome, { readonly error: unknown }>;

export const ResultUnion = builder.unionType('FkDslResult', {
  description: 'What a statement gives, one type per statement kind (`kind` of the statement says which).',
  types: [EvaluateRef, CompareRef, CorrelateRef, MacroResultRef, ScanRef, ExplainRef],
  resolveType: (s) => {
    switch (s.kind) {
      case 'evaluate':
        return EvaluateRef;
      case 'compare':
        return CompareRef;
      case 'correlate':
        return CorrelateRef;
      case 'macro':
        return MacroResultRef;
      case 'scan':
        return ScanRef;
      case 'explain':
        return ExplainRef;
    }
  },
});

/** The outcome of a statement that succeeded (for the union), or null when it failed. */
export function succeeded(s: StatementOutcome): Succeeded | null {
  return 'error' in s ? null : (s as Succeeded);
}

/** The result as the untyped JSON it used to be: the outcome without its index, kind and statement. */
export function resultJson(s: StatementOutcome): unknown {
  if ('error' in s) return null;
  const { index: _index, kind: _kind, statement: _statement, ...rest } = s as Record<string, unknown>;
  return tidyJson(rest);
}

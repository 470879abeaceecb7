import { ASSET_CLASSES } from '../market-data/types.ts';
import { fromEnumName } from '../platform/graphql/enum-values.ts';
import { LINEAGE_SOURCES, METRIC_UNIT_DESCRIPTIONS } from './fk-dsl-values.graphql.ts';
import type { MetricUnit } from './metrics-catalog.ts';

/**
 * The typed GraphQL results of FK-DSL statements, mapped back to the JSON `result` the
 * `execute-fk-dsl` and `get-task-status` tools have always returned ({asset}, {assets, table},
 * {window, pairs}, {analysis, ..., result}, {universe, scanned, matches, skipped}, {plan}): same
 * keys, same order, lower-case values. Only what the documents select is used; nothing is made up.
 */

export const RESULT_FRAGMENTS = /* GraphQL */ `
  fragment FkDslComponentWire on FkDslMetricComponent { name value components { name value } }
  fragment FkDslMetricWire on FkDslMetricValue {
    metric value components { ...FkDslComponentWire } unit asOf window { interval bars text } barsUsed error
  }
  fragment FkDslAssetWire on FkDslAsset {
    symbol written assetClass metrics { ...FkDslMetricWire } asOf
    lineage { kind used asOf simulated cacheHit agreement }
  }
  fragment FkDslGrangerWire on FkDslGrangerTest {
    lags fStatistic pValue dfNumerator dfDenominator n rssRestricted rssUnrestricted conclusion aicByLag { lags aic }
  }
  fragment FkDslResultWire on FkDslResult {
    __typename
    ... on FkDslEvaluateResult { asset { ...FkDslAssetWire } }
    ... on FkDslCompareResult {
      assets { ...FkDslAssetWire }
      table { rows { metric cells { symbol value components { ...FkDslComponentWire } } } }
    }
    ... on FkDslCorrelateResult { window pairs { a b correlation observations from to } }
    ... on FkDslMacroResult {
      analysis target indicators window frequency observations from to transforms { symbol transform }
      regression {
        coefficients { name estimate standardError tStatistic pValue }
        rSquared adjustedRSquared fStatistic fPValue residualStdError rss n k degreesOfFreedom
      }
      correlations { indicator correlation pValue }
      impacts {
        indicator coefficient pValue indicatorChangeSd impact impactStandardError impactPercent
        impactStandardErrorPercent meanTargetReturnPercent
      }
      causality { indicator forward { ...FkDslGrangerWire } reverse { ...FkDslGrangerWire } }
      conventions
    }
    ... on FkDslScanResult { universe scanned matches { symbol values { metric value } } skipped { symbol reason } }
    ... on FkDslExplainResult {
      plan { statement kind fetches { symbol assetClass quote profile dailyBars hourlyBars } computations }
    }
  }
`;

// ---- GraphQL data (what the fragments select) -----------------------------------------------------

interface ComponentData {
  name: string;
  value: number | null;
  components?: ComponentData[] | null;
}

interface MetricData {
  metric: string;
  value: number | null;
  components: ComponentData[] | null;
  unit: string;
  asOf: string | null;
  window: { interval: string; bars: number; text: string } | null;
  barsUsed: number | null;
  error: string | null;
}

interface AssetData {
  symbol: string;
  written: string;
  assetClass: string;
  metrics: MetricData[];
  asOf: string | null;
  lineage: {
    kind: string;
    used: string[];
    asOf: string;
    simulated: boolean;
    cacheHit: boolean;
    agreement: number;
  }[];
}

interface GrangerData {
  lags: number;
  fStatistic: number | null;
  pValue: number | null;
  dfNumerator: number;
  dfDenominator: number;
  n: number;
  rssRestricted: number | null;
  rssUnrestricted: number | null;
  conclusion: string;
  aicByLag: { lags: number; aic: number | null }[] | null;
}

interface MacroData {
  __typename: 'FkDslMacroResult';
  analysis: string;
  target: string;
  indicators: string[];
  window: string;
  frequency: string;
  observations: number;
  from: string | null;
  to: string | null;
  transforms: { symbol: string; transform: string }[];
  regression: Record<string, unknown> | null;
  correlations: { indicator: string; correlation: number | null; pValue: number | null }[] | null;
  impacts: Record<string, unknown>[] | null;
  causality: { indicator: string; forward: GrangerData; reverse: GrangerData }[] | null;
  conventions: string;
}

type PlanData = {
  statement: string;
  kind: string;
  fetches: {
    symbol: string;
    assetClass: string;
    quote: boolean;
    profile: boolean;
    dailyBars: number;
    hourlyBars: number;
  }[];
  computations: string[];
};

export type ResultData =
  | { __typename: 'FkDslEvaluateResult'; asset: AssetData }
  | {
      __typename: 'FkDslCompareResult';
      assets: AssetData[];
      table: { rows: { metric: string; cells: ({ symbol: string } & Omit<ComponentData, 'name'>)[] }[] };
    }
  | {
      __typename: 'FkDslCorrelateResult';
      window: string;
      pairs: {
        a: string;
        b: string;
        correlation: number | null;
        observations: number;
        from: string | null;
        to: string | null;
      }[];
    }
  | MacroData
  | {
      __typename: 'FkDslScanResult';
      universe: string;
      scanned: number;
      matches: { symbol: string; values: { metric: string; value: number | null }[] }[];
      skipped: { symbol: string; reason: string }[];
    }
  | { __typename: 'FkDslExplainResult'; plan: PlanData };

// ---- GraphQL enum names -> wire values ------------------------------------------------------------

export const STATEMENT_KIND = fromEnumName(['evaluate', 'compare', 'correlate', 'macro', 'scan', 'explain']);
export const TASK_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export const TASK_STATUS = fromEnumName(TASK_STATUSES);
const UNIT = fromEnumName(Object.keys(METRIC_UNIT_DESCRIPTIONS) as MetricUnit[]);
const ASSET_CLASS = fromEnumName(ASSET_CLASSES);
const DATA_KIND = fromEnumName(LINEAGE_SOURCES);
const UNIVERSE = fromEnumName(['US', 'ETF', 'CRYPTO', 'ALL', 'list']);
const ANALYSIS = fromEnumName(['regression', 'correlation', 'impact', 'causality']);
const TRANSFORM = fromEnumName(['log change', 'difference']);
const CONCLUSION = fromEnumName(['causes', 'no evidence']);
const INTERVAL: Readonly<Record<string, string>> = { DAY: '1d', HOUR: '1h' };

// ---- wire values ----------------------------------------------------------------------------------

type WireValue = number | null | { [key: string]: WireValue };

/** A metric value: its number, or an object of its components (as the evaluator gives it). */
function wireValue(v: Omit<ComponentData, 'name'>): WireValue {
  return v.components ? Object.fromEntries(v.components.map((c) => [c.name, wireValue(c)])) : v.value;
}

function metric(m: MetricData) {
  return {
    metric: m.metric,
    value: wireValue(m),
    unit: UNIT(m.unit),
    asOf: m.asOf,
    ...(m.window
      ? { window: { interval: INTERVAL[m.window.interval], bars: m.window.bars, text: m.window.text } }
      : {}),
    ...(m.barsUsed !== null ? { barsUsed: m.barsUsed } : {}),
    ...(m.error !== null ? { error: m.error } : {}),
  };
}

function asset(a: AssetData) {
  return {
    symbol: a.symbol,
    written: a.written,
    assetClass: ASSET_CLASS(a.assetClass),
    metrics: a.metrics.map(metric),
    asOf: a.asOf,
    lineage: Object.fromEntries(
      a.lineage.map(({ kind, ...summary }) => [
        DATA_KIND(kind),
        {
          used: summary.used,
          asOf: summary.asOf,
          simulated: summary.simulated,
          cacheHit: summary.cacheHit,
          agreement: summary.agreement,
        },
      ]),
    ),
  };
}

function granger({ aicByLag, conclusion, ...test }: GrangerData) {
  return { ...test, conclusion: CONCLUSION(conclusion), ...(aicByLag ? { aicByLag } : {}) };
}

function macroResult(m: MacroData): unknown {
  switch (ANALYSIS(m.analysis)) {
    case 'regression':
      return m.regression;
    case 'correlation':
      return Object.fromEntries(
        (m.correlations ?? []).map((c) => [c.indicator, { correlation: c.correlation, pValue: c.pValue }]),
      );
    case 'impact':
      return m.impacts;
    case 'causality':
      return (m.causality ?? []).map((c) => ({
        indicator: c.indicator,
        [`${c.indicator} -> ${m.target}`]: granger(c.forward),
        [`${m.target} -> ${c.indicator}`]: granger(c.reverse),
      }));
  }
}

/** A statement's typed result as the tools' JSON `result`. */
export function resultWire(r: ResultData | null): Record<string, unknown> | null {
  if (r === null) return null;
  switch (r.__typename) {
    case 'FkDslEvaluateResult':
      return { asset: asset(r.asset) };
    case 'FkDslCompareResult':
      return {
        assets: r.assets.map(asset),
        table: Object.fromEntries(
          r.table.rows.map((row) => [
            row.metric,
            Object.fromEntries(row.cells.map((c) => [c.symbol, wireValue(c)])),
          ]),
        ),
      };
    case 'FkDslCorrelateResult':
      return { window: r.window, pairs: r.pairs };
    case 'FkDslMacroResult':
      return {
        analysis: ANALYSIS(r.analysis),
        target: r.target,
        indicators: r.indicators,
        window: r.window,
        frequency: r.frequency,
        observations: r.observations,
        from: r.from,
        to: r.to,
        transforms: Object.fromEntries(r.transforms.map((t) => [t.symbol, TRANSFORM(t.transform)])),
        result: macroResult(r),
        conventions: r.conventions,
      };
    case 'FkDslScanResult':
      return {
        universe: UNIVERSE(r.universe),
        scanned: r.scanned,
        matches: r.matches.map((m) => ({
          symbol: m.symbol,
          values: Object.fromEntries(m.values.map((v) => [v.metric, v.value])),
        })),
        skipped: r.skipped,
      };
    case 'FkDslExplainResult':
      return {
        plan: {
          statement: r.plan.statement,
          kind: STATEMENT_KIND(r.plan.kind),
          fetches: r.plan.fetches.map((f) => ({ ...f, assetClass: ASSET_CLASS(f.assetClass) })),
          computations: r.plan.computations,
        },
      };
  }
}

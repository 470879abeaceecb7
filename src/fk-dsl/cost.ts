import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Instrument } from '../market-data/types.ts';
import type { Clock } from '../platform/clock.ts';
import type { MetricCall, QueryStatement } from './ast.ts';
import { DEFAULT_CORRELATION_WINDOW, plan } from './evaluator/evaluate.ts';
import { DEFAULT_MACRO_WINDOW, MAX_AUTO_LAGS } from './evaluator/macro.ts';
import { declareNeeds, MIN_INDICATOR_HISTORY, resolveAsset } from './evaluator/metrics.ts';
import { QueryData } from './evaluator/query-data.ts';
import { conditionMetrics, scanInstruments } from './evaluator/scan.ts';
import { MAX_HOURLY_BARS, maxDailyBars, toWindow } from './evaluator/windows.ts';

/**
 * What a query will cost, estimated from its plan before anything is fetched: instruments x bars x
 * computations, in work units of about a microsecond each. Weights were measured on the simulated
 * market, the most expensive source per bar since it builds history rather than reading it: a
 * daily bar costs ~4 units to produce, an hourly bar ~100 (sixty minutes of sub-minute steps; live
 * providers page through hourly history too), each quote, profile or series requested ~1,000
 * (arbitration, caching, a path's first day), and each bar through one computation ~1 (a
 * correlation aligns two series by bar time, which costs about that per bar).
 */
export const COST_WEIGHTS = { request: 1_000, dailyBar: 4, hourlyBar: 100, computedBar: 1 } as const;

export interface CostEstimate {
  /** Work units in all: `fetch + compute`. */
  readonly total: number;
  /** Producing the data: requests and bars, once per instrument for the whole query. */
  readonly fetch: number;
  /** Computing every statement from it. */
  readonly compute: number;
}

export interface CostContext {
  readonly marketData: MarketDataService;
  readonly clock: Clock;
  universe(name: string): Instrument[];
}

/**
 * Plans the statements as evaluation will (one fetch per instrument and kind for the whole query),
 * then prices the plan. A statement that cannot be planned costs nothing: it fails before fetching.
 */
export function estimateCost(statements: readonly QueryStatement[], ctx: CostContext): CostEstimate {
  const data = new QueryData(ctx.marketData, ctx.clock);
  let compute = 0;
  for (const statement of statements) {
    try {
      const universe = statement.kind === 'scan' ? scanInstruments(statement, ctx) : [];
      plan(statement, data, universe);
      compute += computeCost(statement, universe, ctx);
    } catch {
      // Reported when the statement is planned again at execution.
    }
  }
  let fetch = 0;
  for (const { assetClass, needs } of data.plan()) {
    const requests = [needs.quote, needs.profile, needs.daily, needs.hourly].filter(Boolean).length;
    fetch +=
      requests * COST_WEIGHTS.request +
      Math.min(needs.daily ?? 0, maxDailyBars(assetClass)) * COST_WEIGHTS.dailyBar +
      Math.min(needs.hourly ?? 0, MAX_HOURLY_BARS) * COST_WEIGHTS.hourlyBar;
  }
  return { total: fetch + compute, fetch, compute };
}

function computeCost(statement: QueryStatement, universe: readonly Instrument[], ctx: CostContext): number {
  const metricsOn = (metrics: readonly MetricCall[], instrument: Instrument) =>
    metrics.reduce((sum, m) => sum + metricBars(m, instrument, ctx), 0);
  switch (statement.kind) {
    case 'evaluate':
      return metricsOn(statement.metrics, resolveAsset(statement.asset));
    case 'compare':
      return statement.assets.reduce((sum, a) => sum + metricsOn(statement.metrics, resolveAsset(a)), 0);
    case 'scan': {
      const metrics = conditionMetrics(statement);
      const trend = statement.conditions.some((c) => c.kind === 'trend') ? MIN_INDICATOR_HISTORY : 0;
      return universe.reduce((sum, i) => sum + metricsOn(metrics, i) + trend, 0);
    }
    case 'correlate': {
      const n = statement.assets.length;
      const pairs = statement.form === 'with' ? n - 1 : (n * (n - 1)) / 2;
      const first = resolveAsset(statement.assets[0]!);
      return (
        pairs *
        2 *
        (toWindow(statement.window ?? undefined, DEFAULT_CORRELATION_WINDOW, first.assetClass).bars + 1)
      );
    }
    case 'macro': {
      const target = resolveAsset(statement.target);
      const bars = toWindow(statement.window ?? undefined, DEFAULT_MACRO_WINDOW, target.assetClass).bars + 1;
      // Granger tests refit the regression once per lag, in both directions.
      const fits = statement.analysis === 'causality' ? 2 * (statement.lags ?? MAX_AUTO_LAGS) : 1;
      return (statement.indicators.length + 1) * bars * fits;
    }
  }
}

/** Bars one metric reads for one instrument (benchmarks and CORRELATE's assets included). */
function metricBars(call: MetricCall, instrument: Instrument, ctx: CostContext): number {
  const scratch = new QueryData(ctx.marketData, ctx.clock);
  declareNeeds(call, instrument, scratch);
  let bars = 0;
  for (const { needs } of scratch.plan()) bars += (needs.daily ?? 0) + (needs.hourly ?? 0);
  return Math.max(1, bars) * COST_WEIGHTS.computedBar;
}

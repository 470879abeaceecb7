import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Instrument } from '../market-data/types.ts';
import type { Clock } from '../platform/clock.ts';
import type { QueryStatement } from './ast.ts';
import { plan } from './evaluator/evaluate.ts';
import { resolveAsset } from './evaluator/metrics.ts';
import { QueryData } from './evaluator/query-data.ts';
import { metricSpec } from './metrics-catalog.ts';
import { printMetric, printStatement } from './printer.ts';

export interface StatementPlan {
  readonly statement: string;
  readonly kind: string;
  /** Data fetched once per instrument, all instruments in parallel. */
  readonly fetches: ReadonlyArray<{
    readonly symbol: string;
    readonly assetClass: string;
    readonly quote: boolean;
    readonly profile: boolean;
    readonly dailyBars: number;
    readonly hourlyBars: number;
  }>;
  /** What is computed from them, with the convention used. */
  readonly computations: readonly string[];
}

/** The evaluation plan of statements, without fetching anything. */
export function explain(
  statements: readonly QueryStatement[],
  marketData: MarketDataService,
  clock: Clock,
  universe: (name: string) => Instrument[],
): StatementPlan[] {
  return statements.map((statement) => {
    const data = new QueryData(marketData, clock);
    const instruments =
      statement.kind !== 'scan'
        ? []
        : statement.universe.kind === 'named'
          ? universe(statement.universe.name)
          : statement.universe.assets.map(resolveAsset);
    plan(statement, data, instruments);
    return {
      statement: printStatement(statement),
      kind: statement.kind,
      fetches: data.plan().map((p) => ({
        symbol: p.symbol,
        assetClass: p.assetClass,
        quote: p.needs.quote ?? false,
        profile: p.needs.profile ?? false,
        dailyBars: p.needs.daily ?? 0,
        hourlyBars: p.needs.hourly ?? 0,
      })),
      computations: computations(statement),
    };
  });
}

function computations(statement: QueryStatement): string[] {
  const describe = (m: Parameters<typeof printMetric>[0]) =>
    `${printMetric(m)}: ${metricSpec(m.name)?.description ?? ''}`;
  switch (statement.kind) {
    case 'evaluate':
    case 'compare':
      return statement.metrics.map(describe);
    case 'correlate':
      return [
        `Pearson correlation of log returns over ${statement.window ? `${statement.window.value}${statement.window.unit}` : '90d'}, ` +
          `aligned on the dates both series have, for ${statement.form === 'with' ? 'the first asset against each other' : 'every pair'}`,
      ];
    case 'macro':
      return [
        `${statement.analysis} of ${statement.target.symbol} on ${statement.indicators.map((i) => i.symbol).join(', ')}: series aligned ` +
          'on the dates of the least frequent one (as-of join), rates in first differences, levels in log changes',
      ];
    case 'scan':
      return [
        ...statement.conditions.map((c) =>
          c.kind === 'trend'
            ? `TREND IS ${c.direction.toUpperCase()}: close vs SMA 50 vs SMA 200`
            : `condition on ${printMetric(c.kind === 'between' ? c.metric : c.left)}`,
        ),
        'instruments with a missing input are skipped (listed with the reason), never matched on made-up values',
      ];
  }
}

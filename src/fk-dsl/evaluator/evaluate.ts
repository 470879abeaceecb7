import type { Lineage } from '../../market-data/arbitration/lineage.ts';
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { Bar, Instrument } from '../../market-data/types.ts';
import type { Clock } from '../../platform/clock.ts';
import { alignCloses } from '../../quant/bar-alignment.ts';
import { logReturns, pearson } from '../../quant/indicators/statistics.ts';
import { trend } from '../../quant/indicators/trend.ts';
import type {
  CompareStatement,
  Condition,
  CorrelateStatement,
  EvaluateStatement,
  QueryStatement,
  ScanStatement,
} from '../ast.ts';
import { FkDslQueryError, toDomainError } from '../errors.ts';
import { printMetric, printStatement } from '../printer.ts';
import { declareMacroNeeds, evaluateMacro, type MacroResult } from './macro.ts';
import {
  computeMetric,
  declareNeeds,
  type MetricOutcome,
  MIN_INDICATOR_HISTORY,
  resolveAsset,
  scalarOf,
} from './metrics.ts';
import { QueryData } from './query-data.ts';
import { fromDuration } from './windows.ts';

export interface EvaluationContext {
  readonly marketData: MarketDataService;
  readonly clock: Clock;
  /** Instruments of a named SCAN universe (US, ETF, CRYPTO, ALL). */
  universe(name: string): Instrument[];
}

export interface AssetResult {
  readonly symbol: string;
  readonly written: string;
  readonly assetClass: string;
  readonly metrics: readonly MetricOutcome[];
  readonly asOf: string | null;
  readonly lineage: Readonly<Record<string, LineageSummary>>;
}

export interface LineageSummary {
  readonly used: readonly string[];
  readonly asOf: string;
  readonly simulated: boolean;
  readonly cacheHit: boolean;
  readonly agreement: number;
}

export type StatementResult =
  | { readonly kind: 'evaluate'; readonly statement: string; readonly asset: AssetResult }
  | {
      readonly kind: 'compare';
      readonly statement: string;
      readonly assets: readonly AssetResult[];
      readonly table: Record<string, Record<string, unknown>>;
    }
  | {
      readonly kind: 'correlate';
      readonly statement: string;
      readonly window: string;
      readonly pairs: readonly CorrelationPair[];
    }
  | ({ readonly kind: 'macro'; readonly statement: string } & MacroResult)
  | {
      readonly kind: 'scan';
      readonly statement: string;
      readonly universe: string;
      readonly scanned: number;
      readonly matches: ReadonlyArray<{
        readonly symbol: string;
        readonly values: Record<string, number | null>;
      }>;
      readonly skipped: ReadonlyArray<{ readonly symbol: string; readonly reason: string }>;
    };

export interface CorrelationPair {
  readonly a: string;
  readonly b: string;
  readonly correlation: number | null;
  readonly observations: number;
  readonly from: string | null;
  readonly to: string | null;
}

const DEFAULT_CORRELATION_WINDOW = { kind: 'duration', value: 90, unit: 'd' } as const;

export type Settled =
  | { readonly ok: true; readonly result: StatementResult }
  | { readonly ok: false; readonly error: unknown };

/**
 * Plans every statement's data, fetches it once for the whole query (one request per instrument
 * and kind, all in parallel), then computes each statement. A statement that cannot be planned or
 * computed settles as an error without sinking the others.
 */
export async function evaluateStatements(
  statements: readonly QueryStatement[],
  ctx: EvaluationContext,
): Promise<Settled[]> {
  const data = new QueryData(ctx.marketData, ctx.clock);
  const prepared = statements.map(
    (s): { ok: true; universe: Instrument[] } | { ok: false; error: unknown } => {
      try {
        const universe = s.kind === 'scan' ? scanInstruments(s, ctx) : [];
        plan(s, data, universe);
        return { ok: true, universe };
      } catch (error) {
        return { ok: false, error: toDomainError(error) };
      }
    },
  );
  await data.load();
  return Promise.all(
    statements.map(async (s, i): Promise<Settled> => {
      const p = prepared[i]!;
      if (!p.ok) return p;
      try {
        return { ok: true, result: await run(s, data, p.universe) };
      } catch (error) {
        return { ok: false, error: toDomainError(error) };
      }
    }),
  );
}

/** Fills `data` with what `statement` needs (also used by EXPLAIN). */
export function plan(statement: QueryStatement, data: QueryData, universe: readonly Instrument[]): void {
  switch (statement.kind) {
    case 'evaluate': {
      const instrument = resolveAsset(statement.asset);
      for (const m of statement.metrics) declareNeeds(m, instrument, data);
      return;
    }
    case 'compare':
      for (const asset of statement.assets) {
        const instrument = resolveAsset(asset);
        for (const m of statement.metrics) declareNeeds(m, instrument, data);
      }
      return;
    case 'correlate':
      for (const asset of statement.assets) {
        const instrument = resolveAsset(asset);
        const window = fromDuration(statement.window ?? DEFAULT_CORRELATION_WINDOW, instrument.assetClass);
        data.need(
          instrument,
          window.interval === '1h' ? { hourly: window.bars + 1 } : { daily: window.bars + 1 },
        );
      }
      return;
    case 'macro':
      declareMacroNeeds(statement, data);
      return;
    case 'scan':
      for (const instrument of universe) {
        for (const m of conditionMetrics(statement)) declareNeeds(m, instrument, data);
        if (statement.conditions.some((c) => c.kind === 'trend'))
          data.need(instrument, { daily: MIN_INDICATOR_HISTORY });
      }
  }
}

async function run(
  statement: QueryStatement,
  data: QueryData,
  universe: readonly Instrument[],
): Promise<StatementResult> {
  const text = printStatement(statement);
  switch (statement.kind) {
    case 'evaluate':
      return {
        kind: 'evaluate',
        statement: text,
        asset: assetResult(statement, resolveAsset(statement.asset), statement.asset.symbol, data),
      };
    case 'compare':
      return compare(statement, text, data);
    case 'correlate':
      return correlate(statement, text, data);
    case 'macro':
      return { kind: 'macro', statement: text, ...(await evaluateMacro(statement, data)) };
    case 'scan':
      return scan(statement, text, universe, data);
  }
}

function assetResult(
  statement: EvaluateStatement | CompareStatement,
  instrument: Instrument,
  written: string,
  data: QueryData,
): AssetResult {
  const metrics = statement.metrics.map((m) => computeMetric(m, instrument, data));
  const d = data.get(instrument);
  const lineage: Record<string, LineageSummary> = {};
  for (const [name, item] of Object.entries({
    quote: d.quote,
    profile: d.profile,
    dailyBars: d.daily,
    hourlyBars: d.hourly,
  })) {
    if (item?.ok) lineage[name] = summarize(item.lineage);
  }
  const times = metrics
    .map((m) => m.asOf)
    .filter((t): t is string => t !== null)
    .sort();
  return {
    symbol: instrument.symbol,
    written,
    assetClass: instrument.assetClass,
    metrics,
    asOf: times.at(-1) ?? null,
    lineage,
  };
}

function compare(statement: CompareStatement, text: string, data: QueryData): StatementResult {
  const assets = statement.assets.map((a) => assetResult(statement, resolveAsset(a), a.symbol, data));
  const table: Record<string, Record<string, unknown>> = {};
  for (const metric of statement.metrics) {
    const label = printMetric(metric);
    table[label] = Object.fromEntries(
      assets.map((a) => [a.symbol, a.metrics.find((m) => m.metric === label)?.value ?? null]),
    );
  }
  return { kind: 'compare', statement: text, assets, table };
}

function correlate(statement: CorrelateStatement, text: string, data: QueryData): StatementResult {
  const instruments = statement.assets.map(resolveAsset);
  const pairs: Array<[Instrument, Instrument]> = [];
  if (statement.form === 'with')
    for (const other of instruments.slice(1)) pairs.push([instruments[0]!, other]);
  else
    for (let i = 0; i < instruments.length; i++)
      for (let j = i + 1; j < instruments.length; j++) pairs.push([instruments[i]!, instruments[j]!]);
  const windowOf = (i: Instrument) =>
    fromDuration(statement.window ?? DEFAULT_CORRELATION_WINDOW, i.assetClass);
  const barsOf = (i: Instrument): Bar[] => {
    const d = data.get(i);
    const w = windowOf(i);
    const item = w.interval === '1h' ? d.hourly : d.daily;
    if (!item?.ok)
      throw new FkDslQueryError(
        `no history for ${i.symbol}: ${item && !item.ok ? item.error.message : 'not loaded'}`,
        { symbol: i.symbol },
      );
    return item.value.slice(-(w.bars + 1));
  };
  return {
    kind: 'correlate',
    statement: text,
    window: windowOf(instruments[0]!).text,
    pairs: pairs.map(([a, b]) => correlationOf(a, b, barsOf(a), barsOf(b))),
  };
}

/** Pearson correlation of log returns on the dates (or hours) both series have. */
export function correlationOf(
  a: Instrument,
  b: Instrument,
  barsA: readonly Bar[],
  barsB: readonly Bar[],
): CorrelationPair {
  const common = alignCloses(barsA, barsB);
  const ra = logReturns(common.a);
  const rb = logReturns(common.b);
  const r = ra.length >= 3 ? pearson(ra, rb) : Number.NaN;
  return {
    a: a.symbol,
    b: b.symbol,
    correlation: Number.isFinite(r) ? r : null,
    observations: ra.length,
    from: common.times[0]?.toISOString() ?? null,
    to: common.times.at(-1)?.toISOString() ?? null,
  };
}

function scanInstruments(statement: ScanStatement, ctx: EvaluationContext): Instrument[] {
  return statement.universe.kind === 'list'
    ? statement.universe.assets.map(resolveAsset)
    : ctx.universe(statement.universe.name);
}

function conditionMetrics(statement: ScanStatement) {
  const metrics = statement.conditions.flatMap((c) => {
    switch (c.kind) {
      case 'compare':
        return c.right.kind === 'scaled' ? [c.left, c.right.metric] : [c.left];
      case 'between':
        return [c.metric];
      case 'relative':
        return [c.left, c.right];
      default:
        return [];
    }
  });
  return statement.orderBy ? [...metrics, statement.orderBy.metric] : metrics;
}

function scan(
  statement: ScanStatement,
  text: string,
  universe: readonly Instrument[],
  data: QueryData,
): StatementResult {
  const metrics = conditionMetrics(statement);
  const matches: Array<{ symbol: string; values: Record<string, number | null> }> = [];
  const skipped: Array<{ symbol: string; reason: string }> = [];
  for (const instrument of universe) {
    const values: Record<string, number | null> = {};
    let problem: string | undefined;
    for (const m of metrics) {
      const outcome = computeMetric(m, instrument, data);
      values[outcome.metric] = outcome.error ? null : scalarOf(outcome);
      if (outcome.error) problem ??= `${outcome.metric}: ${outcome.error}`;
    }
    if (problem) {
      skipped.push({ symbol: instrument.symbol, reason: problem });
      continue;
    }
    if (statement.conditions.every((c) => holds(c, values, instrument, data)))
      matches.push({ symbol: instrument.symbol, values });
  }
  if (statement.orderBy) {
    const key = printMetric(statement.orderBy.metric);
    const sign = statement.orderBy.direction === 'asc' ? 1 : -1;
    matches.sort((x, y) => sign * ((x.values[key] ?? 0) - (y.values[key] ?? 0)));
  }
  return {
    kind: 'scan',
    statement: text,
    universe: statement.universe.kind === 'named' ? statement.universe.name : 'list',
    scanned: universe.length,
    matches: statement.limit !== null ? matches.slice(0, statement.limit) : matches,
    skipped,
  };
}

function holds(
  c: Condition,
  values: Record<string, number | null>,
  instrument: Instrument,
  data: QueryData,
): boolean {
  const v = (m: Parameters<typeof printMetric>[0]) => values[printMetric(m)] ?? null;
  switch (c.kind) {
    case 'trend':
      return trendOf(instrument, data) === c.direction;
    case 'between': {
      const x = v(c.metric);
      return (
        x !== null && x >= Math.min(c.low.value, c.high.value) && x <= Math.max(c.low.value, c.high.value)
      );
    }
    case 'relative': {
      const a = v(c.left);
      const b = v(c.right);
      return a !== null && b !== null && (c.direction === 'above' ? a > b : a < b);
    }
    case 'compare': {
      const a = v(c.left);
      const b =
        c.right.kind === 'scaled' ? (v(c.right.metric) ?? Number.NaN) * c.right.factor : c.right.value;
      if (a === null || Number.isNaN(b)) return false;
      switch (c.op) {
        case '>':
          return a > b;
        case '<':
          return a < b;
        case '>=':
          return a >= b;
        case '<=':
          return a <= b;
        case '=':
          return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
        case '!=':
          return Math.abs(a - b) > 1e-9 * Math.max(1, Math.abs(b));
      }
    }
  }
}

/** TREND IS BULLISH / BEARISH / NEUTRAL: the shared moving-average trend rule (quant/indicators/trend.ts). */
function trendOf(instrument: Instrument, data: QueryData): 'bullish' | 'bearish' | 'neutral' | null {
  const daily = data.get(instrument).daily;
  if (!daily?.ok) return null;
  const direction = trend(daily.value.map((b) => b.close));
  return direction === null
    ? null
    : direction === 'up'
      ? 'bullish'
      : direction === 'down'
        ? 'bearish'
        : 'neutral';
}

function summarize(l: Lineage): LineageSummary {
  return {
    used: l.used,
    asOf: l.asOf.toISOString(),
    simulated: l.simulated,
    cacheHit: l.cache.hit,
    agreement: l.agreement,
  };
}

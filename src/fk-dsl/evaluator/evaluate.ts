import type { Lineage } from '../../market-data/arbitration/lineage.ts';
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { Bar, Instrument } from '../../market-data/types.ts';
import type { Clock } from '../../platform/clock.ts';
import { nextSlice, sliceSpent } from '../../platform/slices.ts';
import { alignCloses } from '../../quant/bar-alignment.ts';
import { logReturns, pearson } from '../../quant/indicators/statistics.ts';
import type { CompareStatement, CorrelateStatement, EvaluateStatement, QueryStatement } from '../ast.ts';
import { FkDslQueryError, toDomainError } from '../errors.ts';
import { printMetric, printStatement } from '../printer.ts';
import type { EvaluationDeadline } from './deadline.ts';
import { declareMacroNeeds, evaluateMacro, type MacroResult } from './macro.ts';
import {
  computeMetric,
  declareNeeds,
  type MetricOutcome,
  MIN_INDICATOR_HISTORY,
  resolveAsset,
} from './metrics.ts';
import { QueryData } from './query-data.ts';
import { conditionMetrics, type ScanResult, scan, scanInstruments } from './scan.ts';
import { toWindow } from './windows.ts';

export interface EvaluationContext {
  readonly marketData: MarketDataService;
  readonly clock: Clock;
  /** Instruments of a named SCAN universe (US, ETF, CRYPTO, ALL). */
  universe(name: string): Instrument[];
  /** Evaluation stops here: unfinished statements settle with FKDSL_DEADLINE_EXCEEDED. */
  readonly deadline?: EvaluationDeadline;
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
  | ScanResult;

export interface CorrelationPair {
  readonly a: string;
  readonly b: string;
  readonly correlation: number | null;
  readonly observations: number;
  readonly from: string | null;
  readonly to: string | null;
}

export const DEFAULT_CORRELATION_WINDOW = '90d';

export type Settled =
  | { readonly ok: true; readonly result: StatementResult }
  | { readonly ok: false; readonly error: unknown };

/**
 * Plans every statement's data, fetches it once for the whole query (one request per instrument
 * and kind, all in parallel), then computes each statement. A statement that cannot be planned or
 * computed settles as an error without sinking the others. Computing gives the event loop back
 * between instruments once the current slice is spent, and stops at the deadline: the statement
 * running then and every later one settle with the deadline error.
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
  try {
    await (ctx.deadline ? ctx.deadline.race(data.load()) : data.load());
  } catch (error) {
    return prepared.map((p) => (p.ok ? { ok: false, error: toDomainError(error) } : p));
  }
  const settled: Settled[] = [];
  for (const [i, s] of statements.entries()) {
    const p = prepared[i]!;
    if (!p.ok) {
      settled.push(p);
      continue;
    }
    try {
      while (sliceSpent()) await nextSlice();
      ctx.deadline?.check();
      settled.push({ ok: true, result: await run(s, data, p.universe, ctx.deadline) });
    } catch (error) {
      settled.push({ ok: false, error: toDomainError(error) });
    }
  }
  return settled;
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
        const window = toWindow(
          statement.window ?? undefined,
          DEFAULT_CORRELATION_WINDOW,
          instrument.assetClass,
        );
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
  deadline: EvaluationDeadline | undefined,
): Promise<StatementResult> {
  const text = printStatement(statement);
  switch (statement.kind) {
    case 'evaluate': {
      const instrument = resolveAsset(statement.asset);
      data.requireKnown(instrument);
      return {
        kind: 'evaluate',
        statement: text,
        asset: assetResult(statement, instrument, statement.asset.symbol, data),
      };
    }
    case 'compare':
      return compare(statement, text, data, deadline);
    case 'correlate':
      return correlate(statement, text, data, deadline);
    case 'macro':
      return { kind: 'macro', statement: text, ...(await evaluateMacro(statement, data)) };
    case 'scan':
      return scan(statement, text, universe, data, deadline);
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

async function compare(
  statement: CompareStatement,
  text: string,
  data: QueryData,
  deadline: EvaluationDeadline | undefined,
): Promise<StatementResult> {
  for (const a of statement.assets) data.requireKnown(resolveAsset(a));
  const assets: AssetResult[] = [];
  for (const a of statement.assets) {
    while (sliceSpent()) await nextSlice();
    deadline?.check();
    assets.push(assetResult(statement, resolveAsset(a), a.symbol, data));
  }
  const table: Record<string, Record<string, unknown>> = {};
  for (const metric of statement.metrics) {
    const label = printMetric(metric);
    table[label] = Object.fromEntries(
      assets.map((a) => [a.symbol, a.metrics.find((m) => m.metric === label)?.value ?? null]),
    );
  }
  return { kind: 'compare', statement: text, assets, table };
}

async function correlate(
  statement: CorrelateStatement,
  text: string,
  data: QueryData,
  deadline: EvaluationDeadline | undefined,
): Promise<StatementResult> {
  const instruments = statement.assets.map(resolveAsset);
  for (const i of instruments) data.requireKnown(i);
  const pairs: Array<[Instrument, Instrument]> = [];
  if (statement.form === 'with')
    for (const other of instruments.slice(1)) pairs.push([instruments[0]!, other]);
  else
    for (let i = 0; i < instruments.length; i++)
      for (let j = i + 1; j < instruments.length; j++) pairs.push([instruments[i]!, instruments[j]!]);
  const windowOf = (i: Instrument) =>
    toWindow(statement.window ?? undefined, DEFAULT_CORRELATION_WINDOW, i.assetClass);
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
  const results: CorrelationPair[] = [];
  for (const [a, b] of pairs) {
    while (sliceSpent()) await nextSlice();
    deadline?.check();
    results.push(correlationOf(a, b, barsOf(a), barsOf(b)));
  }
  return { kind: 'correlate', statement: text, window: windowOf(instruments[0]!).text, pairs: results };
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

function summarize(l: Lineage): LineageSummary {
  return {
    used: l.used,
    asOf: l.asOf.toISOString(),
    simulated: l.simulated,
    cacheHit: l.cache.hit,
    agreement: l.agreement,
  };
}

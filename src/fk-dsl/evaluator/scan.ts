import type { Instrument } from '../../market-data/types.ts';
import { nextSlice, sliceSpent } from '../../platform/slices.ts';
import { trend } from '../../quant/indicators/trend.ts';
import type { Condition, ScanStatement } from '../ast.ts';
import { printMetric } from '../printer.ts';
import type { EvaluationDeadline } from './deadline.ts';
import { computeMetric, resolveAsset, scalarOf } from './metrics.ts';
import type { QueryData } from './query-data.ts';

export interface ScanResult {
  readonly kind: 'scan';
  readonly statement: string;
  readonly universe: string;
  readonly scanned: number;
  readonly matches: ReadonlyArray<{
    readonly symbol: string;
    readonly values: Record<string, number | null>;
  }>;
  readonly skipped: ReadonlyArray<{ readonly symbol: string; readonly reason: string }>;
}

/** The instruments a SCAN covers: its list, or the named universe (US, ETF, CRYPTO, ALL). */
export function scanInstruments(
  statement: ScanStatement,
  ctx: { universe(name: string): Instrument[] },
): Instrument[] {
  return statement.universe.kind === 'list'
    ? statement.universe.assets.map(resolveAsset)
    : ctx.universe(statement.universe.name);
}

/** Every metric a SCAN's conditions and ORDER BY compute per instrument. */
export function conditionMetrics(statement: ScanStatement) {
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

/**
 * Computes the conditions' metrics per instrument and keeps those that meet every condition. An
 * instrument with a missing input is skipped with the reason, never matched on a made-up value.
 */
export async function scan(
  statement: ScanStatement,
  text: string,
  universe: readonly Instrument[],
  data: QueryData,
  deadline: EvaluationDeadline | undefined,
): Promise<ScanResult> {
  const metrics = conditionMetrics(statement);
  const matches: Array<{ symbol: string; values: Record<string, number | null> }> = [];
  const skipped: Array<{ symbol: string; reason: string }> = [];
  for (const instrument of universe) {
    while (sliceSpent()) await nextSlice();
    deadline?.check();
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

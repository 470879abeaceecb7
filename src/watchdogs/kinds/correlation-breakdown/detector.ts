/**
 * Correlation breakdown: for each watched pair, the correlation of daily log returns over the
 * short window (7 days) against the long window (90 days). A large change means the usual
 * relationship (a hedge, a pair trade, a sector link) no longer holds. Returns, not prices, are
 * correlated: two trending price series correlate whatever their relation.
 */

import type { Bar } from '../../../market-data/types.ts';
import { logReturns, pearson } from '../../../quant/indicators/index.ts';
import { alignOnDates } from '../../../quant/stats/index.ts';
import { type Finding, gradeAbove } from '../../detectors/finding.ts';

export interface CorrelationBreakdownSettings {
  /** Absolute change of correlation above which it is `medium`. */
  readonly mediumChange: number;
  /** Above this it is `high`. */
  readonly highChange: number;
  readonly shortWindowMs: number;
  readonly longWindowMs: number;
  /** Fewer aligned returns than these in a window: no judgement. */
  readonly minShortReturns: number;
  readonly minLongReturns: number;
}

export const DEFAULT_CORRELATION_BREAKDOWN_SETTINGS: CorrelationBreakdownSettings = Object.freeze({
  mediumChange: 0.5,
  highChange: 0.7,
  shortWindowMs: 7 * 86_400_000,
  longWindowMs: 90 * 86_400_000,
  minShortReturns: 4,
  minLongReturns: 20,
});

export interface CorrelationBreakdownInput {
  readonly now: Date;
  readonly pairs: readonly (readonly [string, string])[];
  /** Daily bars per symbol, oldest first, covering at least the long window. */
  readonly bars: ReadonlyMap<string, readonly Bar[]>;
}

export interface CorrelationBreakdownData {
  readonly pair: readonly [string, string];
  readonly shortCorrelation: number;
  readonly longCorrelation: number;
  /** shortCorrelation - longCorrelation. */
  readonly change: number;
  readonly shortReturns: number;
  readonly longReturns: number;
  readonly mediumChange: number;
  readonly highChange: number;
}

/** A correlation break. */
export type CorrelationBreakdownFinding = Finding<CorrelationBreakdownData, 'correlation_break'>;

/** Correlation of log returns of `a` and `b` on a's dates (as-of join) at or after `from`. */
function windowCorrelation(a: readonly Bar[], b: readonly Bar[], from: number, to: number) {
  // Sorted here so a provider's out-of-order bar cannot make the as-of join refuse the pair.
  const inWindow = (bars: readonly Bar[]) =>
    bars
      .filter((x) => x.time.getTime() >= from && x.time.getTime() <= to && x.close > 0)
      .sort((x, y) => x.time.getTime() - y.time.getTime());
  const wa = inWindow(a);
  const wb = inWindow(b);
  const aligned = alignOnDates(
    [wa, wb].map((bars) => ({ times: bars.map((x) => x.time.getTime()), values: bars.map((x) => x.close) })),
    wa.map((x) => x.time.getTime()),
  );
  const [pa, pb] = aligned.values as [number[], number[]];
  return { r: pearson(logReturns(pa), logReturns(pb)), n: Math.max(0, pa.length - 1) };
}

export function detectCorrelationBreakdown(
  input: CorrelationBreakdownInput,
  settings: CorrelationBreakdownSettings = DEFAULT_CORRELATION_BREAKDOWN_SETTINGS,
): CorrelationBreakdownFinding[] {
  const now = input.now.getTime();
  const findings: CorrelationBreakdownFinding[] = [];
  for (const pair of input.pairs) {
    const [symbolA, symbolB] = pair;
    const a = input.bars.get(symbolA);
    const b = input.bars.get(symbolB);
    if (!a || !b) continue;
    const short = windowCorrelation(a, b, now - settings.shortWindowMs, now);
    const long = windowCorrelation(a, b, now - settings.longWindowMs, now);
    if (short.n < settings.minShortReturns || long.n < settings.minLongReturns) continue;
    // NaN when a series did not move in a window: nothing to compare.
    if (Number.isNaN(short.r) || Number.isNaN(long.r)) continue;
    const change = short.r - long.r;
    const severity = gradeAbove(Math.abs(change), [
      [settings.mediumChange, 'medium'],
      [settings.highChange, 'high'],
    ]);
    if (!severity) continue;
    findings.push({
      eventType: 'correlation_break',
      severity,
      symbol: symbolA,
      subject: `${symbolA}~${symbolB}`,
      description:
        `${symbolA}/${symbolB} correlation moved from ${long.r.toFixed(2)} (long window) ` +
        `to ${short.r.toFixed(2)} (short window)`,
      data: {
        pair: [symbolA, symbolB],
        shortCorrelation: short.r,
        longCorrelation: long.r,
        change,
        shortReturns: short.n,
        longReturns: long.n,
        mediumChange: settings.mediumChange,
        highChange: settings.highChange,
      },
    });
  }
  return findings;
}

import type { Bar, Instrument } from '../../market-data/types.ts';
import { mean, pearson } from '../../quant/indicators/statistics.ts';
import {
  alignOnDates,
  changes,
  correlationPValue,
  grangerBestLag,
  grangerCausality,
  impacts,
  medianSpacingDays,
  ols,
} from '../../quant/stats/index.ts';
import type { MacroStatement } from '../ast.ts';
import { FkDslQueryError } from '../errors.ts';
import { resolveAsset } from './metrics.ts';
import type { QueryData } from './query-data.ts';
import { toWindow } from './windows.ts';

/**
 * MACRO: how an asset's returns relate to macro series. Series of different frequencies are put
 * on the dates of the least frequent one (as-of join: the last value known on each date); the
 * asset and level-type series then move in log changes, rate-type series (yields, policy rate,
 * unemployment) in first differences.
 */
export interface MacroResult {
  readonly analysis: MacroStatement['analysis'];
  readonly target: string;
  readonly indicators: readonly string[];
  readonly window: string;
  readonly frequency: string;
  readonly observations: number;
  readonly from: string | null;
  readonly to: string | null;
  readonly transforms: Readonly<Record<string, 'log change' | 'difference'>>;
  readonly result: unknown;
  readonly conventions: string;
}

const RATE_SERIES = new Set(['US10Y', 'US2Y', 'FED_RATE', 'UNEMPLOYMENT']);
export const DEFAULT_MACRO_WINDOW = '5y';
export const MAX_AUTO_LAGS = 6;

export function declareMacroNeeds(statement: MacroStatement, data: QueryData): void {
  for (const asset of [statement.target, ...statement.indicators]) {
    const instrument = resolveAsset(asset);
    data.need(instrument, {
      daily: toWindow(statement.window ?? undefined, DEFAULT_MACRO_WINDOW, instrument.assetClass).bars + 1,
    });
  }
}

export async function evaluateMacro(
  statement: MacroStatement,
  data: QueryData,
  _ctx?: unknown,
): Promise<MacroResult> {
  const target = resolveAsset(statement.target);
  const indicators = statement.indicators.map(resolveAsset);
  for (const i of [target, ...indicators]) data.requireKnown(i);
  const window = toWindow(statement.window ?? undefined, DEFAULT_MACRO_WINDOW, target.assetClass);
  const frame = alignedChanges(target, indicators, data, window.text);
  const names = indicators.map((i) => i.symbol);
  return {
    analysis: statement.analysis,
    target: target.symbol,
    indicators: names,
    window: window.text,
    frequency: frequencyName(frame.spacing),
    observations: frame.y.length,
    from: frame.times.length ? new Date(frame.times[0]!).toISOString() : null,
    to: frame.times.length ? new Date(frame.times.at(-1)!).toISOString() : null,
    transforms: Object.fromEntries([
      [target.symbol, 'log change'],
      ...indicators.map((i) => [i.symbol, changeKind(i) === 'diff' ? 'difference' : 'log change']),
    ]),
    result: analyse(statement, target.symbol, names, frame),
    conventions:
      'Aligned on the dates of the least frequent series (last known value of the others on each date); ' +
      'returns in log changes, rates in first differences; OLS by QR with two-sided t tests; Granger F test ' +
      `(lags ${statement.lags ?? `chosen by AIC up to ${MAX_AUTO_LAGS}`}); impact = coefficient x one sd of the indicator change, in percent.`,
  };
}

/** The target's and the indicators' changes on common dates (see alignedChanges). */
interface ChangeFrame {
  /** The target's log changes. */
  readonly y: ReturnType<typeof changes>;
  /** Each indicator's changes (log, or differences for rates), in the statement's order. */
  readonly xs: ReturnType<typeof changes>[];
  readonly times: readonly number[];
  /** Median days between the anchor's observations. */
  readonly spacing: number;
}

const changeKind = (i: Instrument) => (RATE_SERIES.has(i.symbol) ? 'diff' : 'log') as 'diff' | 'log';

/**
 * The series aligned on the dates of the least frequent one (its dates are when new information
 * arrives for all), from the latest first date on, as changes; at least 8 observations.
 */
function alignedChanges(
  target: Instrument,
  indicators: readonly Instrument[],
  data: QueryData,
  windowText: string,
): ChangeFrame {
  const all = [target, ...indicators].map((i) => ({ instrument: i, bars: historyOf(i, data, windowText) }));
  const start = Math.max(...all.map((s) => s.bars[0]!.time.getTime()));
  const anchor = all.reduce((a, b) =>
    medianSpacingDays(b.bars.map((x) => x.time.getTime())) >
    medianSpacingDays(a.bars.map((x) => x.time.getTime()))
      ? b
      : a,
  );
  const spacing = medianSpacingDays(anchor.bars.map((b) => b.time.getTime()));
  const aligned = alignOnDates(
    all.map((s) => ({ times: s.bars.map((b) => b.time.getTime()), values: s.bars.map((b) => b.close) })),
    anchor.bars.map((b) => b.time.getTime()).filter((t) => t >= start),
  );
  const y = changes(aligned.values[0]!, 'log');
  const xs = indicators.map((ind, k) => changes(aligned.values[k + 1]!, changeKind(ind)));
  if (y.length < 8) {
    throw new FkDslQueryError(
      `MACRO needs at least 8 aligned observations; ${windowText} of ${anchor.instrument.symbol} (${frequencyName(spacing)}) gives ${y.length} — widen WINDOW`,
      { observations: y.length },
    );
  }
  return { y, xs, times: aligned.times, spacing };
}

function historyOf(i: Instrument, data: QueryData, windowText: string): Bar[] {
  const d = data.get(i).daily;
  if (!d?.ok)
    throw new FkDslQueryError(`no history for ${i.symbol}: ${d && !d.ok ? d.error.message : 'not loaded'}`, {
      symbol: i.symbol,
    });
  if (d.value.length < 3)
    throw new FkDslQueryError(`${i.symbol} has only ${d.value.length} observations in ${windowText}`);
  return d.value;
}

/** The statement's analysis of the target's changes on the indicators'. */
function analyse(
  statement: MacroStatement,
  targetSymbol: string,
  names: string[],
  frame: ChangeFrame,
): unknown {
  const { y, xs } = frame;
  switch (statement.analysis) {
    case 'regression':
      return ols(y, xs, { names });
    case 'correlation':
      return Object.fromEntries(
        names.map((name, k) => {
          const r = pearson(y, xs[k]!);
          return [
            name,
            { correlation: finite(r), pValue: Number.isFinite(r) ? correlationPValue(r, y.length) : null },
          ];
        }),
      );
    case 'impact':
      // A one-standard-deviation move of each indicator (others held fixed), in percent of the target.
      return impacts(ols(y, xs, { names }), xs).map((x) => ({
        ...x,
        impactPercent: x.impact * 100,
        impactStandardErrorPercent: x.impactStandardError * 100,
        meanTargetReturnPercent: mean(y) * 100,
      }));
    case 'causality':
      return names.map((name, k) => {
        const forward =
          statement.lags !== null
            ? grangerCausality(xs[k]!, y, statement.lags)
            : grangerBestLag(xs[k]!, y, MAX_AUTO_LAGS);
        const reverse = grangerCausality(y, xs[k]!, forward.lags);
        return {
          indicator: name,
          [`${name} -> ${targetSymbol}`]: forward,
          [`${targetSymbol} -> ${name}`]: reverse,
        };
      });
  }
}

function frequencyName(days: number): string {
  if (days <= 1.5) return 'daily';
  if (days <= 8) return 'weekly';
  if (days <= 35) return 'monthly';
  if (days <= 100) return 'quarterly';
  return `every ${Math.round(days)} days`;
}

const finite = (v: number) => (Number.isFinite(v) ? v : null);

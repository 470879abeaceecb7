/**
 * correlation_breakdown: bars of both symbols of every watched pair over the long window (daily
 * bars, or 1-minute bars in demo activity), each symbol fetched once however many pairs name it.
 * A pair is a gap when either of its symbols could not be had.
 */
import { resolveInstrument } from '../../../market-data/instruments.ts';
import type { Bar, Instrument } from '../../../market-data/types.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, messageOf } from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckGap, CheckSetup, SubjectAsset } from '../../watchdog.ts';
import type {
  CorrelationBreakdownFinding,
  CorrelationBreakdownInput,
  CorrelationBreakdownSettings,
} from './detector.ts';

const DAY = 86_400_000;

interface Pair {
  readonly symbols: readonly [string, string];
  readonly instruments: readonly [Instrument, Instrument];
}

export function correlationBreakdownCheck(
  { marketData, describe }: CheckDeps,
  setup: CheckSetup<CorrelationBreakdownSettings, CorrelationBreakdownInput, CorrelationBreakdownFinding>,
): Check<CorrelationBreakdownFinding> {
  const { longWindowMs } = setup.thresholds;
  const minute = setup.timescale === 'minute';
  return async ({ now, signal }) => {
    const gaps: CheckGap[] = [];
    const pairs: Pair[] = [];
    let skipped = 0;
    for (const [a, b] of setup.pairs) {
      try {
        const instruments = [resolveInstrument(a), resolveInstrument(b)] as const;
        if (!instruments.every((i) => marketData.supports('bars', i))) {
          skipped++;
          continue;
        }
        pairs.push({ symbols: [instruments[0].symbol, instruments[1].symbol], instruments });
      } catch (error) {
        gaps.push({ subject: `${a}~${b}`, error: messageOf(error) });
      }
    }
    const distinct = new Map<string, Instrument>();
    for (const p of pairs) for (const i of p.instruments) distinct.set(i.symbol, i);
    const symbols = [...distinct.keys()];
    // A few days more than the window: the first return inside it needs the close before it.
    const start = new Date(now.getTime() - longWindowMs - (minute ? 120_000 : 5 * DAY));
    const results = await mapLimited(symbols, FETCH_CONCURRENCY, signal, (symbol) =>
      charged(marketData, () => marketData.bars(distinct.get(symbol)!, minute ? '1m' : '1d', start, now)),
    );
    const bars = new Map<string, readonly Bar[]>();
    const failed = new Map<string, Omit<CheckGap, 'subject'>>();
    results.forEach((r, i) => {
      if (r.ok) bars.set(symbols[i]!, r.value.value);
      else
        failed.set(symbols[i]!, r.deferred ? { error: r.error, deferred: r.deferred } : { error: r.error });
    });
    const usable: (readonly [string, string])[] = [];
    for (const p of pairs) {
      // A real failure of either symbol says more than the other's skip for want of budget.
      const errors = p.symbols.flatMap((s) => failed.get(s) ?? []);
      const error = errors.find((e) => !e.deferred) ?? errors[0];
      if (error === undefined) usable.push(p.symbols);
      else gaps.push({ subject: `${p.symbols[0]}~${p.symbols[1]}`, ...error });
    }
    const findings = setup.detect({ now, pairs: usable, bars });
    const assets = new Map<string, SubjectAsset>();
    for (const f of findings) {
      const pair = pairs.find((p) => `${p.symbols[0]}~${p.symbols[1]}` === f.subject)!;
      assets.set(f.symbol!, { ...describe(pair.instruments[0]), pair: pair.symbols });
    }
    const unreadable = setup.pairs.length - pairs.length - skipped;
    return { findings, checked: pairs.length + unreadable, gaps, assets };
  };
}

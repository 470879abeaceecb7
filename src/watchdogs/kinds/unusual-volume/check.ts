/**
 * unusual_volume: the current session's volume against the sessions before it.
 *
 * Daily timescale: daily bars covering the baseline; the last bar is the session under way.
 * Minute timescale (demo activity): 1-minute bars, each minute a "session". The minute still
 * forming is left out (its volume is partial, it would read as quiet); instead every minute that
 * completed since about one interval ago is judged against the minutes before it, so no completed
 * minute falls between two cycles. A minute seen twice is the same condition, which re-arming
 * keeps to one event; per symbol the strongest minute is reported.
 */
import type { Bar } from '../../../market-data/types.ts';
import { outcomeOf, split } from '../../checks/outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckSetup } from '../../watchdog.ts';
import type { UnusualVolumeFinding, UnusualVolumeInput, UnusualVolumeSettings } from './detector.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

export function unusualVolumeCheck(
  { marketData, describe }: CheckDeps,
  setup: CheckSetup<UnusualVolumeSettings, UnusualVolumeInput, UnusualVolumeFinding>,
): Check<UnusualVolumeFinding> {
  const { averageDays } = setup.thresholds;
  const minute = setup.timescale === 'minute';
  // One more than the interval holds: a cycle that starts a little late still sees every minute.
  const recentMinutes = Math.ceil(setup.intervalMs / MINUTE) + 1;
  return async ({ now, signal }) => {
    const watched = subjectsFor(setup.symbols, marketData, 'bars');
    const range = minute
      ? minuteRange(now, averageDays + recentMinutes)
      : // Weekends and holidays: about 1.5 calendar days per trading session, plus slack.
        { start: new Date(now.getTime() - Math.ceil(averageDays * 1.5 + 10) * DAY), end: now };
    const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
      charged(marketData, () => marketData.bars(s.instrument, minute ? '1m' : '1d', range.start, range.end)),
    );
    const { fetched, gaps } = split(watched.subjects, results);
    const series = fetched.map(({ subject, value }) => ({ symbol: subject.symbol, bars: value.value }));
    const findings = minute ? judgeRecent(series, recentMinutes, setup.detect) : setup.detect({ series });
    return outcomeOf(watched, gaps, findings, describe);
  };
}

/** Completed minutes only: [start of `minutes` minutes ago, start of the current minute). */
function minuteRange(now: Date, minutes: number) {
  const end = Math.floor(now.getTime() / MINUTE) * MINUTE;
  return { start: new Date(end - minutes * MINUTE), end: new Date(end) };
}

/**
 * Each of the last `recent` bars judged as the current one against the bars before it; per symbol
 * the finding with the highest ratio.
 */
export function judgeRecent(
  series: readonly { readonly symbol: string; readonly bars: readonly Bar[] }[],
  recent: number,
  detect: (input: UnusualVolumeInput) => UnusualVolumeFinding[],
): UnusualVolumeFinding[] {
  const best = new Map<string, UnusualVolumeFinding>();
  for (let k = 0; k < recent; k++) {
    const cut = series.map((s) => ({ symbol: s.symbol, bars: s.bars.slice(0, s.bars.length - k) }));
    for (const f of detect({ series: cut, barUnit: 'minute' })) {
      const seen = best.get(f.subject);
      if (!seen || f.data.ratio > seen.data.ratio) best.set(f.subject, f);
    }
  }
  // In the watched symbols' order, so a cycle's findings read the same way every time.
  return series.flatMap((s) => best.get(s.symbol) ?? []);
}

/** earnings_anomaly: earnings reports of the watched equities published within the look-back. */
import { outcomeOf, split } from '../../checks/outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckSetup } from '../../watchdog.ts';
import type { EarningsAnomalyFinding, EarningsAnomalyInput, EarningsAnomalySettings } from './detector.ts';

export function earningsAnomalyCheck(
  { marketData, describe }: CheckDeps,
  setup: CheckSetup<EarningsAnomalySettings, EarningsAnomalyInput, EarningsAnomalyFinding>,
): Check<EarningsAnomalyFinding> {
  const { lookbackMs } = setup.thresholds;
  return async ({ now, signal }) => {
    const watched = subjectsFor(setup.symbols, marketData, 'earnings');
    const from = new Date(now.getTime() - lookbackMs);
    const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
      charged(marketData, () => marketData.earnings(s.instrument, from, now)),
    );
    const { fetched, gaps } = split(watched.subjects, results);
    const reports = fetched.flatMap(({ subject, value }) =>
      value.value.map((r) => ({ ...r, symbol: subject.symbol })),
    );
    return outcomeOf(watched, gaps, setup.detect({ now, reports }), describe);
  };
}

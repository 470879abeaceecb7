/** earnings_anomaly: earnings reports of the watched equities published within the look-back. */
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import { detectEarningsAnomaly } from '../detectors/earnings-anomaly.detector.ts';
import { pct } from '../detectors/types.ts';
import type { WatchdogSettings } from '../settings.ts';
import type { WatchdogDefinition } from '../watchdog.ts';
import type { AssetDescriber } from './assets.ts';
import { outcomeOf, split } from './outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from './shared.ts';

export function createEarningsAnomalyCheck(
  deps: { readonly marketData: MarketDataService; readonly describe: AssetDescriber },
  settings: WatchdogSettings,
): WatchdogDefinition {
  const { marketData, describe } = deps;
  const detector = settings.detectors.earnings_anomaly;
  return {
    name: 'earnings_anomaly',
    description: `Earnings beating or missing the estimate by more than ${pct(detector.mediumSurprise)}`,
    intervalMs: settings.intervalsMs.earnings_anomaly,
    async check({ now, signal }) {
      const watched = subjectsFor(settings.symbols, marketData, 'earnings');
      const from = new Date(now.getTime() - detector.lookbackMs);
      const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
        charged(marketData, () => marketData.earnings(s.instrument, from, now)),
      );
      const { fetched, gaps } = split(watched.subjects, results);
      const reports = fetched.flatMap(({ subject, value }) =>
        value.value.map((r) => ({ ...r, symbol: subject.symbol })),
      );
      return outcomeOf(watched, gaps, detectEarningsAnomaly({ now, reports }, detector), describe);
    },
  };
}

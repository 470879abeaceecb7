/** funding_rate: the perpetual funding rate of every watched coin a provider has one for. */
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import { detectFundingRate } from '../detectors/funding-rate.detector.ts';
import { pct } from '../detectors/types.ts';
import type { WatchdogSettings } from '../settings.ts';
import type { WatchdogDefinition } from '../watchdog.ts';
import type { AssetDescriber } from './assets.ts';
import { outcomeOf, split } from './outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from './shared.ts';

export function createFundingRateCheck(
  deps: { readonly marketData: MarketDataService; readonly describe: AssetDescriber },
  settings: WatchdogSettings,
): WatchdogDefinition {
  const { marketData, describe } = deps;
  const detector = settings.detectors.funding_rate;
  return {
    name: 'funding_rate',
    description: `Perpetual funding beyond ${pct(detector.highRatePer8h)} per 8 hours, either way`,
    intervalMs: settings.intervalsMs.funding_rate,
    async check({ signal }) {
      const watched = subjectsFor(settings.symbols, marketData, 'funding');
      const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
        charged(marketData, () => marketData.venues.funding(s.instrument)),
      );
      const { fetched, gaps } = split(watched.subjects, results);
      // The watched symbol names the finding (a provider may spell its contract differently).
      const rates = fetched.map(({ subject, value }) => ({ ...value.value, symbol: subject.symbol }));
      return outcomeOf(watched, gaps, detectFundingRate({ rates }, detector), describe);
    },
  };
}

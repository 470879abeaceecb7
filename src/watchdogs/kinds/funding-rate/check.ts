/** funding_rate: the perpetual funding rate of every watched coin a provider has one for. */
import { outcomeOf, split } from '../../checks/outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, subjectsFor } from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckSetup } from '../../watchdog.ts';
import type { FundingRateFinding, FundingRateInput, FundingRateSettings } from './detector.ts';

export function fundingRateCheck(
  { marketData, describe }: CheckDeps,
  setup: CheckSetup<FundingRateSettings, FundingRateInput, FundingRateFinding>,
): Check<FundingRateFinding> {
  return async ({ signal }) => {
    const watched = subjectsFor(setup.symbols, marketData, 'funding');
    const results = await mapLimited(watched.subjects, FETCH_CONCURRENCY, signal, (s) =>
      charged(marketData, () => marketData.venues.funding(s.instrument)),
    );
    const { fetched, gaps } = split(watched.subjects, results);
    // The watched symbol names the finding (a provider may spell its contract differently).
    const rates = fetched.map(({ subject, value }) => ({ ...value.value, symbol: subject.symbol }));
    return outcomeOf(watched, gaps, setup.detect({ rates }), describe);
  };
}

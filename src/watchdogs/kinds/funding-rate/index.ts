import { defineWatchdog } from '../../descriptor.ts';
import { pct } from '../../detectors/finding.ts';
import { threshold } from '../../thresholds.ts';
import { fundingRateCheck } from './check.ts';
import { DEFAULT_FUNDING_RATE_SETTINGS, detectFundingRate } from './detector.ts';

/** Perpetual funding per 8 hours, either way: above 0.1 % high, above 0.3 % critical. */
export const fundingRate = defineWatchdog({
  name: 'funding_rate',
  summary: 'Perpetual-futures funding rates (spikes either way).',
  events: {
    funding_spike: {
      description: 'A perpetual-futures funding rate far from zero',
      severities: ['high', 'critical'],
    },
  },
  thresholds: {
    defaults: DEFAULT_FUNDING_RATE_SETTINGS,
    rules: { highRatePer8h: threshold.positive, criticalRatePer8h: threshold.positive },
    order: [['criticalRatePer8h', '>', 'highRatePer8h']],
  },
  detect: detectFundingRate,
  describe: (t) => `Perpetual funding beyond ${pct(t.highRatePer8h)} per 8 hours, either way`,
  check: fundingRateCheck,
});

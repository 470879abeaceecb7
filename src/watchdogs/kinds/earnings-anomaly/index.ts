import { defineWatchdog } from '../../descriptor.ts';
import { pct } from '../../detectors/finding.ts';
import { threshold } from '../../thresholds.ts';
import { earningsAnomalyCheck } from './check.ts';
import { DEFAULT_EARNINGS_ANOMALY_SETTINGS, detectEarningsAnomaly } from './detector.ts';

/** Reported against estimated EPS: a surprise above 10 % medium, above 20 % high. */
export const earningsAnomaly = defineWatchdog({
  name: 'earnings_anomaly',
  summary: 'Reported against estimated earnings per share (the surprise).',
  events: {
    earnings_anomaly: {
      description: 'Reported earnings far from the estimate',
      severities: ['medium', 'high'],
    },
  },
  thresholds: {
    defaults: DEFAULT_EARNINGS_ANOMALY_SETTINGS,
    rules: {
      mediumSurprise: threshold.positive,
      highSurprise: threshold.positive,
      lookbackMs: threshold.durationMs,
    },
    order: [['highSurprise', '>', 'mediumSurprise']],
  },
  detect: detectEarningsAnomaly,
  describe: (t) => `Earnings beating or missing the estimate by more than ${pct(t.mediumSurprise)}`,
  check: earningsAnomalyCheck,
});

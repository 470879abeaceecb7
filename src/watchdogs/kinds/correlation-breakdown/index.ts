import { defineWatchdog } from '../../descriptor.ts';
import { threshold } from '../../thresholds.ts';
import { correlationBreakdownCheck } from './check.ts';
import { DEFAULT_CORRELATION_BREAKDOWN_SETTINGS, detectCorrelationBreakdown } from './detector.ts';

const DAY = 86_400_000;

/** Watched pairs' 7-day against 90-day correlation: a change above 0.5 medium, above 0.7 high. */
export const correlationBreakdown = defineWatchdog({
  name: 'correlation_breakdown',
  summary: 'Short-window against long-window correlation of watched pairs.',
  events: {
    correlation_break: {
      description: 'A pair whose short-window correlation left its long-window one',
      severities: ['medium', 'high'],
    },
  },
  thresholds: {
    defaults: DEFAULT_CORRELATION_BREAKDOWN_SETTINGS,
    // Demo correlates 1-minute returns: over 30 minutes against 6 hours.
    demo: { shortWindowMs: 30 * 60_000, longWindowMs: 6 * 3_600_000 },
    rules: {
      // A correlation moves by 2 at most.
      mediumChange: threshold.between(0, 2),
      highChange: threshold.between(0, 2),
      shortWindowMs: threshold.durationMs,
      longWindowMs: threshold.durationMs,
      // A correlation needs two returns.
      minShortReturns: threshold.count(2),
      minLongReturns: threshold.count(2),
    },
    order: [
      ['highChange', '>', 'mediumChange'],
      ['longWindowMs', '>', 'shortWindowMs'],
    ],
  },
  detect: detectCorrelationBreakdown,
  describe: (t, timescale) =>
    timescale === 'minute'
      ? `Watched pairs whose ${Math.round(t.shortWindowMs / 60_000)}-minute correlation departs from their ${Math.round(t.longWindowMs / 3_600_000)}-hour one by more than ${t.mediumChange}`
      : `Watched pairs whose ${Math.round(t.shortWindowMs / DAY)}-day correlation departs from their ${Math.round(t.longWindowMs / DAY)}-day one by more than ${t.mediumChange}`,
  check: correlationBreakdownCheck,
});

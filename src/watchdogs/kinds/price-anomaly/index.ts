import { defineWatchdog } from '../../descriptor.ts';
import { pct } from '../../detectors/finding.ts';
import { threshold } from '../../thresholds.ts';
import { priceAnomalyCheck } from './check.ts';
import { DEFAULT_PRICE_ANOMALY_SETTINGS, detectPriceAnomaly } from './detector.ts';

/** Short-window price moves: above 5 % high, above 10 % critical; a fall above 10 % is a flash crash. */
export const priceAnomaly = defineWatchdog({
  name: 'price_anomaly',
  summary: 'Short-window price moves, and flash crashes.',
  events: {
    price_anomaly: {
      description: 'A large price move in a short window',
      severities: ['high', 'critical'],
    },
    flash_crash: { description: 'A large, fast drop', severities: ['critical'] },
  },
  thresholds: {
    defaults: DEFAULT_PRICE_ANOMALY_SETTINGS,
    // Demo flash moves partly recover within minutes: judge them over 5 minutes, not 15.
    demo: { windowMs: 5 * 60_000 },
    rules: {
      highMove: threshold.positive,
      criticalMove: threshold.positive,
      // A fall cannot reach 100 %.
      flashCrashDrop: threshold.fraction,
      windowMs: threshold.durationMs,
    },
    order: [['criticalMove', '>', 'highMove']],
  },
  detect: detectPriceAnomaly,
  describe: (t) =>
    `Price moves beyond ${pct(t.highMove)} within ${Math.round(t.windowMs / 60_000)} minutes; ` +
    `falls beyond ${pct(t.flashCrashDrop)} are flash crashes`,
  check: priceAnomalyCheck,
});

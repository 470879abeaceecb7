import { defineWatchdog } from '../../descriptor.ts';
import { threshold } from '../../thresholds.ts';
import { unusualVolumeCheck } from './check.ts';
import { DEFAULT_UNUSUAL_VOLUME_SETTINGS, detectUnusualVolume } from './detector.ts';

/**
 * A session's volume against the average of the 30 before it: above 3x high, above 5x critical.
 * In demo activity a "session" is a minute (the check reads 1-minute bars).
 */
export const unusualVolume = defineWatchdog({
  name: 'unusual_volume',
  summary: 'Traded volume against its recent average.',
  events: {
    unusual_volume: {
      description: 'Volume a multiple of its recent average',
      severities: ['high', 'critical'],
    },
  },
  thresholds: {
    defaults: DEFAULT_UNUSUAL_VOLUME_SETTINGS,
    rules: {
      // At or below 1 an ordinary session would be unusual.
      highRatio: threshold.above(1),
      criticalRatio: threshold.above(1),
      averageDays: threshold.count(1),
      minBaselineDays: threshold.count(1),
    },
    order: [
      ['criticalRatio', '>', 'highRatio'],
      // The baseline holds averageDays sessions at most: more could never be had.
      ['minBaselineDays', '<=', 'averageDays'],
    ],
  },
  detect: detectUnusualVolume,
  describe: (t, timescale) =>
    `Volume above ${t.highRatio}x the average of the previous ${t.averageDays} ${timescale === 'minute' ? 'minute' : 'session'}s`,
  check: unusualVolumeCheck,
});

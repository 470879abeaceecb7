import { defineWatchdog } from '../../descriptor.ts';
import { pct } from '../../detectors/finding.ts';
import { threshold } from '../../thresholds.ts';
import { liquidityDropCheck } from './check.ts';
import { DEFAULT_LIQUIDITY_DROP_SETTINGS, detectLiquidityDrop } from './detector.ts';

/** Order-book depth against its 7-day average: below 0.5x high, below 0.3x critical. */
export const liquidityDrop = defineWatchdog({
  name: 'liquidity_drop',
  summary: 'Order-book depth against its recent average.',
  events: {
    liquidity_drop: {
      description: 'Order-book depth a fraction of its recent average',
      severities: ['high', 'critical'],
    },
  },
  thresholds: {
    defaults: DEFAULT_LIQUIDITY_DROP_SETTINGS,
    rules: {
      highRatio: threshold.fraction,
      criticalRatio: threshold.fraction,
      averageWindowMs: threshold.durationMs,
      minSamples: threshold.count(1),
      band: threshold.fraction,
    },
    order: [['criticalRatio', '<', 'highRatio']],
  },
  detect: detectLiquidityDrop,
  describe: (t) =>
    `Order-book depth within ${pct(t.band)} of mid below ${t.highRatio}x its ` +
    `${Math.round(t.averageWindowMs / 86_400_000)}-day average`,
  check: liquidityDropCheck,
});

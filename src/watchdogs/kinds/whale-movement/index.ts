import { defineWatchdog } from '../../descriptor.ts';
import { threshold } from '../../thresholds.ts';
import { whaleMovementCheck } from './check.ts';
import { DEFAULT_WHALE_MOVEMENT_SETTINGS, detectWhaleMovement } from './detector.ts';

const usd = (v: number) => `USD ${(v / 1e6).toFixed(v % 1e6 === 0 ? 0 : 1)}M`;

/** Trades and transfers above USD 1M: medium, high above USD 10M, critical above USD 100M. */
export const whaleMovement = defineWatchdog({
  name: 'whale_movement',
  summary: 'Large transfers on chain or to and from exchanges.',
  events: {
    whale_movement: { description: 'A large transfer', severities: ['medium', 'high', 'critical'] },
  },
  thresholds: {
    defaults: DEFAULT_WHALE_MOVEMENT_SETTINGS,
    rules: {
      minUsd: threshold.positive,
      highUsd: threshold.positive,
      criticalUsd: threshold.positive,
      windowMs: threshold.durationMs,
      maxListed: threshold.count(0),
    },
    order: [
      ['highUsd', '>', 'minUsd'],
      ['criticalUsd', '>', 'highUsd'],
    ],
  },
  detect: detectWhaleMovement,
  describe: (t) => `Trades and transfers above ${usd(t.minUsd)} in a watched coin`,
  check: whaleMovementCheck,
});

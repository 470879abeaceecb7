import { defineWatchdog } from '../../descriptor.ts';
import { threshold } from '../../thresholds.ts';
import { exchangeOutageCheck } from './check.ts';
import { DEFAULT_EXCHANGE_OUTAGE_SETTINGS, detectExchangeOutage } from './detector.ts';

/** Venue and provider reachability: slow medium, error high, timeout critical (market-wide). */
export const exchangeOutage = defineWatchdog({
  name: 'exchange_outage',
  summary: 'Reachability and latency of exchanges and data providers.',
  events: {
    exchange_outage: {
      description: 'An exchange or provider slow, failing or unreachable',
      severities: ['medium', 'high', 'critical'],
    },
  },
  thresholds: {
    defaults: DEFAULT_EXCHANGE_OUTAGE_SETTINGS,
    rules: { slowMs: threshold.durationMs },
  },
  detect: detectExchangeOutage,
  describe: (t) => `Venues that do not answer, fail, or answer slower than ${t.slowMs} ms`,
  check: exchangeOutageCheck,
});

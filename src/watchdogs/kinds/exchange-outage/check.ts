/**
 * exchange_outage: the venues the providers probe (provider reachability), read as reachability
 * results. A probe that answered, however slowly, is judged by the detector's own slowness
 * threshold; a venue that did not answer is a timeout or an error as its detail says.
 */
import type { VenueStatus } from '../../../market-data/types.ts';
import { charged, gapOf, throwIfAborted } from '../../checks/shared.ts';
import type { Check, CheckDeps, CheckSetup } from '../../watchdog.ts';
import type {
  ExchangeOutageFinding,
  ExchangeOutageInput,
  ExchangeOutageSettings,
  ReachabilityResult,
} from './detector.ts';

/** What a failed venue-status call is reported as. */
export const VENUES_SUBJECT = 'venues';

export function exchangeOutageCheck(
  { marketData }: CheckDeps,
  setup: CheckSetup<ExchangeOutageSettings, ExchangeOutageInput, ExchangeOutageFinding>,
): Check<ExchangeOutageFinding> {
  return async ({ signal }) => {
    if (!marketData.supports('venueStatus')) {
      return {
        findings: [],
        checked: 1,
        gaps: [{ subject: VENUES_SUBJECT, error: 'no configured provider reports venue status' }],
      };
    }
    let venues: VenueStatus[];
    try {
      venues = (await charged(marketData, () => marketData.venues.venueStatus())).value;
    } catch (error) {
      throwIfAborted(signal);
      return { findings: [], checked: 1, gaps: [gapOf(VENUES_SUBJECT, error)] };
    }
    throwIfAborted(signal);
    const findings = setup.detect({ probes: venues.map(reachability) });
    return { findings, checked: venues.length, gaps: [] };
  };
}

/** SLOW_MS of the probes is lower than a watchdog's threshold: an answer is judged by its latency. */
export function reachability(v: VenueStatus): ReachabilityResult {
  const detail = v.detail ?? undefined;
  const base = { venue: v.venue, latencyMs: v.latencyMs, ...(detail ? { detail } : {}) };
  if (v.status === 'up') return { ...base, outcome: 'ok' };
  if (v.status === 'degraded') {
    // Degraded with a latency is a slow answer; degraded without one answered unusably.
    return { ...base, outcome: v.latencyMs !== null && /slow/i.test(v.detail ?? 'slow') ? 'ok' : 'error' };
  }
  return { ...base, outcome: /time[ds]?\s*out/i.test(v.detail ?? '') ? 'timeout' : 'error' };
}

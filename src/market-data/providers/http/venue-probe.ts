import type { Clock } from '../../../platform/clock.ts';
import type { VenueStatus } from '../../types.ts';
import { ProviderError } from '../provider-errors.ts';

/** Slower than this, a venue that answers is `degraded` (the exchange-outage watchdog's "slow"). */
export const SLOW_MS = 1_000;

/**
 * Times `probe` (a cheap request that resolves only on a usable answer) and reads the outcome the
 * same way for every provider: a usable answer is up (degraded when slow); no answer at all
 * (timeout, network error, 5xx, open circuit) is down with no latency; an answer that cannot be used
 * (refused key, rate limit, unreadable body) is degraded, with the time it took.
 */
export async function probeVenue(
  venue: string,
  probe: () => Promise<unknown>,
  clock: Clock,
): Promise<VenueStatus> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    await probe();
    const latencyMs = elapsed();
    return latencyMs > SLOW_MS
      ? {
          venue,
          status: 'degraded',
          latencyMs,
          detail: `slow answer (${latencyMs} ms > ${SLOW_MS} ms)`,
          checkedAt: clock.now(),
        }
      : { venue, status: 'up', latencyMs, detail: null, checkedAt: clock.now() };
  } catch (error) {
    // A background probe skipped for want of budget learnt nothing about the venue: no status at all.
    if (error instanceof ProviderError && error.kind === 'deferred') throw error;
    const message = error instanceof Error ? error.message : String(error);
    const noAnswer =
      !(error instanceof ProviderError) || ['timeout', 'upstream', 'circuit_open'].includes(error.kind);
    const answered = error instanceof ProviderError && (error.details.status !== undefined || !noAnswer);
    return {
      venue,
      status: noAnswer ? 'down' : 'degraded',
      latencyMs: answered ? elapsed() : null,
      detail: message,
      checkedAt: clock.now(),
    };
  }
}

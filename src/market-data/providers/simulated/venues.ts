import type { VenueStatus } from '../../types.ts';
import { MINUTE_MS } from './calendar.ts';
import { hashString, type Rand, stream } from './rng.ts';

/**
 * Health of the simulated venues. Mostly up (20-120 ms); incidents of 2-12 minutes in 6 % of
 * 2-hour blocks per venue: two in three degraded (1.1-4.5 s responses), one in three down (timeout or
 * HTTP 503). Demo activity puts one venue, in rotation, into an incident for each 5-minute slot. Every
 * `detail` says it is simulated: these venues are named after real ones but report nothing real.
 */
export const VENUES = ['binance', 'coinbase', 'kraken', 'nyse', 'nasdaq'] as const;

const BLOCK_MINUTES = 120;
const INCIDENT_PER_BLOCK = 0.06;
export const DEMO_VENUE_SLOT_MINUTES = 5;
const BASE_LATENCY: Readonly<Record<(typeof VENUES)[number], number>> = {
  binance: 30,
  coinbase: 45,
  kraken: 55,
  nyse: 20,
  nasdaq: 22,
};

const S_INCIDENT = stream('venue-incident');
const S_DEMO_INCIDENT = stream('demo-venue-incident');
const S_LATENCY = stream('venue-latency');

type Incident = { status: 'degraded' | 'down'; cause: 'timeout' | 'error' };

export class VenueBoard {
  readonly #demoOrder: readonly number[];

  constructor(
    private readonly rand: Rand,
    private readonly demo: boolean,
  ) {
    this.#demoOrder = rand.permutation(VENUES.length, S_DEMO_INCIDENT);
  }

  #incident(venue: number, ms: number): Incident | undefined {
    const minute = Math.floor(ms / MINUTE_MS);
    const block = Math.floor(minute / BLOCK_MINUTES);
    for (const b of [block - 1, block]) {
      const u = (k: number) => this.rand.uniform(S_INCIDENT, venue, b, k);
      if (!(u(0) < INCIDENT_PER_BLOCK)) continue;
      const start = b * BLOCK_MINUTES + Math.floor(u(1) * (BLOCK_MINUTES - 12));
      const length = 2 + Math.floor(u(2) * 11);
      if (minute >= start && minute < start + length) {
        return { status: u(3) < 2 / 3 ? 'degraded' : 'down', cause: u(4) < 0.5 ? 'timeout' : 'error' };
      }
    }
    if (this.demo) {
      const slot = Math.floor(minute / DEMO_VENUE_SLOT_MINUTES);
      if (this.#demoOrder[slot % VENUES.length] === venue) {
        const u = (k: number) => this.rand.uniform(S_DEMO_INCIDENT, slot, k);
        return { status: u(1) < 0.5 ? 'degraded' : 'down', cause: u(2) < 0.5 ? 'timeout' : 'error' };
      }
    }
    return undefined;
  }

  statusAt(ms: number): VenueStatus[] {
    const checkedAt = new Date(ms);
    const tenSeconds = Math.floor(ms / 10_000);
    return VENUES.map((venue, i) => {
      const incident = this.#incident(i, ms);
      const u = this.rand.uniform(S_LATENCY, hashString(venue), tenSeconds);
      if (!incident) {
        const latencyMs = Math.round(BASE_LATENCY[venue] + 65 * u);
        return { venue, status: 'up', latencyMs, detail: 'simulated: ok', checkedAt };
      }
      if (incident.status === 'degraded') {
        const latencyMs = Math.round(1_100 + 3_400 * u);
        return { venue, status: 'degraded', latencyMs, detail: 'simulated: slow responses', checkedAt };
      }
      const detail = incident.cause === 'timeout' ? 'simulated: timeout' : 'simulated: error (HTTP 503)';
      return { venue, status: 'down', latencyMs: null, detail, checkedAt };
    });
  }
}

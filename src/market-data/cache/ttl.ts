import { msUntilOpen } from '../market-hours.rules.ts';
import { marketStateAt } from '../market-state.ts';
import { marketInfo } from '../markets.ts';
import type { Capability } from '../providers/provider.ts';
import { BAR_INTERVAL_MS, type BarInterval, type Instrument } from '../types.ts';

/**
 * How long an answer stays good, by data type and by where the instrument's market is in its
 * day (in the exchange's own time zone): seconds while a market trades, longer when it is shut.
 * Crypto trades around the clock; fx from Sunday evening to Friday evening New York time.
 */
export type CachedKind = Exclude<Capability, 'stream'>;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export type MarketPhase = 'open' | 'extended' | 'closed';

export function marketPhase(instrument: Instrument, at: Date): MarketPhase {
  // Published macro series change on release days, not with a session.
  if (instrument.assetClass === 'macro') return 'closed';
  const state = marketStateAt(instrument, at);
  if (state === 'regular' || state === 'continuous') return 'open';
  return state === 'closed' ? 'closed' : 'extended';
}

/** Until the market reopens, but never longer than `cap` (holiday calendars can be wrong). */
function whileClosed(instrument: Instrument, at: Date, cap: number): number {
  if (
    instrument.assetClass === 'equity' ||
    instrument.assetClass === 'etf' ||
    instrument.assetClass === 'index'
  ) {
    const market = marketInfo(instrument.market ?? 'US') ?? marketInfo('US')!;
    return Math.max(30 * SECOND, Math.min(cap, msUntilOpen(market, at)));
  }
  return cap;
}

export function ttlFor(
  kind: CachedKind,
  instrument: Instrument | undefined,
  at: Date,
  extra: { interval?: BarInterval; end?: Date } = {},
): number {
  const phase = instrument ? marketPhase(instrument, at) : 'open';
  switch (kind) {
    case 'quote':
      if (phase === 'open') return instrument?.assetClass === 'crypto' ? 2 * SECOND : 5 * SECOND;
      if (phase === 'extended') return 30 * SECOND;
      return whileClosed(instrument!, at, 15 * MINUTE);
    case 'bars': {
      const step = BAR_INTERVAL_MS[extra.interval ?? '1d'];
      // A range that ended more than one bar ago does not change any more.
      if (extra.end && extra.end.getTime() < at.getTime() - step) return 6 * HOUR;
      if (phase === 'closed') return whileClosed(instrument!, at, HOUR);
      return Math.min(MINUTE, Math.max(5 * SECOND, step / 4));
    }
    case 'profile':
      return 6 * HOUR;
    case 'cryptoStats':
      return 5 * SECOND;
    case 'orderBook':
      return SECOND;
    case 'funding':
      return 30 * SECOND;
    case 'earnings':
      return HOUR;
    case 'transfers':
      return 10 * SECOND;
    case 'largeTrades':
      // Polled by the whale watchdog once a cycle; a few seconds old is as good as fresh.
      return 10 * SECOND;
    case 'venueStatus':
      return 10 * SECOND;
    case 'search':
      // Names and listings change on corporate actions, not by the minute.
      return HOUR;
  }
}

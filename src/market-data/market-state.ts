import { sessionState } from './market-hours.rules.ts';
import { localTime, marketInfo } from './markets.ts';
import type { Instrument, Quote } from './types.ts';

/** Where an instrument's market is in its trading day (the same vocabulary quotes carry). */
export type MarketState = NonNullable<Quote['marketState']>;

/** Indices Vigil knows outside the US, by the market whose hours they follow. */
const INDEX_MARKETS: Readonly<Record<string, string>> = {
  '^FTSE': 'UK',
  '^GDAXI': 'DE',
  '^FCHI': 'FR',
  '^AEX': 'NL',
  '^SSMI': 'CH',
  '^N225': 'JP',
  '^HSI': 'HK',
  '^GSPTSE': 'CA',
  '^AXJO': 'AU',
  '^NSEI': 'IN',
};

/** Macro series that trade (yields and volatility follow the US session, the dollar index fx hours). */
const TRADED_MACRO: Readonly<Record<string, 'US' | 'fx'>> = { US10Y: 'US', US2Y: 'US', VIX: 'US', DXY: 'fx' };

/**
 * THE market state of an instrument at `at`, the one every surface shows (quotes, the `prices`
 * subscription, the plain price WebSockets, the data tools) and the cache's lifetimes follow:
 * `continuous` for crypto (no sessions), spot fx from Sunday 17:00 to Friday 17:00 New York time,
 * listed instruments by their exchange's day (`market-hours.rules.ts`: extended hours, early
 * closes, holidays), indices by the regular session only (they are not calculated in extended
 * hours), published macro series (CPI, GDP...) `closed` since they do not trade.
 */
export function marketStateAt(instrument: Instrument, at: Date): MarketState {
  switch (instrument.assetClass) {
    case 'crypto':
      return 'continuous';
    case 'fx':
      return fxOpen(at) ? 'regular' : 'closed';
    case 'macro': {
      const traded = TRADED_MACRO[instrument.symbol];
      if (traded === 'fx') return fxOpen(at) ? 'regular' : 'closed';
      return traded ? sessionState(marketInfo(traded)!, at) : 'closed';
    }
    case 'index': {
      const state = sessionState(marketInfo(INDEX_MARKETS[instrument.symbol] ?? 'US')!, at);
      return state === 'regular' ? 'regular' : 'closed';
    }
    default:
      return sessionState(marketInfo(instrument.market ?? 'US') ?? marketInfo('US')!, at);
  }
}

/** Spot fx trades from Sunday 17:00 to Friday 17:00 New York time. */
function fxOpen(at: Date): boolean {
  const { weekday, minute } = localTime(at, 'America/New_York');
  return !(weekday === 6 || (weekday === 0 && minute < 17 * 60) || (weekday === 5 && minute >= 17 * 60));
}

import { describe, expect, it } from 'vitest';
import { parseInstrument } from '../instruments.ts';
import { marketPhase, ttlFor } from './ttl.ts';

const aapl = parseInstrument('AAPL');
const btc = parseInstrument('BTC/USDT');
const eur = parseInstrument('EUR/USD');

// 2026-11-18 is a Wednesday; New York is UTC-5 in November.
const wedOpen = new Date('2026-11-18T15:00:00Z'); // 10:00 New York
const wedNight = new Date('2026-11-19T03:00:00Z'); // 22:00 New York
const saturday = new Date('2026-11-21T15:00:00Z');
const thanksgiving = new Date('2026-11-26T15:00:00Z');

describe('market-hours-aware lifetimes', () => {
  it('knows when the US market trades, in New York time, holidays included', () => {
    expect(marketPhase(aapl, wedOpen)).toBe('open');
    expect(marketPhase(aapl, new Date('2026-11-18T13:00:00Z'))).toBe('extended'); // 08:00 pre-market
    expect(marketPhase(aapl, saturday)).toBe('closed');
    expect(marketPhase(aapl, thanksgiving)).toBe('closed');
    expect(marketPhase(btc, saturday)).toBe('open');
    expect(marketPhase(eur, saturday)).toBe('closed');
    expect(marketPhase(eur, wedNight)).toBe('open');
  });

  it('keeps quotes seconds while trading and until the next open (capped) when shut', () => {
    expect(ttlFor('quote', aapl, wedOpen)).toBe(5_000);
    expect(ttlFor('quote', btc, saturday)).toBe(2_000);
    expect(ttlFor('quote', aapl, saturday)).toBe(15 * 60_000);
    // Friday 15:59:30 New York: shut for the weekend 30 s later, but still trading now.
    expect(ttlFor('quote', aapl, new Date('2026-11-20T20:59:30Z'))).toBe(5_000);
  });

  it('keeps bars of a range that ended long ago for hours', () => {
    expect(ttlFor('bars', aapl, wedOpen, { interval: '1d', end: new Date('2026-01-01T00:00:00Z') })).toBe(
      6 * 3_600_000,
    );
    expect(ttlFor('bars', aapl, wedOpen, { interval: '1m', end: new Date('2026-11-18T15:01:00Z') })).toBe(
      15_000,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { fromQuote, fromStream } from './hub/tick-updates.ts';
import { parseInstrument } from './instruments.ts';
import { priceChange, withPriceChange } from './price-change.ts';
import type { Quote } from './types.ts';

const LINEAGE = {
  asked: ['p'],
  used: ['p'],
  rejected: [],
  agreement: 1,
  conflictResolved: false,
  asOf: new Date(0),
  retrievedAt: new Date(0),
  simulated: false,
  cache: { hit: false, ageMs: 0, ttlMs: 0 },
};

const quote = (price: number, previousClose: number | null, changePercent: number | null): Quote => ({
  symbol: 'AAPL',
  price,
  change: previousClose === null ? null : price - previousClose,
  changePercent,
  previousClose,
  open: null,
  dayHigh: null,
  dayLow: null,
  volume: null,
  currency: 'USD',
  asOf: new Date('2025-06-11T15:00:00Z'),
});

describe('priceChange: one rounding for every surface', () => {
  it.each([
    [101.1, 100, 1.1, 1.1],
    [1.1, 1.0, 0.1, 10],
    [225.67, 226.78, -1.11, -0.489461151777],
    [0.000123456, 0.000123, 0.000000456, 0.370731707317],
  ])('%s against %s: change %s, %s %%', (price, reference, change, percent) => {
    expect(priceChange(price, reference)).toEqual({ change, changePercent: percent });
  });

  it('has no change without a usable reference', () => {
    expect(priceChange(10, null)).toEqual({ change: null, changePercent: null });
    expect(priceChange(10, 0)).toEqual({ change: null, changePercent: null });
  });

  it('gives a snapshot (a quote) and a streamed tick of the same price the same change percent', () => {
    const aapl = parseInstrument('AAPL');
    // A provider's own percent, rounded its own way (Binance: 3 decimals).
    const reference = withPriceChange(quote(225.67, 226.78, -0.489));
    const snapshot = fromQuote(reference, LINEAGE);
    const tick = fromStream(
      reference,
      aapl,
      { symbol: 'AAPL', price: 225.67, size: 1, asOf: new Date() },
      'p',
      true,
    );
    expect(tick.changePercent).toBe(snapshot.changePercent);
    expect(tick.change).toBe(snapshot.change);
    expect(snapshot.changePercent).toBe(-0.489461151777);
  });

  it('keeps a provider figure without a reference, rounded alike', () => {
    expect(withPriceChange(quote(10, null, 1.2345678901234567)).changePercent).toBe(1.23456789012);
  });
});

import { describe, expect, it } from 'vitest';
import type { Lineage } from '../arbitration/lineage.ts';
import { summarizeBook } from './search-by-coin.ts';

const lineage: Lineage = {
  asked: ['fake'],
  used: ['fake'],
  rejected: [],
  agreement: 1,
  conflictResolved: false,
  asOf: new Date(0),
  retrievedAt: new Date(0),
  simulated: false,
  cache: { hit: false, ageMs: 0, ttlMs: 1000 },
};

describe('summarizeBook', () => {
  it('measures spread and depth around the mid price, without float noise', () => {
    const book = {
      symbol: 'ETH/USDT',
      venue: 'fake',
      bids: [
        { price: 0.1, size: 3 },
        { price: 0.0995, size: 10 },
        { price: 0.09, size: 100 },
      ],
      asks: [
        { price: 0.3, size: 1 },
        { price: 0.5, size: 5 },
      ],
      asOf: new Date(0),
    };
    const summary = summarizeBook(book, lineage);
    // 0.3 - 0.1 is 0.19999999999999998 in floating point.
    expect(summary).toMatchObject({ bestBid: 0.1, bestAsk: 0.3, spread: 0.2, spreadBps: 10_000, levels: 2 });
    // Mid 0.2: no bid is within 1 % of it, nor any ask.
    expect(summary).toMatchObject({ bidDepth1Pct: 0, askDepth1Pct: 0 });
  });

  it('sums the quote-currency value of the levels within 1 % of the mid', () => {
    const summary = summarizeBook(
      {
        symbol: 'BTC/USDT',
        venue: 'fake',
        bids: [
          { price: 99.9, size: 0.1 },
          { price: 99.2, size: 0.3 },
          { price: 98, size: 5 },
        ],
        asks: [
          { price: 100.1, size: 0.7 },
          { price: 100.9, size: 0.1 },
          { price: 102, size: 5 },
        ],
        asOf: new Date(0),
      },
      lineage,
    );
    expect(summary).toMatchObject({
      spread: 0.2,
      spreadBps: 20,
      bidDepth1Pct: 39.75,
      askDepth1Pct: 80.16,
    });
  });

  it('has no summary for a one-sided book', () => {
    expect(
      summarizeBook({ symbol: 'X/USDT', venue: 'fake', bids: [], asks: [], asOf: new Date(0) }, lineage),
    ).toBeNull();
  });
});

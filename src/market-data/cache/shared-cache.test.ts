import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../test/support/manual-clock.ts';
import type { Database } from '../../platform/db/database.ts';
import type { Quote } from '../types.ts';
import { quoteCodec } from './shared-cache.codec.ts';
import { type SharedCacheResult, SharedMarketDataCache } from './shared-cache.ts';

/**
 * What the shared cache does when its database fails or a value does not fit, without a database:
 * a stand-in whose every statement fails where the repository starts it. The behaviour
 * on a real Postgres database is in test/market-data-shared-cache.test.ts.
 */

const quote: Quote = {
  symbol: 'AAPL',
  price: 191.27,
  change: null,
  changePercent: null,
  previousClose: null,
  open: null,
  dayHigh: null,
  dayLow: null,
  volume: null,
  currency: 'USD',
  asOf: new Date(0),
};
const lineage = {
  asked: ['fake'],
  used: ['fake'],
  rejected: [],
  agreement: 1,
  conflictResolved: false,
  asOf: new Date(0),
  retrievedAt: new Date(0),
  simulated: false,
};

function setup(options: { maxBytes?: number } = {}) {
  const statements = { select: 0, insert: 0 };
  const fail = () => {
    throw new Error('database down');
  };
  const db = {
    select: () => {
      statements.select++;
      fail();
    },
    insert: () => {
      statements.insert++;
      fail();
    },
    transaction: fail,
  } as unknown as Database;
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const counts: SharedCacheResult[] = [];
  const clock = new ManualClock(0);
  const cache = new SharedMarketDataCache(db, clock, logger, {
    maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
    maxEntries: 100,
    providerIds: ['fake'],
    count: (result) => counts.push(result),
  });
  return { cache, clock, statements, lines, counts };
}

describe('the shared cache when its database fails', () => {
  it('answers "go upstream", counts the error, logs once, and leaves the table alone for a while', async () => {
    const { cache, clock, statements, lines, counts } = setup();
    expect(await cache.find(quoteCodec, 'k1')).toBeUndefined();
    expect(await cache.find(quoteCodec, 'k2')).toBeUndefined();
    cache.share(quoteCodec, 'k3', { value: quote, lineage }, 5_000);
    await cache.idle();
    expect(statements).toEqual({ select: 1, insert: 0 });
    expect(counts).toEqual(['error']);

    await clock.advance(5_000);
    expect(await cache.find(quoteCodec, 'k1')).toBeUndefined();
    cache.share(quoteCodec, 'k3', { value: quote, lineage }, 5_000);
    await cache.idle();
    expect(statements).toEqual({ select: 2, insert: 0 });
    expect(counts).toEqual(['error', 'error']);
    expect(lines.filter((l) => l.level === 40)).toHaveLength(1);
  });

  it('counts a failed write and carries on', async () => {
    const { cache, statements, counts } = setup();
    cache.share(quoteCodec, 'k', { value: quote, lineage }, 5_000);
    await cache.idle();
    expect(statements.insert).toBe(1);
    expect(counts).toEqual(['error']);
  });
});

describe('what the shared cache does not write', () => {
  it('an answer over its share of the byte bound, one with no lifetime, anything once closed', async () => {
    // A 1 KiB bound: an entry may take 64 bytes, less than any quote.
    const { cache, statements } = setup({ maxBytes: 1024 });
    cache.share(quoteCodec, 'k', { value: quote, lineage }, 5_000);
    expect(cache.stats()).toMatchObject({ oversized: 1, queued: 0 });
    const roomy = setup();
    roomy.cache.share(quoteCodec, 'k', { value: quote, lineage }, 0);
    await roomy.cache.close();
    roomy.cache.share(quoteCodec, 'k', { value: quote, lineage }, 5_000);
    await roomy.cache.idle();
    expect(roomy.statements.insert + statements.insert).toBe(0);
    expect(await roomy.cache.find(quoteCodec, 'k')).toBeUndefined();
    expect(roomy.statements.select).toBe(0);
  });
});

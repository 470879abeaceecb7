import { describe, expect, it } from 'vitest';
import type { Uncached } from '../arbitration/arbiter.ts';
import type { Bar, Quote } from '../types.ts';
import { barsCodec, decodeShared, encodeShared, quoteCodec, type SharedCodec } from './shared-cache.codec.ts';

const lineage = {
  asked: ['yahoo', 'finnhub'],
  used: ['yahoo'],
  rejected: [{ provider: 'finnhub', reason: 'outlier: 3.1% from the median' }],
  agreement: 0.5,
  conflictResolved: true,
  asOf: new Date('2026-11-18T15:00:01.250Z'),
  retrievedAt: new Date('2026-11-18T15:00:02.004Z'),
  simulated: false,
};

const quote: Quote = {
  symbol: 'AAPL',
  price: 191.27,
  change: -1.5,
  changePercent: -0.78,
  previousClose: 192.77,
  open: null,
  dayHigh: 193,
  dayLow: 190.5,
  volume: null,
  currency: 'USD',
  asOf: new Date('2026-11-18T15:00:01.250Z'),
  exchange: 'NMS',
};

const bars: Bar[] = [
  { time: new Date('2026-11-16T00:00:00Z'), open: 1, high: 2, low: 0.5, close: 1.5, volume: 10 },
  {
    time: new Date('2026-11-17T00:00:00Z'),
    open: 1.5,
    high: 2.5,
    low: 1,
    close: 2,
    volume: null,
    adjClose: 1.9,
  },
];

function roundTrip<T>(codec: SharedCodec<T>, answer: Uncached<T>) {
  const payload = encodeShared(codec, answer);
  expect(payload).toBeDefined();
  return decodeShared(codec, payload!);
}

describe('answers through the shared table', () => {
  it('give back a quote and its lineage exactly, times as dates, absent fields absent', () => {
    const back = roundTrip(quoteCodec, { value: quote, lineage });
    expect(back).toStrictEqual({ value: quote, lineage });
    expect(back?.value).not.toHaveProperty('name');
  });

  it('give back bars exactly, with and without adjusted closes and volumes', () => {
    expect(roundTrip(barsCodec, { value: bars, lineage })).toStrictEqual({ value: bars, lineage });
    expect(roundTrip(barsCodec, { value: [], lineage })).toStrictEqual({ value: [], lineage });
  });

  it('carry only the fields of the model', () => {
    const extra = { ...quote, internal: 'x' } as Quote;
    const payload = encodeShared(quoteCodec, { value: extra, lineage })!;
    expect(payload).not.toContain('internal');
  });

  it('are not shared when a number cannot be written as JSON (never turned into null)', () => {
    expect(encodeShared(quoteCodec, { value: { ...quote, price: Number.NaN }, lineage })).toBeUndefined();
    expect(encodeShared(barsCodec, { value: [{ ...bars[0]!, close: Infinity }], lineage })).toBeUndefined();
    expect(
      encodeShared(quoteCodec, { value: quote, lineage: { ...lineage, agreement: Number.NaN } }),
    ).toBeUndefined();
  });

  it('read a row that is not the model as a miss', () => {
    const good = encodeShared(quoteCodec, { value: quote, lineage })!;
    expect(decodeShared(quoteCodec, 'not json')).toBeUndefined();
    expect(decodeShared(quoteCodec, good.replace('"price":191.27', '"price":"191.27"'))).toBeUndefined();
    expect(decodeShared(quoteCodec, good.replace('"simulated":false', '"simulated":"no"'))).toBeUndefined();
    // A quote row read as bars, and bar rows with a missing or wrong cell.
    expect(decodeShared(barsCodec, good)).toBeUndefined();
    const row = (cells: unknown[]) => JSON.stringify({ v: [cells], l: JSON.parse(good).l });
    expect(decodeShared(barsCodec, row([1, 1, 1, 1, 1]))).toBeUndefined();
    expect(decodeShared(barsCodec, row([1.5, 1, 1, 1, 1, null]))).toBeUndefined();
    expect(decodeShared(barsCodec, row([1, 1, 1, 1, 1, 'x']))).toBeUndefined();
    expect(decodeShared(barsCodec, row([1, 1, 1, 1, 1, null, null]))).toBeUndefined();
    expect(decodeShared(barsCodec, row([1, 1, 1, 1, 1, null]))?.value).toEqual([
      { time: new Date(1), open: 1, high: 1, low: 1, close: 1, volume: null },
    ]);
  });
});

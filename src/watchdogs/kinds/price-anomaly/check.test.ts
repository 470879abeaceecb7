import { describe, expect, it } from 'vitest';
import type { Bar } from '../../../market-data/types.ts';
import { pricePoints } from './check.ts';

const at = (m: number) => new Date(Date.UTC(2025, 5, 14, 12, m));
const bar = (m: number, close: number): Bar => ({
  time: at(m),
  open: 100,
  high: close,
  low: 100,
  close,
  volume: 1,
});

describe('price_anomaly check', () => {
  it('reads a forming bar close at now, a complete one at its end', () => {
    const points = pricePoints([bar(0, 101), bar(1, 102)], new Date(at(1).getTime() + 20_000));
    expect(points.map((p) => [p.time.toISOString().slice(11, 19), p.price])).toEqual([
      ['12:00:00', 100],
      ['12:01:00', 101],
      ['12:01:00', 100],
      ['12:01:20', 102],
    ]);
  });
});

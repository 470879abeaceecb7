import { describe, expect, it } from 'vitest';
import type { OrderBook } from '../../../market-data/types.ts';
import {
  DEFAULT_LIQUIDITY_DROP_SETTINGS,
  type DepthSample,
  depthWithinBand,
  detectLiquidityDrop,
} from './detector.ts';

const now = new Date('2026-03-10T12:00:00Z');
const hour = 3_600_000;
const history = (n: number, depth = 1000, spacing = hour): DepthSample[] =>
  Array.from({ length: n }, (_, i) => ({ time: new Date(now.getTime() - (i + 1) * spacing), depth }));
const book = (symbol: string, depth: number, h = history(24)) => ({
  symbol,
  venue: 'binance',
  depth,
  history: h,
});

describe('detectLiquidityDrop', () => {
  it('reports every thin book with its grade', () => {
    const findings = detectLiquidityDrop({
      now,
      books: [book('A', 400), book('B', 900), book('C', 200)],
    });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([
      ['A', 'high'],
      ['C', 'critical'],
    ]);
    expect(findings[0]!.data).toMatchObject({ depth: 400, averageDepth: 1000, ratio: 0.4, samples: 24 });
  });

  it('does not fire exactly at 0.5x and is high (not critical) exactly at 0.3x', () => {
    const findings = detectLiquidityDrop({ now, books: [book('A', 500), book('B', 300)] });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([['B', 'high']]);
  });

  it('averages only samples within 7 days and needs enough of them', () => {
    const old = history(30, 100_000, 8 * 24 * hour);
    const [f] = detectLiquidityDrop({ now, books: [book('A', 400, [...history(24), ...old])] });
    expect(f!.data.averageDepth).toBe(1000);
    const few = history(DEFAULT_LIQUIDITY_DROP_SETTINGS.minSamples - 1);
    expect(detectLiquidityDrop({ now, books: [book('A', 1, few)] })).toEqual([]);
  });

  it('measures depth within a band around mid', () => {
    const ob: OrderBook = {
      symbol: 'A',
      venue: 'x',
      bids: [
        { price: 99.5, size: 2 },
        { price: 90, size: 100 },
      ],
      asks: [
        { price: 100.5, size: 1 },
        { price: 110, size: 100 },
      ],
      asOf: now,
    };
    expect(depthWithinBand(ob, 0.01)).toBe(99.5 * 2 + 100.5);
    expect(depthWithinBand({ ...ob, asks: [] }, 0.01)).toBeNull();
  });
});

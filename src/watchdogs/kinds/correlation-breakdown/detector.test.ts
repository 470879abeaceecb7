import { describe, expect, it } from 'vitest';
import type { Bar } from '../../../market-data/types.ts';
import { DEFAULT_CORRELATION_BREAKDOWN_SETTINGS, detectCorrelationBreakdown } from './detector.ts';

const day = 86_400_000;
const now = new Date('2026-03-10T00:00:00Z');
const DAYS = 100;

/** Daily bars ending at now whose log returns are the given ones. */
function barsFromReturns(returns: readonly number[]): Bar[] {
  let price = 100;
  const closes = [price, ...returns.map((r) => (price *= Math.exp(r)))];
  return closes.map((close, i) => ({
    time: new Date(now.getTime() - (closes.length - 1 - i) * day),
    open: close,
    high: close,
    low: close,
    close,
    volume: 1,
  }));
}

// A deterministic, wiggly return series.
const base = Array.from({ length: DAYS }, (_, i) => 0.01 * Math.sin(i * 1.7) + 0.004 * Math.cos(i * 0.3));
const negatedLastWeek = base.map((r, i) => (i >= DAYS - 7 ? -r : r));

describe('detectCorrelationBreakdown', () => {
  it('fires when the short-window correlation departs from the long-window one, for every pair', () => {
    const bars = new Map([
      ['A', barsFromReturns(base)],
      ['B', barsFromReturns(negatedLastWeek)],
      ['C', barsFromReturns(base)],
      ['D', barsFromReturns(negatedLastWeek)],
    ]);
    const findings = detectCorrelationBreakdown({
      now,
      pairs: [
        ['A', 'B'],
        ['A', 'C'],
        ['C', 'D'],
      ],
      bars,
    });
    expect(findings.map((f) => [f.subject, f.severity, f.eventType])).toEqual([
      ['A~B', 'high', 'correlation_break'],
      ['C~D', 'high', 'correlation_break'],
    ]);
    const d = findings[0]!.data;
    expect(d.shortCorrelation).toBeCloseTo(-1, 6);
    expect(d.longCorrelation).toBeGreaterThan(0.5);
    expect(d.change).toBeCloseTo(d.shortCorrelation - d.longCorrelation, 12);
    expect(findings[0]!.symbol).toBe('A');
  });

  it('grades by the size of the change against the settings, strictly above a threshold', () => {
    const input = {
      now,
      pairs: [['A', 'B']] as const,
      bars: new Map([
        ['A', barsFromReturns(base)],
        ['B', barsFromReturns(negatedLastWeek)],
      ]),
    };
    const [f] = detectCorrelationBreakdown(input);
    const change = Math.abs(f!.data.change);
    const s = DEFAULT_CORRELATION_BREAKDOWN_SETTINGS;
    expect(detectCorrelationBreakdown(input, { ...s, mediumChange: change, highChange: 2 })).toEqual([]);
    const medium = detectCorrelationBreakdown(input, {
      ...s,
      mediumChange: change - 1e-9,
      highChange: change,
    });
    expect(medium.map((x) => x.severity)).toEqual(['medium']);
  });

  it('makes no judgement without enough aligned data or with a missing symbol', () => {
    const short = new Map([
      ['A', barsFromReturns(base.slice(-10))],
      ['B', barsFromReturns(negatedLastWeek.slice(-10))],
    ]);
    expect(detectCorrelationBreakdown({ now, pairs: [['A', 'B']], bars: short })).toEqual([]);
    expect(detectCorrelationBreakdown({ now, pairs: [['A', 'X']], bars: short })).toEqual([]);
  });
});

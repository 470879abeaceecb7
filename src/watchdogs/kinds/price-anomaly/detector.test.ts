import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_ANOMALY_SETTINGS, detectPriceAnomaly, type PricePoint } from './detector.ts';

const now = new Date('2026-03-10T12:00:00Z');
/** Prices at one-minute steps ending at now. */
const path = (...prices: number[]): PricePoint[] =>
  prices.map((price, i) => ({ time: new Date(now.getTime() - (prices.length - 1 - i) * 60_000), price }));

describe('detectPriceAnomaly', () => {
  it('reports rises, falls and crashes of every symbol in one call', () => {
    const findings = detectPriceAnomaly({
      now,
      series: [
        { symbol: 'UP', points: path(100, 103, 107) },
        { symbol: 'FLAT', points: path(100, 101, 100.5) },
        { symbol: 'DOWN', points: path(100, 97, 93) },
        { symbol: 'CRASH', points: path(100, 95, 85) },
        { symbol: 'MOON', points: path(100, 115) },
      ],
    });
    expect(findings.map((f) => [f.symbol, f.eventType, f.severity])).toEqual([
      ['UP', 'price_anomaly', 'high'],
      ['DOWN', 'price_anomaly', 'high'],
      ['CRASH', 'flash_crash', 'critical'],
      ['MOON', 'price_anomaly', 'critical'],
    ]);
    expect(findings[2]!.data).toMatchObject({ fromPrice: 100, toPrice: 85, change: -0.15 });
    expect(findings[2]!.description).toMatch(/^Flash crash: CRASH moved -15\.00% in 2 min/);
  });

  it('does not fire exactly at 5 %; exactly ±10 % is still high, and -10 % is not yet a crash', () => {
    const findings = detectPriceAnomaly({
      now,
      series: [
        { symbol: 'UP5', points: path(100, 105) },
        { symbol: 'DOWN5', points: path(100, 95) },
        { symbol: 'DOWN10', points: path(100, 90) },
        { symbol: 'UP10', points: path(100, 110) },
      ],
    });
    expect(findings.map((f) => [f.symbol, f.eventType, f.severity])).toEqual([
      ['DOWN10', 'price_anomaly', 'high'],
      ['UP10', 'price_anomaly', 'high'],
    ]);
  });

  it('measures from the first price inside the window, ignoring older and future points', () => {
    const windowMin = DEFAULT_PRICE_ANOMALY_SETTINGS.windowMs / 60_000;
    const points: PricePoint[] = [
      { time: new Date(now.getTime() - (windowMin + 1) * 60_000), price: 50 },
      ...path(100, 101),
      { time: new Date(now.getTime() + 60_000), price: 200 },
    ];
    expect(detectPriceAnomaly({ now, series: [{ symbol: 'A', points }] })).toEqual([]);
  });

  it('needs two points and takes thresholds from settings', () => {
    expect(detectPriceAnomaly({ now, series: [{ symbol: 'A', points: path(100) }] })).toEqual([]);
    const settings = { ...DEFAULT_PRICE_ANOMALY_SETTINGS, highMove: 0.01, flashCrashDrop: 0.02 };
    const findings = detectPriceAnomaly({ now, series: [{ symbol: 'A', points: path(100, 97) }] }, settings);
    expect(findings.map((f) => f.eventType)).toEqual(['flash_crash']);
  });
});

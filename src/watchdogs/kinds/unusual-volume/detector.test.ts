import { describe, expect, it } from 'vitest';
import type { Bar } from '../../../market-data/types.ts';
import { DEFAULT_UNUSUAL_VOLUME_SETTINGS, detectUnusualVolume } from './detector.ts';

const day = 86_400_000;
const bars = (volumes: readonly (number | null)[]): Bar[] =>
  volumes.map((volume, i) => ({ time: new Date(i * day), open: 10, high: 10, low: 10, close: 10, volume }));
const baseline = (n: number, v = 100) => Array.from({ length: n }, () => v);

describe('detectUnusualVolume', () => {
  it('reports every symbol over a threshold with its grade', () => {
    const findings = detectUnusualVolume({
      series: [
        { symbol: 'A', bars: bars([...baseline(30), 400]) },
        { symbol: 'B', bars: bars([...baseline(30), 150]) },
        { symbol: 'C', bars: bars([...baseline(30), 600]) },
      ],
    });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([
      ['A', 'high'],
      ['C', 'critical'],
    ]);
    expect(findings[0]!.data).toMatchObject({ volume: 400, averageVolume: 100, ratio: 4, baselineDays: 30 });
  });

  it('does not fire exactly at 3x and is high (not critical) exactly at 5x', () => {
    const findings = detectUnusualVolume({
      series: [
        { symbol: 'AT3', bars: bars([...baseline(30), 300]) },
        { symbol: 'AT5', bars: bars([...baseline(30), 500]) },
      ],
    });
    expect(findings.map((f) => [f.symbol, f.severity])).toEqual([['AT5', 'high']]);
  });

  it('averages only the last 30 sessions before the current one, skipping missing volumes', () => {
    // An old, heavy period beyond the 30-day baseline must not raise the average.
    const volumes = [...baseline(20, 10_000), ...baseline(15), null, ...baseline(15), 400];
    const [f] = detectUnusualVolume({ series: [{ symbol: 'A', bars: bars(volumes) }] });
    expect(f!.data).toMatchObject({ averageVolume: 100, baselineDays: 30 });
  });

  it('gives a z-score, null when the baseline does not vary', () => {
    const flat = detectUnusualVolume({ series: [{ symbol: 'A', bars: bars([...baseline(30), 400]) }] });
    expect(flat[0]!.data.zScore).toBeNull();
    const varied = detectUnusualVolume({
      series: [{ symbol: 'A', bars: bars([...baseline(15, 90), ...baseline(15, 110), 400]) }],
    });
    expect(varied[0]!.data.zScore).toBeGreaterThan(10);
  });

  it('makes no judgement on a short history or a missing current volume', () => {
    const { minBaselineDays } = DEFAULT_UNUSUAL_VOLUME_SETTINGS;
    expect(
      detectUnusualVolume({
        series: [
          { symbol: 'SHORT', bars: bars([...baseline(minBaselineDays - 1), 1000]) },
          { symbol: 'NONE', bars: bars([...baseline(30), null]) },
          { symbol: 'EMPTY', bars: [] },
        ],
      }),
    ).toEqual([]);
  });

  it('takes thresholds from settings', () => {
    const settings = { ...DEFAULT_UNUSUAL_VOLUME_SETTINGS, highRatio: 1.2 };
    expect(
      detectUnusualVolume({ series: [{ symbol: 'A', bars: bars([...baseline(30), 150]) }] }, settings),
    ).toHaveLength(1);
  });
});

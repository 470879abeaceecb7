import { describe, expect, it } from 'vitest';
import type { Bar } from '../../../market-data/types.ts';
import { judgeRecent } from './check.ts';
import { DEFAULT_UNUSUAL_VOLUME_SETTINGS, detectUnusualVolume, type UnusualVolumeInput } from './detector.ts';

const at = (m: number) => new Date(Date.UTC(2025, 5, 14, 12, m));
const bar = (m: number, volume: number): Bar => ({
  time: at(m),
  open: 100,
  high: 100,
  low: 100,
  close: 100,
  volume,
});
const detect = (input: UnusualVolumeInput) => detectUnusualVolume(input, DEFAULT_UNUSUAL_VOLUME_SETTINGS);

describe('unusual_volume check', () => {
  it('judges each recent minute against the minutes before it, strongest per symbol', () => {
    const bars = Array.from({ length: 40 }, (_, i) => bar(i, i === 37 ? 4_000 : 100));
    const findings = judgeRecent([{ symbol: 'BTC/USDT', bars }], 3, detect);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.data.volume).toBe(4_000);
    expect(findings[0]!.description).toMatch(/-minute average/);
    // The burst lies outside the last two minutes judged: nothing.
    expect(judgeRecent([{ symbol: 'BTC/USDT', bars }], 2, detect)).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import type { Bar } from '../../market-data/types.ts';
import { DEFAULT_UNUSUAL_VOLUME_SETTINGS } from '../detectors/unusual-volume.detector.ts';
import { reachability } from './exchange-outage.check.ts';
import { pricePoints } from './price-anomaly.check.ts';
import { judgeRecent } from './unusual-volume.check.ts';

const at = (m: number) => new Date(Date.UTC(2025, 5, 14, 12, m));
const bar = (m: number, volume: number, close = 100): Bar => ({
  time: at(m),
  open: 100,
  high: close,
  low: 100,
  close,
  volume,
});

describe('check helpers', () => {
  it('judges each recent minute against the minutes before it, strongest per symbol', () => {
    const bars = Array.from({ length: 40 }, (_, i) => bar(i, i === 37 ? 4_000 : 100));
    const findings = judgeRecent([{ symbol: 'BTC/USDT', bars }], 3, DEFAULT_UNUSUAL_VOLUME_SETTINGS);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.data.volume).toBe(4_000);
    // The burst lies outside the last two minutes judged: nothing.
    expect(judgeRecent([{ symbol: 'BTC/USDT', bars }], 2, DEFAULT_UNUSUAL_VOLUME_SETTINGS)).toEqual([]);
  });

  it('reads a forming bar close at now, a complete one at its end', () => {
    const points = pricePoints([bar(0, 1, 101), bar(1, 1, 102)], new Date(at(1).getTime() + 20_000));
    expect(points.map((p) => [p.time.toISOString().slice(11, 19), p.price])).toEqual([
      ['12:00:00', 100],
      ['12:01:00', 101],
      ['12:01:00', 100],
      ['12:01:20', 102],
    ]);
  });

  it('maps venue status to reachability: slow answers by latency, no answer by cause', () => {
    const v = { venue: 'x', checkedAt: at(0) };
    expect(reachability({ ...v, status: 'up', latencyMs: 40, detail: null }).outcome).toBe('ok');
    expect(reachability({ ...v, status: 'degraded', latencyMs: 3_000, detail: 'slow answer' })).toMatchObject(
      {
        outcome: 'ok',
        latencyMs: 3_000,
      },
    );
    expect(reachability({ ...v, status: 'degraded', latencyMs: 80, detail: 'key refused' }).outcome).toBe(
      'error',
    );
    expect(
      reachability({ ...v, status: 'down', latencyMs: null, detail: 'simulated: timeout' }).outcome,
    ).toBe('timeout');
    expect(reachability({ ...v, status: 'down', latencyMs: null, detail: 'HTTP 503' }).outcome).toBe('error');
  });
});

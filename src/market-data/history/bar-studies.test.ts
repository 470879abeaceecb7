import { describe, expect, it } from 'vitest';
import { sma } from '../../quant/indicators/index.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { Bar } from '../types.ts';
import type { HistoryPage } from './bar-history.service.ts';
import { computeStudies, pageStudies, studySpecs } from './bar-studies.ts';

const DAY = 86_400_000;
const bar = (i: number, close: number): Bar =>
  ({
    time: new Date(Date.UTC(2024, 0, 1) + i * DAY),
    open: close,
    high: close,
    low: close,
    close,
    volume: 1,
  }) as Bar;

const page = (bars: Bar[]): HistoryPage =>
  ({ bars, instrument: { id: 'x' }, interval: '1d', totalCount: bars.length }) as unknown as HistoryPage;

describe('bar studies over a page', () => {
  it('keeps only the page part of a warmed-up series', () => {
    const closes = [1, 2, 3, 4, 5, 6, 7];
    const [s] = computeStudies(studySpecs({ sma: [3] }), closes, 2);
    expect(s!.values).toEqual([...sma(closes, 3)].slice(2));
    expect(s!.values).toEqual([2, 3, 4, 5, 6]);
  });

  it('is null until period closes are available when there is no earlier history', async () => {
    const none = { bars: async () => ({ value: [], lineage: {} }) } as unknown as MarketDataService;
    const bars = [1, 2, 3, 4, 5].map((c, i) => bar(i, c));
    const [s, b] = await pageStudies(none, page(bars), { sma: [3], bollinger: [{ period: 4, stdDevs: 2 }] });
    expect(s!.values).toEqual([null, null, 2, 3, 4]);
    expect(b!.upper!.slice(0, 3)).toEqual([null, null, null]);
    expect(b!.upper![3]).not.toBeNull();
  });

  it('warms up from the bars before the page, and a provider failure only leaves the warm-up short', async () => {
    const earlier = [10, 20].map((c, i) => bar(i - 2, c));
    const asked: Date[] = [];
    const some = {
      bars: async (_i: unknown, _n: unknown, _from: Date, to: Date) => {
        asked.push(to);
        return { value: earlier, lineage: {} };
      },
    } as unknown as MarketDataService;
    const bars = [30, 40].map((c, i) => bar(i, c));
    const [s] = await pageStudies(some, page(bars), { sma: [3] });
    expect(s!.values).toEqual([20, 30]);
    expect(asked[0]).toEqual(bars[0]!.time); // ends where the page starts
    const failing = {
      bars: async () => {
        throw new Error('provider down');
      },
    } as unknown as MarketDataService;
    expect((await pageStudies(failing, page(bars), { sma: [2] }))[0]!.values).toEqual([null, 35]);
  });
});

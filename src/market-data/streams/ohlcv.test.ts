import { describe, expect, it } from 'vitest';
import { MinuteBars } from './ohlcv.ts';

const t = (m: number, s: number) => new Date(Date.UTC(2026, 0, 5, 15, m, s));

describe('MinuteBars', () => {
  it('aggregates ticks of a minute and closes the bar when the next minute starts', () => {
    const bars = new MinuteBars('BTC/USDT');
    expect(bars.add(100, 1, t(0, 1))).toBeUndefined();
    bars.add(103, 2, t(0, 20));
    bars.add(99, null, t(0, 40));
    bars.add(101, 0.5, t(0, 59));
    expect(bars.current()).toMatchObject({
      open: 100,
      high: 103,
      low: 99,
      close: 101,
      volume: 3.5,
      closed: false,
    });
    const closed = bars.add(102, 1, t(1, 0));
    expect(closed).toEqual({
      symbol: 'BTC/USDT',
      time: t(0, 0),
      open: 100,
      high: 103,
      low: 99,
      close: 101,
      volume: 3.5,
      closed: true,
    });
    expect(bars.current()).toMatchObject({ time: t(1, 0), open: 102, closed: false });
  });

  it('leaves volume null when no sizes are known and ignores late ticks', () => {
    const bars = new MinuteBars('AAPL');
    bars.add(10, null, t(2, 0));
    bars.add(11, null, t(1, 59));
    expect(bars.current()).toMatchObject({ open: 10, high: 10, volume: null });
  });
});

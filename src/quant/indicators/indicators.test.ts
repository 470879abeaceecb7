import { describe, expect, it } from 'vitest';
import { INDICATOR_CONVENTIONS } from './index.ts';
import { momentum, rateOfChange, sharpe } from './momentum.ts';
import { ema, sma } from './moving-averages.ts';
import { bollinger, macd, rsi } from './oscillators.ts';
import { atr, stochastic } from './range.ts';
import {
  annualizedVolatility,
  beta,
  drawdownSeries,
  logReturns,
  maxDrawdown,
  pearson,
  sampleStdDev,
} from './statistics.ts';

const arr = (a: ArrayLike<number>) =>
  Array.from(a).map((x) => (Number.isNaN(x) ? null : Math.round(x * 1e6) / 1e6));

describe('moving averages (hand-worked)', () => {
  it('sma', () => {
    expect(arr(sma([1, 2, 3, 4, 5], 3))).toEqual([null, null, 2, 3, 4]);
  });
  it('ema seeded with the sma of the first period', () => {
    // alpha = 0.5; seed = (1+2+3)/3 = 2; then 0.5*4+0.5*2 = 3; 0.5*5+0.5*3 = 4
    expect(arr(ema([1, 2, 3, 4, 5], 3))).toEqual([null, null, 2, 3, 4]);
    expect(arr(ema([10, 10, 10, 20], 3))).toEqual([null, null, 10, 15]);
  });
  it('ema skips leading NaN (ema of another indicator)', () => {
    expect(arr(ema([Number.NaN, 2, 4, 6], 2))).toEqual([null, null, 3, 5]);
  });
});

describe('rsi (Wilder)', () => {
  it('matches a hand-worked case', () => {
    // changes: +1, +1, -1, +2 ; period 2: first avg gain (1+1)/2 = 1, loss 0 -> 100
    // next: gain = (1*1 + 0)/2 = 0.5, loss = (0 + 1)/2 = 0.5 -> 50
    // next: gain = (0.5 + 2)/2 = 1.25, loss = 0.25 -> 100 - 100/(1+5) = 83.333333
    expect(arr(rsi([1, 2, 3, 2, 4], 2))).toEqual([null, null, 100, 50, 83.333333]);
  });
  it('is 50 for a flat series', () => {
    expect(rsi([5, 5, 5, 5], 2)[3]).toBe(50);
  });
});

describe('macd and bollinger', () => {
  it('macd line is the difference of the emas and the histogram line minus signal', () => {
    const closes = Array.from({ length: 60 }, (_, i) => 100 + Math.sin(i / 4) * 5 + i * 0.2);
    const { macd: line, signal, histogram } = macd(closes);
    const e12 = ema(closes, 12);
    const e26 = ema(closes, 26);
    expect(Number.isNaN(line[24]!)).toBe(true);
    expect(line[25]).toBeCloseTo(e12[25]! - e26[25]!, 12);
    expect(Number.isNaN(signal[32]!)).toBe(true);
    expect(Number.isFinite(signal[33]!)).toBe(true);
    expect(histogram[40]).toBeCloseTo(line[40]! - signal[40]!, 12);
  });
  it('bollinger uses the population standard deviation', () => {
    const { middle, upper, lower } = bollinger([2, 4, 4, 4, 5, 5, 7, 9], 8, 2);
    // mean 5, population sd 2
    expect(middle[7]).toBe(5);
    expect(upper[7]).toBe(9);
    expect(lower[7]).toBe(1);
  });
});

describe('statistics', () => {
  it('volatility is the sample sd of log returns, annualised', () => {
    const prices = [100, 101, 99, 102, 103];
    const r = logReturns(prices);
    expect(annualizedVolatility(prices, 252)).toBeCloseTo(sampleStdDev(r) * Math.sqrt(252), 12);
    expect(sampleStdDev([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7), 12);
  });
  it('pearson and beta', () => {
    expect(pearson([1, 2, 3, 4], [2, 4, 6, 8])).toBeCloseTo(1, 12);
    expect(pearson([1, 2, 3, 4], [8, 6, 4, 2])).toBeCloseTo(-1, 12);
    expect(beta([0.02, 0.04, -0.02], [0.01, 0.02, -0.01])).toBeCloseTo(2, 12);
  });
  it('max drawdown', () => {
    expect(maxDrawdown([100, 120, 90, 130, 65])).toBeCloseTo(0.5, 12);
    expect(maxDrawdown([1, 2, 3])).toBe(0);
  });
});

describe('ATR (hand-worked)', () => {
  it('uses high - low on the first bar, gaps from the previous close after, then Wilder smoothing', () => {
    const high = [10, 11, 12, 11.5, 9];
    const low = [8, 9, 10.5, 9.5, 8];
    const close = [9, 10.5, 11, 10, 8.5];
    // TR: 2 (first bar), max(2, 2, 0) = 2, max(1.5, 1.5, 0) = 1.5, max(2, 0.5, 1.5) = 2,
    // max(1, 1, 2) = 2 (a gap down from 10). Period 3: (2 + 2 + 1.5) / 3 = 1.833333, then
    // (1.833333 * 2 + 2) / 3 = 1.888889 and (1.888889 * 2 + 2) / 3 = 1.925926.
    expect(arr(atr(high, low, close, 3))).toEqual([null, null, 1.833333, 1.888889, 1.925926]);
  });
  it('rejects series of different lengths', () => {
    expect(() => atr([1, 2], [1], [1, 2], 1)).toThrow(RangeError);
  });
});

describe('stochastic (hand-worked)', () => {
  it('slow %K is the SMA of raw %K and %D the SMA of %K', () => {
    const high = [10, 12, 11, 13, 12, 12];
    const low = [8, 9, 9, 10, 11, 11];
    const close = [9, 11, 10, 12, 11.5, 11];
    // Raw %K over 3 bars: (10 - 8) / (12 - 8) = 50, (12 - 9) / (13 - 9) = 75, (11.5 - 9) / 4 = 62.5,
    // (11 - 10) / (13 - 10) = 33.333333. %K = SMA(2): 62.5, 68.75, 47.916667. %D = SMA(2) of %K.
    const { k, d } = stochastic(high, low, close, 3, 2, 2);
    expect(arr(k)).toEqual([null, null, null, 62.5, 68.75, 47.916667]);
    expect(arr(d)).toEqual([null, null, null, null, 65.625, 58.333333]);
    expect(arr(stochastic(high, low, close, 3, 1, 2).k)).toEqual([null, null, 50, 75, 62.5, 33.333333]);
  });
  it('is 50 where the window has no range', () => {
    const flat = [5, 5, 5, 5, 5, 5];
    expect(arr(stochastic(flat, flat, flat, 3, 1, 1).k)).toEqual([null, null, 50, 50, 50, 50]);
  });
});

describe('momentum, rate of change, Sharpe, drawdowns (hand-worked)', () => {
  it('momentum and rate of change over n bars', () => {
    expect(arr(momentum([10, 11, 13, 12, 15], 2))).toEqual([null, null, 3, 1, 2]);
    expect(arr(rateOfChange([10, 11, 13, 12, 15], 2))).toEqual([null, null, 30, 9.090909, 15.384615]);
  });
  it('sharpe: mean / sample sd of log returns x sqrt(periods per year), risk-free as ln(1 + rf) per period', () => {
    // Returns ln 1.1, ln 0.9, ln 1.1: mean 0.0284199, sample sd 0.1158573.
    expect(sharpe([100, 110, 99, 108.9], 252)).toBeCloseTo(3.894038317, 8);
    expect(sharpe([100, 110, 99, 108.9], 252, 0.05)).toBeCloseTo(3.867510062, 8);
    expect(sharpe([100, 110], 252)).toBeNaN();
    expect(sharpe([100, 100, 100], 252)).toBeNaN();
  });
  it('drawdown series and its maximum', () => {
    expect(Array.from(drawdownSeries([100, 120, 90, 130, 65]))).toEqual([0, 0, 0.25, 0, 0.5]);
  });
});

describe('conventions registry', () => {
  it('states the warm-up each indicator has with its default parameters', () => {
    const closes = Array.from({ length: 60 }, (_, i) => 100 + Math.sin(i) * 5);
    const leading = (xs: ArrayLike<number>) =>
      Array.prototype.findIndex.call(xs, (v: number) => !Number.isNaN(v));
    const stated = (name: string) =>
      [...INDICATOR_CONVENTIONS[name]!.split('warm-up')[1]!.matchAll(/(\d+) bars/g)].map((m) => Number(m[1]));
    const s = stochastic(closes, closes, closes);
    const m = macd(closes);
    expect(stated('RSI')).toEqual([leading(rsi(closes))]);
    expect(stated('ATR')).toEqual([leading(atr(closes, closes, closes))]);
    expect(stated('BOLLINGER_BANDS')).toEqual([leading(bollinger(closes).upper)]);
    expect(stated('STOCH')).toEqual([leading(s.k), leading(s.d)]);
    expect(stated('MACD')).toEqual([leading(m.macd), leading(m.signal)]);
    expect(INDICATOR_CONVENTIONS.RSI).toMatch(/Wilder/);
  });
  it('rejects periods that are not positive integers', () => {
    expect(() => sma([1, 2, 3], 0)).toThrow(RangeError);
    expect(() => rsi([1, 2, 3], 1.5)).toThrow(RangeError);
    expect(() => macd([1, 2, 3], 26, 12, 9)).toThrow(RangeError);
    expect(() => bollinger([1, 2, 3], -1)).toThrow(RangeError);
  });
});

import { describe, expect, it } from 'vitest';
import { ema, sma } from './moving-averages.ts';
import { bollinger, macd, rsi } from './oscillators.ts';
import { annualizedVolatility, beta, logReturns, maxDrawdown, pearson, sampleStdDev } from './statistics.ts';

const arr = (a: Float64Array) => [...a].map((x) => (Number.isNaN(x) ? null : Math.round(x * 1e6) / 1e6));

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

import * as TS from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { describeWithFixtures } from '../../../test/support/fixtures.ts';
import { errorOf, tslaHistory } from '../../../test/support/indicator-golden.ts';
import { sharpe } from './momentum.ts';
import {
  annualizedVolatility,
  beta,
  drawdownSeries,
  logReturns,
  maxDrawdown,
  pearson,
  sampleStdDev,
} from './statistics.ts';

/**
 * Return statistics on the recorded TSLA history against their textbook formulas written out
 * naively here (plain loops, two passes, O(n^2) where that is the definition), and against
 * trading-signals' utilities where it has one (after converting its conventions: population
 * standard deviation, per-period Sharpe ratio, drawdown in percent).
 */
describeWithFixtures('statistics on the recorded TSLA history', () => {
  const { close, high, n } = tslaHistory();
  const TIGHT = 1e-12;
  const EXACT = 1e-9;

  const naiveMean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const naiveSampleSd = (xs: readonly number[]) => {
    const m = naiveMean(xs);
    return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
  };
  const naiveReturns = (prices: ArrayLike<number>) => {
    const r: number[] = [];
    for (let i = 1; i < prices.length; i++) r.push(Math.log(prices[i]! / prices[i - 1]!));
    return r;
  };
  const naiveCov = (a: readonly number[], b: readonly number[]) => {
    const ma = naiveMean(a);
    const mb = naiveMean(b);
    let s = 0;
    for (let i = 0; i < a.length; i++) s += (a[i]! - ma) * (b[i]! - mb);
    return s / (a.length - 1);
  };
  const relative = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

  // Windows: the whole history, the last year, a quiet and a wild stretch, a short one.
  const WINDOWS: Array<[string, number, number]> = [
    ['whole history', 0, n],
    ['last year', n - 253, n],
    ['2013 (a steep rise)', 650, 903],
    ['2020 (a crash and a boom)', 2410, 2663],
    ['ten bars', 1000, 1010],
  ];

  describe.each(WINDOWS)('over %s', (_, from, to) => {
    const prices = close.slice(from, to);
    const returns = naiveReturns(prices);

    it('logReturns equals ln(p[i] / p[i-1]) and TS getLogReturns bit for bit', () => {
      expect(Array.from(logReturns(prices))).toEqual(returns);
      expect(Array.from(logReturns(prices))).toEqual(TS.getLogReturns(Array.from(prices)));
    });

    it('volatility is the sample sd of log returns x sqrt(252), as naive and TS population sd x sqrt(m/(m-1))', () => {
      const ours = annualizedVolatility(prices, 252);
      expect(relative(ours, naiveSampleSd(returns) * Math.sqrt(252))).toBeLessThanOrEqual(TIGHT);
      const m = returns.length;
      const ts = TS.getStandardDeviation(returns) * Math.sqrt(m / (m - 1)) * Math.sqrt(252);
      expect(relative(ours, ts)).toBeLessThanOrEqual(EXACT);
      expect(relative(sampleStdDev(returns), naiveSampleSd(returns))).toBeLessThanOrEqual(TIGHT);
    });

    it('pearson of close and high returns equals cov / (sd sd) and TS getCorrelation', () => {
      const other = naiveReturns(high.slice(from, to));
      const ours = pearson(returns, other);
      const naive = naiveCov(returns, other) / (naiveSampleSd(returns) * naiveSampleSd(other));
      expect(errorOf(ours, naive)).toBeLessThanOrEqual(TIGHT);
      expect(errorOf(ours, TS.getCorrelation(returns, other))).toBeLessThanOrEqual(EXACT);
      expect(Math.abs(ours)).toBeLessThanOrEqual(1);
    });

    it('beta of close returns on high returns equals cov / var', () => {
      const market = naiveReturns(high.slice(from, to));
      const naive = naiveCov(returns, market) / naiveCov(market, market);
      expect(relative(beta(returns, market), naive)).toBeLessThanOrEqual(TIGHT);
    });

    it.each([0, 0.05])(
      'sharpe with risk-free %f equals the naive formula and TS getSharpeRatio converted',
      (rf) => {
        // Ours: (mean - ln(1 + rf) / 252) / sample sd x sqrt(252). TS: (mean - rf per period) / population sd.
        const perPeriod = Math.log1p(rf) / 252;
        const ours = sharpe(prices, 252, rf);
        const naive = ((naiveMean(returns) - perPeriod) / naiveSampleSd(returns)) * Math.sqrt(252);
        expect(errorOf(ours, naive)).toBeLessThanOrEqual(TIGHT);
        const m = returns.length;
        const ts = TS.getSharpeRatio(returns, perPeriod) * Math.sqrt((m - 1) / m) * Math.sqrt(252);
        expect(errorOf(ours, ts)).toBeLessThanOrEqual(EXACT);
      },
    );

    it('maxDrawdown is the largest (p[i] - p[j]) / p[i] over i < j, and TS getMaxDrawdown / 100', () => {
      let worst = 0;
      for (let i = 0; i < prices.length; i++)
        for (let j = i + 1; j < prices.length; j++)
          worst = Math.max(worst, (prices[i]! - prices[j]!) / prices[i]!);
      expect(maxDrawdown(prices)).toBe(worst);
      expect(errorOf(maxDrawdown(prices), TS.getMaxDrawdown(Array.from(prices)) / 100)).toBeLessThanOrEqual(
        TIGHT,
      );
    });

    it('drawdownSeries is the fall from the running peak at every bar; its maximum is maxDrawdown', () => {
      const series = drawdownSeries(prices);
      expect(series).toHaveLength(prices.length);
      for (let j = 0; j < prices.length; j++) {
        const peak = Math.max(...prices.slice(0, j + 1));
        expect(series[j]).toBe((peak - prices[j]!) / peak);
      }
      expect(Math.max(...series)).toBe(maxDrawdown(prices));
    });
  });
});

import * as TI from 'technicalindicators';
import * as TS from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { describeWithFixtures } from '../../../test/support/fixtures.ts';
import {
  barsToForget,
  expectSeries,
  padFront,
  streamed,
  tslaHistory,
} from '../../../test/support/indicator-golden.ts';
import { ema, sma } from './moving-averages.ts';
import { bollinger, macd, rsi } from './oscillators.ts';

/**
 * Moving averages and oscillators against two independent implementations, technicalindicators
 * (TI) 3 and trading-signals (TS) 8, on the recorded TSLA history (3,303 daily bars). Their
 * conventions were read in their sources; where one differs from ours it is aligned or the
 * comparison starts once the difference has provably decayed, as stated per check. Errors are
 * relative (absolute below 1, see errorOf); 1e-9 where the conventions match exactly, and the
 * warm-ups (NaN positions) must match too wherever both sides have them.
 */
describeWithFixtures('moving averages and oscillators on the recorded TSLA history', () => {
  const { close, n } = tslaHistory();
  const closes = Array.from(close);
  const EXACT = 1e-9;

  describe('moving averages', () => {
    it.each([1, 2, 20, 50, 200])('SMA(%i) equals TI and TS from the first bar', (period) => {
      const ours = sma(close, period);
      expectSeries(ours, padFront(TI.SMA.calculate({ period, values: closes }), n), EXACT);
      expectSeries(
        ours,
        streamed(new TS.SMA(period), closes, (v) => v),
        EXACT,
      );
    });

    it.each([2, 12, 20, 26, 200])('EMA(%i) equals TI (SMA seed, as ours) from the first bar', (period) => {
      expectSeries(ema(close, period), padFront(TI.EMA.calculate({ period, values: closes }), n), EXACT);
    });

    it.each([2, 12, 20, 26, 200])(
      'EMA(%i) equals TS once its first-price seed is accounted for',
      (period) => {
        // TS seeds with the first price and emits values from the first bar on. From index period - 1
        // both run the same recurrence, so their difference there decays as (1 - alpha)^k exactly.
        const ours = ema(close, period);
        const theirs = streamed(new TS.EMA(period), closes, (v) => v);
        const alpha = 2 / (period + 1);
        const start = period - 1;
        const gap = theirs[start]! - ours[start]!;
        const corrected = theirs.map((v, i) =>
          i < start ? Number.NaN : v - gap * (1 - alpha) ** (i - start),
        );
        expectSeries(ours, corrected, EXACT);
        // And plainly, from where the seed's weight is below 1e-12.
        expectSeries(ours, theirs, EXACT, start + barsToForget(alpha, 1e-12));
      },
    );
  });

  describe('RSI (Wilder)', () => {
    it.each([2, 14, 30])(
      'RSI(%i) equals TS (WSMA: SMA-seeded Wilder smoothing) from the first bar',
      (period) => {
        expectSeries(
          rsi(close, period),
          streamed(new TS.RSI(period), closes, (v) => v),
          EXACT,
        );
      },
    );

    it.each([2, 14, 30])('RSI(%i) equals 100 G / (G + L) of TI AverageGain and AverageLoss', (period) => {
      // TI's RSI rounds to two decimals; its Wilder averages do not, so they are compared exactly.
      const gain = padFront(TI.AverageGain.calculate({ period, values: closes }), n);
      const loss = padFront(TI.AverageLoss.calculate({ period, values: closes }), n);
      const theirs = gain.map((g, i) => (100 * g) / (g + loss[i]!));
      expectSeries(rsi(close, period), theirs, EXACT);
      // TI's own RSI, up to its rounding to 0.01.
      expectSeries(
        rsi(close, period),
        padFront(TI.RSI.calculate({ period, values: closes }), n),
        0.005 + EXACT,
      );
    });
  });

  describe('MACD', () => {
    it.each([
      [12, 26, 9],
      [5, 35, 5],
    ])(
      'MACD(%i, %i, %i) equals TI with EMA oscillator and signal, warm-ups included',
      (fast, slow, signal) => {
        const ours = macd(close, fast, slow, signal);
        const theirs = TI.MACD.calculate({
          values: closes,
          fastPeriod: fast,
          slowPeriod: slow,
          signalPeriod: signal,
          SimpleMAOscillator: false,
          SimpleMASignal: false,
        });
        expectSeries(
          ours.macd,
          padFront(
            theirs.map((m) => m.MACD),
            n,
          ),
          EXACT,
        );
        expectSeries(
          ours.signal,
          padFront(
            theirs.map((m) => m.signal),
            n,
          ),
          EXACT,
        );
        expectSeries(
          ours.histogram,
          padFront(
            theirs.map((m) => m.histogram),
            n,
          ),
          EXACT,
        );
      },
    );

    it('MACD(12, 26, 9) equals TS once the first-price seeds of its three EMAs have decayed', () => {
      const ours = macd(close, 12, 26, 9);
      const ts = new TS.MACD(new TS.EMA(12), new TS.EMA(26), new TS.EMA(9));
      const results = closes.map((c) => ts.update(c, false));
      const pick = (key: 'macd' | 'signal' | 'histogram') =>
        Float64Array.from(results, (r) => r?.[key] ?? Number.NaN);
      // The slowest seed (EMA(26), alpha 2/27) dominates; the signal's starts 25 bars later.
      const from = 25 + barsToForget(2 / 27, 1e-12);
      expectSeries(ours.macd, pick('macd'), EXACT, from);
      expectSeries(ours.signal, pick('signal'), EXACT, from);
      expectSeries(ours.histogram, pick('histogram'), EXACT, from);
    });
  });

  describe('Bollinger bands (population standard deviation)', () => {
    it.each([
      [20, 2],
      [10, 1.5],
      [50, 3],
    ])('Bollinger(%i, %f) equals TI and TS on all three bands from the first bar', (period, k) => {
      const ours = bollinger(close, period, k);
      const ti = TI.BollingerBands.calculate({ period, values: closes, stdDev: k });
      const ts = new TS.BollingerBands(period, k);
      const tsBands = closes.map((c) => ts.update(c, false));
      for (const band of ['upper', 'middle', 'lower'] as const) {
        expectSeries(
          ours[band],
          padFront(
            ti.map((b) => b[band]),
            n,
          ),
          EXACT,
        );
        expectSeries(
          ours[band],
          Float64Array.from(tsBands, (b) => b?.[band] ?? Number.NaN),
          EXACT,
        );
      }
    });
  });

  describe('the recording', () => {
    it('is the whole TSLA history', () => {
      expect(n).toBe(3303);
      expect(close.every((c) => c > 0)).toBe(true);
    });
  });
});

import * as TI from 'technicalindicators';
import * as TS from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { describeWithFixtures } from '../../../test/support/fixtures.ts';
import { expectSeries, padFront, streamed, tslaHistory } from '../../../test/support/indicator-golden.ts';
import { momentum, rateOfChange } from './momentum.ts';
import { atr, stochastic } from './range.ts';

/**
 * ATR, stochastic, momentum and rate of change against technicalindicators (TI) 3 and
 * trading-signals (TS) 8 on the recorded TSLA history; conventions and tolerances as in
 * golden.test.ts.
 */
describeWithFixtures('range and momentum indicators on the recorded TSLA history', () => {
  const { close, high, low, candles, n } = tslaHistory();
  const closes = Array.from(close);
  const highs = Array.from(high);
  const lows = Array.from(low);
  const EXACT = 1e-9;

  describe('ATR (Wilder)', () => {
    it.each([1, 5, 14, 50])(
      'ATR(%i) equals TS (first TR = high - low, SMA-seeded WSMA) from the first bar',
      (period) => {
        expectSeries(
          atr(high, low, close, period),
          streamed(new TS.ATR(period), candles, (v) => v),
          EXACT,
        );
      },
    );

    it.each([1, 5, 14, 50])('ATR(%i) equals TI given a neutral bar before the first', (period) => {
      // TI has no true range for the first bar (no previous close) and seeds with TR 1..period. A
      // leading bar whose close lies inside the first bar's range makes TI's TR of our first bar
      // high - low, exactly our convention; TI then emits one value per bar of ours.
      const theirs = TI.ATR.calculate({
        high: [high[0]!, ...highs],
        low: [low[0]!, ...lows],
        close: [(high[0]! + low[0]!) / 2, ...closes],
        period,
      });
      expectSeries(atr(high, low, close, period), padFront(theirs, n), EXACT);
    });
  });

  describe('stochastic oscillator', () => {
    it('has no range-free windows in this history (where TI and TS answer 0 and we 50)', () => {
      const raw = stochastic(high, low, close, 14, 1, 1).k;
      expect(raw.every((v, i) => i < 13 || (v >= 0 && v <= 100))).toBe(true);
      for (let i = 13; i < n; i++)
        expect(Math.max(...highs.slice(i - 13, i + 1))).toBeGreaterThan(
          Math.min(...lows.slice(i - 13, i + 1)),
        );
    });
    it.each([
      [14, 3, 3],
      [5, 3, 3],
      [21, 5, 4],
    ])('slow stochastic (%i, %i, %i) %%K and %%D equal TS', (kPeriod, kSmoothing, dPeriod) => {
      // TS emits only once %D exists; before that, TI below covers %K.
      const ours = stochastic(high, low, close, kPeriod, kSmoothing, dPeriod);
      const ts = new TS.StochasticOscillator({ kPeriod, kSlowingPeriod: kSmoothing, dPeriod });
      const results = candles.map((c) => ts.update(c, false));
      const dStart = kPeriod + kSmoothing + dPeriod - 3;
      expectSeries(
        ours.d,
        Float64Array.from(results, (r) => r?.stochD ?? Number.NaN),
        EXACT,
      );
      expectSeries(
        ours.k,
        Float64Array.from(results, (r) => r?.stochK ?? Number.NaN),
        EXACT,
        dStart,
      );
    });

    it.each([
      [14, 3],
      [5, 3],
      [21, 4],
    ])('fast stochastic (%i, 1, %i) equals TI Stochastic, warm-ups included', (kPeriod, dPeriod) => {
      // TI's Stochastic is the fast one: raw %K, and %D = SMA(signalPeriod) of it.
      const ours = stochastic(high, low, close, kPeriod, 1, dPeriod);
      const ti = TI.Stochastic.calculate({
        high: highs,
        low: lows,
        close: closes,
        period: kPeriod,
        signalPeriod: dPeriod,
      });
      expectSeries(
        ours.k,
        padFront(
          ti.map((s) => s.k),
          n,
        ),
        EXACT,
      );
      expectSeries(
        ours.d,
        padFront(
          ti.map((s) => s.d),
          n,
        ),
        EXACT,
      );
    });

    it('slow %K and %D equal TI SMA(3) of TI raw %K and SMA(3) of that, warm-ups included', () => {
      const ours = stochastic(high, low, close, 14, 3, 3);
      const raw = TI.Stochastic.calculate({
        high: highs,
        low: lows,
        close: closes,
        period: 14,
        signalPeriod: 3,
      }).map((s) => s.k);
      const k = TI.SMA.calculate({ period: 3, values: raw });
      const d = TI.SMA.calculate({ period: 3, values: k });
      expectSeries(ours.k, padFront(k, n), EXACT);
      expectSeries(ours.d, padFront(d, n), EXACT);
    });
  });

  describe('momentum and rate of change', () => {
    it.each([1, 10, 250])('momentum(%i) is bit-identical to TS MOM', (period) => {
      const ours = momentum(close, period);
      const theirs = streamed(new TS.MOM(period), closes, (v) => v);
      expect(expectSeries(ours, theirs, 0)).toBe(0);
    });

    it.each([1, 10, 250])('rateOfChange(%i) equals TI ROC and 100 x TS ROC', (period) => {
      const ours = rateOfChange(close, period);
      expectSeries(ours, padFront(TI.ROC.calculate({ period, values: closes }), n), EXACT);
      expectSeries(
        ours,
        streamed(new TS.ROC(period), closes, (v) => v * 100),
        EXACT,
      );
    });
  });
});

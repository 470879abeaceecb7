import * as TI from 'technicalindicators';
import * as TS from 'trading-signals';
import { describe, expect, it } from 'vitest';
import { fixtureJson } from '../../../test/support/fixtures.ts';
import { ema, sma } from './moving-averages.ts';
import { bollinger, macd, rsi } from './oscillators.ts';
import { atr, stochastic } from './range.ts';
import { annualizedVolatility, logReturns, pearson } from './statistics.ts';

/**
 * Every indicator against two independent implementations, on real data: Yahoo's recording of
 * TSLA's whole daily history (3,303 bars, split-adjusted). Where a library seeds differently
 * (trading-signals starts its EMA at the first price), only values after the seeds have converged
 * are compared; the tolerance is stated per check.
 */
interface Chart {
  chart: {
    result: Array<{
      indicators: { quote: Array<Record<'open' | 'high' | 'low' | 'close', Array<number | null>>> };
    }>;
  };
}
const quote = fixtureJson<{ chart: Chart['chart'] }>('yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json')
  .chart.result[0]!.indicators.quote[0]!;
const rows = quote.close
  .map((c, i) => ({ close: c, high: quote.high[i], low: quote.low[i] }))
  .filter(
    (r): r is { close: number; high: number; low: number } =>
      r.close != null && r.high != null && r.low != null,
  );
const close = Float64Array.from(rows, (r) => r.close);
const high = Float64Array.from(rows, (r) => r.high);
const low = Float64Array.from(rows, (r) => r.low);
const n = close.length;

/** The last `count` values of ours against theirs (aligned at the end), relative tolerance `tol`. */
function expectTail(ours: ArrayLike<number>, theirs: ArrayLike<number>, count: number, tol: number) {
  expect(theirs.length).toBeGreaterThanOrEqual(count);
  for (let i = 1; i <= count; i++) {
    const a = ours[ours.length - i]!;
    const b = theirs[theirs.length - i]!;
    expect(
      Math.abs(a - b) / Math.max(1, Math.abs(b)),
      `value ${i} from the end: ${a} vs ${b}`,
    ).toBeLessThanOrEqual(tol);
  }
}

const valid = (xs: ArrayLike<number>) => Array.from(xs).filter((x) => !Number.isNaN(x));

/** Feeds a trading-signals indicator one input at a time, keeping the values once it has any. */
function streamed<T>(indicator: { update(value: T, replace: boolean): unknown }, inputs: T[]): unknown[] {
  return inputs.map((x) => indicator.update(x, false)).filter((v) => v !== null && v !== undefined);
}

describe('indicators on the recorded TSLA history', () => {
  it('has the whole history', () => {
    expect(n).toBeGreaterThan(3000);
  });

  it('SMA(20) equals both libraries exactly, warm-up included', () => {
    const ours = valid(sma(close, 20));
    expect(ours).toHaveLength(n - 19);
    expectTail(ours, TI.SMA.calculate({ period: 20, values: Array.from(close) }), n - 19, 1e-12);
    expectTail(ours, streamed(new TS.SMA(20), Array.from(close)) as number[], n - 19, 1e-9);
  });

  it('EMA(20) equals technicalindicators (SMA seed) and trading-signals once its first-price seed has faded', () => {
    const ours = valid(ema(close, 20));
    expectTail(ours, TI.EMA.calculate({ period: 20, values: Array.from(close) }), n - 19, 1e-12);
    expectTail(ours, streamed(new TS.EMA(20), Array.from(close)) as number[], n - 400, 1e-9);
  });

  it('RSI(14) with Wilder smoothing equals both libraries', () => {
    const ours = valid(rsi(close, 14));
    expect(ours).toHaveLength(n - 14);
    const theirs = TI.RSI.calculate({ period: 14, values: Array.from(close) });
    // technicalindicators rounds RSI to two decimals.
    for (let i = 1; i <= n - 14; i++)
      expect(Math.abs(ours.at(-i)! - theirs.at(-i)!)).toBeLessThanOrEqual(0.0051);
    expectTail(ours, streamed(new TS.RSI(14), Array.from(close)) as number[], n - 300, 1e-9);
  });

  it('MACD(12, 26, 9) on EMAs equals technicalindicators', () => {
    const ours = macd(close, 12, 26, 9);
    const theirs = TI.MACD.calculate({
      values: Array.from(close),
      fastPeriod: 12,
      slowPeriod: 26,
      signalPeriod: 9,
      SimpleMAOscillator: false,
      SimpleMASignal: false,
    });
    const withSignal = theirs.filter((m) => m.signal !== undefined);
    expectTail(
      valid(ours.macd),
      theirs.map((m) => m.MACD!),
      n - 25,
      1e-9,
    );
    expectTail(
      valid(ours.signal),
      withSignal.map((m) => m.signal!),
      withSignal.length,
      1e-9,
    );
    expectTail(
      valid(ours.histogram),
      withSignal.map((m) => m.histogram!),
      withSignal.length,
      1e-9,
    );
    const ts = streamed(
      new TS.MACD(new TS.EMA(12), new TS.EMA(26), new TS.EMA(9)),
      Array.from(close),
    ) as Array<{ macd: number; signal: number; histogram: number }>;
    expectTail(
      valid(ours.histogram),
      ts.map((m) => m.histogram),
      n - 500,
      1e-8,
    );
  });

  it('Bollinger(20, 2) with the population deviation equals both libraries', () => {
    const ours = bollinger(close, 20, 2);
    const theirs = TI.BollingerBands.calculate({ period: 20, values: Array.from(close), stdDev: 2 });
    expectTail(
      valid(ours.upper),
      theirs.map((b) => b.upper),
      n - 19,
      1e-9,
    );
    expectTail(
      valid(ours.lower),
      theirs.map((b) => b.lower),
      n - 19,
      1e-9,
    );
    const ts = streamed(new TS.BollingerBands(20, 2), Array.from(close)) as Array<{
      upper: number;
      middle: number;
      lower: number;
    }>;
    expectTail(
      valid(ours.upper),
      ts.map((b) => b.upper),
      n - 19,
      1e-9,
    );
  });

  it('ATR(14) with Wilder smoothing equals both libraries once seeds agree', () => {
    const ours = valid(atr(high, low, close, 14));
    const theirs = TI.ATR.calculate({
      high: Array.from(high),
      low: Array.from(low),
      close: Array.from(close),
      period: 14,
    });
    expectTail(ours, theirs, n - 300, 1e-9);
    const candles = rows.map((r) => ({ high: r.high, low: r.low, close: r.close }));
    expectTail(ours, streamed(new TS.ATR(14), candles) as number[], n - 300, 1e-9);
  });

  it('slow stochastic (14, 3, 3) equals trading-signals; its raw %K equals technicalindicators', () => {
    const ours = stochastic(high, low, close, 14, 3, 3);
    const candles = rows.map((r) => ({ high: r.high, low: r.low, close: r.close }));
    const ts = streamed(
      new TS.StochasticOscillator({ kPeriod: 14, kSlowingPeriod: 3, dPeriod: 3 }),
      candles,
    ) as Array<{ stochK: number; stochD: number }>;
    expectTail(
      valid(ours.k),
      ts.map((s) => s.stochK),
      ts.length,
      1e-9,
    );
    expectTail(
      valid(ours.d),
      ts.map((s) => s.stochD),
      ts.length,
      1e-9,
    );
    const fast = stochastic(high, low, close, 14, 1, 3);
    const ti = TI.Stochastic.calculate({
      high: Array.from(high),
      low: Array.from(low),
      close: Array.from(close),
      period: 14,
      signalPeriod: 3,
    });
    expectTail(
      valid(fast.k),
      ti.map((s) => s.k),
      ti.length,
      1e-9,
    );
  });

  it('volatility and correlation equal their direct formulas', () => {
    const window = close.slice(-253);
    const r: number[] = [];
    for (let i = 1; i < window.length; i++) r.push(Math.log(window[i]! / window[i - 1]!));
    const m = r.reduce((s, x) => s + x, 0) / r.length;
    const sd = Math.sqrt(r.reduce((s, x) => s + (x - m) ** 2, 0) / (r.length - 1));
    expect(annualizedVolatility(window, 252)).toBeCloseTo(sd * Math.sqrt(252), 12);

    const a = logReturns(close.slice(-500, -250));
    const b = logReturns(close.slice(-250));
    const ma = a.reduce((s, x) => s + x, 0) / a.length;
    const mb = b.reduce((s, x) => s + x, 0) / b.length;
    let cov = 0;
    let va = 0;
    let vb = 0;
    for (let i = 0; i < a.length; i++) {
      cov += (a[i]! - ma) * (b[i]! - mb);
      va += (a[i]! - ma) ** 2;
      vb += (b[i]! - mb) ** 2;
    }
    expect(pearson(a, b)).toBeCloseTo(cov / Math.sqrt(va * vb), 12);
  });
});

import * as TI from 'technicalindicators';
import * as TS from 'trading-signals';
import { ema, sma } from '../../src/quant/indicators/moving-averages.ts';
import { bollinger, macd, rsi } from '../../src/quant/indicators/oscillators.ts';
import { atr, stochastic } from '../../src/quant/indicators/range.ts';
import { fixtureJson } from '../support/fixtures.ts';
import { table } from './stats.ts';

/**
 * Indicator throughput: Vigil's typed-array indicators against technicalindicators (TI) 3 and
 * trading-signals (TS) 8, on the same input in the same run. Inputs: the last ten years of TSLA's
 * recorded daily history (2,520 real bars, what an FK-DSL query computes on; its `ms` columns are
 * the time per ten-year series) and a 100,000-bar synthetic random walk. Each library computes the
 * whole series as its users would: TI's `calculate` on plain arrays, TS's `updates` (its batch form
 * of the streaming `update`) on plain arrays or prebuilt candles (building them is not timed),
 * Vigil on Float64Arrays. Each figure is the median of nine samples taken round-robin across the
 * three after a warm-up; a sample repeats the computation for about 30 ms, after a full GC so that
 * one library's garbage is not collected on another's time (its own is). The last column checks
 * that the three computed the same last value (1e-6; TI's RSI is rounded to 0.01), so like is
 * timed against like.
 */
const WARMUP_MS = 300;
const SAMPLE_MS = 30;
const SAMPLES = 9;

interface Data {
  readonly close: Float64Array;
  readonly high: Float64Array;
  readonly low: Float64Array;
  readonly closes: number[];
  readonly highs: number[];
  readonly lows: number[];
  readonly candles: Array<{ high: number; low: number; close: number }>;
}

function data(close: Float64Array, high: Float64Array, low: Float64Array): Data {
  return {
    close,
    high,
    low,
    closes: Array.from(close),
    highs: Array.from(high),
    lows: Array.from(low),
    candles: Array.from(close, (c, i) => ({ high: high[i]!, low: low[i]!, close: c })),
  };
}

function tslaTenYears(): Data {
  interface Chart {
    chart: {
      result: Array<{ indicators: { quote: Array<Record<'high' | 'low' | 'close', Array<number | null>>> } }>;
    };
  }
  const q = fixtureJson<Chart>('yahoo/chart-v8-TSLA-1d-period1-0-to-2023-08-12.json').chart.result[0]!
    .indicators.quote[0]!;
  const rows = q.close.map((c, i) => [c, q.high[i], q.low[i]]).filter((r) => r.every((v) => v != null));
  const last = rows.slice(-2_520) as number[][];
  return data(
    Float64Array.from(last, (r) => r[0]!),
    Float64Array.from(last, (r) => r[1]!),
    Float64Array.from(last, (r) => r[2]!),
  );
}

function randomWalk(n: number): Data {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const close = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  let price = 100;
  for (let i = 0; i < n; i++) {
    price *= Math.exp((rand() - 0.5) * 0.04);
    close[i] = price;
    high[i] = price * (1 + rand() * 0.02);
    low[i] = price * (1 - rand() * 0.02);
  }
  return data(close, high, low);
}

/** A timed computation; returns one value of its output (kept, so nothing is optimised away). */
type Impl = (d: Data) => number;

/**
 * Runs a TS indicator over the inputs with its own batch method, `updates` (one result per input,
 * null during the warm-up), so it produces the whole series as the other two do; returns the last.
 */
function series<I, O>(
  indicator: { updates(inputs: I[], replace?: boolean): Array<O | null> },
  inputs: I[],
): O {
  return indicator.updates(inputs).at(-1)!;
}

interface Case {
  readonly name: string;
  readonly vigil: Impl;
  readonly ti: Impl;
  readonly ts: Impl;
  /** What Vigil computes under TI's convention, where TI's output differs (for the agreement check). */
  readonly vigilAsTi?: Impl;
  /** Agreement tolerance with TI, where TI rounds its output. */
  readonly tiTolerance?: number;
}

const CASES: Case[] = [
  {
    name: 'SMA(20)',
    vigil: (d) => sma(d.close, 20).at(-1)!,
    ti: (d) => TI.SMA.calculate({ period: 20, values: d.closes }).at(-1)!,
    ts: (d) => series(new TS.SMA(20), d.closes),
  },
  {
    name: 'EMA(20)',
    vigil: (d) => ema(d.close, 20).at(-1)!,
    ti: (d) => TI.EMA.calculate({ period: 20, values: d.closes }).at(-1)!,
    ts: (d) => series(new TS.EMA(20), d.closes),
  },
  {
    name: 'RSI(14)',
    vigil: (d) => rsi(d.close, 14).at(-1)!,
    ti: (d) => TI.RSI.calculate({ period: 14, values: d.closes }).at(-1)!,
    ts: (d) => series(new TS.RSI(14), d.closes),
    tiTolerance: 0.005, // TI rounds RSI to two decimals
  },
  {
    name: 'MACD(12,26,9)',
    vigil: (d) => macd(d.close, 12, 26, 9).histogram.at(-1)!,
    ti: (d) =>
      TI.MACD.calculate({
        values: d.closes,
        fastPeriod: 12,
        slowPeriod: 26,
        signalPeriod: 9,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      }).at(-1)!.histogram!,
    ts: (d) => series(new TS.MACD(new TS.EMA(12), new TS.EMA(26), new TS.EMA(9)), d.closes).histogram,
  },
  {
    name: 'Bollinger(20,2)',
    vigil: (d) => bollinger(d.close, 20, 2).upper.at(-1)!,
    ti: (d) => TI.BollingerBands.calculate({ period: 20, values: d.closes, stdDev: 2 }).at(-1)!.upper,
    ts: (d) => series(new TS.BollingerBands(20, 2), d.closes).upper,
  },
  {
    name: 'ATR(14)',
    vigil: (d) => atr(d.high, d.low, d.close, 14).at(-1)!,
    ti: (d) => TI.ATR.calculate({ high: d.highs, low: d.lows, close: d.closes, period: 14 }).at(-1)!,
    ts: (d) => series(new TS.ATR(14), d.candles),
  },
  {
    // TI's Stochastic is the fast one (raw %K and its SMA(3)): it does one smoothing less.
    name: 'Stochastic(14,3,3)',
    vigil: (d) => stochastic(d.high, d.low, d.close, 14, 3, 3).d.at(-1)!,
    ti: (d) =>
      TI.Stochastic.calculate({
        high: d.highs,
        low: d.lows,
        close: d.closes,
        period: 14,
        signalPeriod: 3,
      }).at(-1)!.d,
    ts: (d) =>
      series(new TS.StochasticOscillator({ kPeriod: 14, kSlowingPeriod: 3, dPeriod: 3 }), d.candles).stochD,
    vigilAsTi: (d) => stochastic(d.high, d.low, d.close, 14, 1, 3).d.at(-1)!,
  },
];

/** Every timed result is added here, so that no computation can be optimised away (and checked). */
let sink = 0;

/** Repetitions that make one sample last about SAMPLE_MS, after running `fn` for WARMUP_MS. */
function calibrate(fn: Impl, d: Data): number {
  const start = performance.now();
  let calls = 0;
  while (performance.now() - start < WARMUP_MS || calls < 3) {
    sink += fn(d);
    calls++;
  }
  return Math.max(1, Math.round((SAMPLE_MS * calls) / (performance.now() - start)));
}

/** Milliseconds per call over one sample. */
function sample(fn: Impl, d: Data, reps: number): number {
  globalThis.gc?.();
  const start = performance.now();
  for (let i = 0; i < reps; i++) sink += fn(d);
  return (performance.now() - start) / reps;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const agrees = (a: number, b: number, tolerance = 1e-6) =>
  Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));

export async function run(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  const speedups: Record<string, number[]> = {};
  // One input set at a time: typed arrays are collected by full GCs, whose cost grows with the heap.
  for (const [label, make] of [
    ['TSLA 10y', tslaTenYears],
    ['walk 100k', () => randomWalk(100_000)],
  ] as const) {
    const d = make();
    const n = d.close.length;
    for (const c of CASES) {
      const impls = [c.vigil, c.ti, c.ts];
      const reps = impls.map((fn) => calibrate(fn, d));
      const times: number[][] = [[], [], []];
      // Round-robin, so that drifts in machine load spread over all three.
      for (let s = 0; s < SAMPLES; s++)
        for (let k = 0; k < 3; k++) times[k]!.push(sample(impls[k]!, d, reps[k]!));
      const [v, ti, ts] = times.map(median) as [number, number, number];
      const ok = agrees(c.ti(d), (c.vigilAsTi ?? c.vigil)(d), c.tiTolerance) && agrees(c.ts(d), c.vigil(d));
      speedups[label] = [...(speedups[label] ?? []), ti / v, ts / v];
      rows.push({
        series: label,
        bars: n,
        indicator: c.name,
        'vigil ms': v,
        'TI ms': ti,
        'TS ms': ts,
        'vigil Mbars/s': n / v / 1_000,
        'TI Mbars/s': n / ti / 1_000,
        'TS Mbars/s': n / ts / 1_000,
        'x vs TI': ti / v,
        'x vs TS': ts / v,
        'same value': ok ? 'yes' : 'NO',
      });
    }
  }
  process.stdout.write(`${table(rows)}\n`);
  for (const [label, xs] of Object.entries(speedups)) {
    const geo = Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
    process.stdout.write(
      `${label}: Vigil is ${geo.toFixed(1)}x faster (geometric mean over both libraries), ${Math.min(...xs).toFixed(1)}x at least\n`,
    );
  }
  if (!Number.isFinite(sink))
    process.stdout.write('warning: a timed computation returned a non-finite value\n');
}

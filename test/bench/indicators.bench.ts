import * as TI from 'technicalindicators';
import * as TS from 'trading-signals';
import { ema, sma } from '../../src/fk-dsl/indicators/moving-averages.ts';
import { bollinger, macd, rsi } from '../../src/fk-dsl/indicators/oscillators.ts';
import { atr, stochastic } from '../../src/fk-dsl/indicators/range.ts';
import { table } from './stats.ts';

/**
 * Indicator throughput: Vigil's typed-array indicators against technicalindicators and
 * trading-signals on the same input in the same run: a ten-year daily series (2,520 bars) and a
 * long one (100,000 points). Figures are the median of several timed rounds after a warm-up.
 */
const SIZES = [2_520, 100_000];

function series(n: number) {
  let price = 100;
  let seed = 42;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const close = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    price *= Math.exp((rand() - 0.5) * 0.04);
    close[i] = price;
    high[i] = price * (1 + rand() * 0.02);
    low[i] = price * (1 - rand() * 0.02);
  }
  return {
    close,
    high,
    low,
    closeArr: Array.from(close),
    highArr: Array.from(high),
    lowArr: Array.from(low),
  };
}

type Data = ReturnType<typeof series>;
type Impl = (d: Data) => unknown;

const feed = <T>(indicator: { update(v: T, replace: boolean): unknown }, inputs: T[]) => {
  let last: unknown;
  for (const x of inputs) last = indicator.update(x, false);
  return last;
};
const candles = (d: Data) => d.closeArr.map((c, i) => ({ close: c, high: d.highArr[i]!, low: d.lowArr[i]! }));

const CASES: Array<{ name: string; vigil: Impl; ti: Impl; ts: Impl }> = [
  {
    name: 'SMA(20)',
    vigil: (d) => sma(d.close, 20),
    ti: (d) => TI.SMA.calculate({ period: 20, values: d.closeArr }),
    ts: (d) => feed(new TS.SMA(20), d.closeArr),
  },
  {
    name: 'EMA(20)',
    vigil: (d) => ema(d.close, 20),
    ti: (d) => TI.EMA.calculate({ period: 20, values: d.closeArr }),
    ts: (d) => feed(new TS.EMA(20), d.closeArr),
  },
  {
    name: 'RSI(14)',
    vigil: (d) => rsi(d.close, 14),
    ti: (d) => TI.RSI.calculate({ period: 14, values: d.closeArr }),
    ts: (d) => feed(new TS.RSI(14), d.closeArr),
  },
  {
    name: 'MACD(12,26,9)',
    vigil: (d) => macd(d.close, 12, 26, 9),
    ti: (d) =>
      TI.MACD.calculate({
        values: d.closeArr,
        fastPeriod: 12,
        slowPeriod: 26,
        signalPeriod: 9,
        SimpleMAOscillator: false,
        SimpleMASignal: false,
      }),
    ts: (d) => feed(new TS.MACD(new TS.EMA(12), new TS.EMA(26), new TS.EMA(9)), d.closeArr),
  },
  {
    name: 'Bollinger(20,2)',
    vigil: (d) => bollinger(d.close, 20, 2),
    ti: (d) => TI.BollingerBands.calculate({ period: 20, values: d.closeArr, stdDev: 2 }),
    ts: (d) => feed(new TS.BollingerBands(20, 2), d.closeArr),
  },
  {
    name: 'ATR(14)',
    vigil: (d) => atr(d.high, d.low, d.close, 14),
    ti: (d) => TI.ATR.calculate({ high: d.highArr, low: d.lowArr, close: d.closeArr, period: 14 }),
    ts: (d) => feed(new TS.ATR(14), candles(d)),
  },
  {
    name: 'Stochastic(14,3,3)',
    vigil: (d) => stochastic(d.high, d.low, d.close, 14, 3, 3),
    ti: (d) =>
      TI.Stochastic.calculate({
        high: d.highArr,
        low: d.lowArr,
        close: d.closeArr,
        period: 14,
        signalPeriod: 3,
      }),
    ts: (d) => feed(new TS.StochasticOscillator({ kPeriod: 14, kSlowingPeriod: 3, dPeriod: 3 }), candles(d)),
  },
];

function time(fn: Impl, data: Data, budgetMs: number): number {
  for (let i = 0; i < 3; i++) fn(data);
  const rounds: number[] = [];
  const deadline = performance.now() + budgetMs;
  while (rounds.length < 5 || (performance.now() < deadline && rounds.length < 200)) {
    const t0 = performance.now();
    fn(data);
    rounds.push(performance.now() - t0);
  }
  rounds.sort((a, b) => a - b);
  return rounds[Math.floor(rounds.length / 2)]!;
}

export async function run(): Promise<void> {
  const rows: Array<Record<string, string | number>> = [];
  for (const n of SIZES) {
    const data = series(n);
    const budget = n > 10_000 ? 1_500 : 400;
    for (const c of CASES) {
      const v = time(c.vigil, data, budget);
      const ti = time(c.ti, data, budget);
      const ts = time(c.ts, data, budget);
      rows.push({
        points: n,
        indicator: c.name,
        'vigil ms': v,
        'technicalindicators ms': ti,
        'trading-signals ms': ts,
        'x vs TI': ti / v,
        'x vs TS': ts / v,
        'vigil Mpts/s': n / v / 1000,
      });
    }
  }
  process.stdout.write(`${table(rows)}\n`);
}

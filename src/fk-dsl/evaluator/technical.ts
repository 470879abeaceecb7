import type { Bar } from '../../market-data/types.ts';
import { atr, stochastic } from '../../quant/indicators/index.ts';
import { ema, sma } from '../../quant/indicators/moving-averages.ts';
import { bollinger, macd, rsi } from '../../quant/indicators/oscillators.ts';
import type { MetricCall } from '../ast.ts';
import { FkDslQueryError } from '../errors.ts';
import { toWindow } from './windows.ts';

/**
 * The technical indicators of FK-DSL (RSI, SMA, EMA, MACD, BOLLINGER_BANDS, ATR, STOCH): their
 * periods as the call gives them (or the conventional defaults), and their latest value over a
 * series of daily bars. A value still inside the indicator's warm-up is null.
 */

export const numberArg = (call: MetricCall, i: number, fallback: number): number => {
  const a = call.args[i];
  return a?.kind === 'number' ? a.value : fallback;
};

/** Bars the indicator needs before its first value (its longest period, smoothings included). */
export function indicatorPeriod(call: MetricCall): number {
  switch (call.name) {
    case 'MACD':
      return numberArg(call, 1, 26) + numberArg(call, 2, 9);
    case 'BOLLINGER_BANDS':
      return numberArg(call, 0, 20);
    case 'STOCH':
      return numberArg(call, 0, 14) + numberArg(call, 1, 3) + numberArg(call, 2, 3);
    case 'SMA':
    case 'EMA': {
      const a = call.args[0];
      return a?.kind === 'number' ? a.value : a?.kind === 'duration' ? toWindow(a, 1, 'equity').bars : 1;
    }
    default:
      return numberArg(call, 0, 14);
  }
}

type Latest = number | null;

/** The indicator's latest value over `bars` (oldest first); MACD, Bollinger and STOCH give several. */
export function technicalValue(call: MetricCall, bars: readonly Bar[]): Latest | Record<string, Latest> {
  const c = Float64Array.from(bars, (b) => b.close);
  const highs = () => Float64Array.from(bars, (b) => b.high);
  const lows = () => Float64Array.from(bars, (b) => b.low);
  switch (call.name) {
    case 'RSI':
      return lastOf(rsi(c, numberArg(call, 0, 14)));
    case 'SMA':
      return lastOf(sma(c, indicatorPeriod(call)));
    case 'EMA':
      return lastOf(ema(c, indicatorPeriod(call)));
    case 'MACD': {
      const m = macd(c, numberArg(call, 0, 12), numberArg(call, 1, 26), numberArg(call, 2, 9));
      return { macd: lastOf(m.macd), signal: lastOf(m.signal), histogram: lastOf(m.histogram) };
    }
    case 'BOLLINGER_BANDS': {
      const b = bollinger(c, numberArg(call, 0, 20), numberArg(call, 1, 2));
      const upper = lastOf(b.upper);
      const lower = lastOf(b.lower);
      const close = c[c.length - 1]!;
      return {
        upper,
        middle: lastOf(b.middle),
        lower,
        percentB:
          upper !== null && lower !== null && upper > lower ? (close - lower) / (upper - lower) : null,
      };
    }
    case 'ATR':
      return lastOf(atr(highs(), lows(), c, numberArg(call, 0, 14)));
    case 'STOCH': {
      const s = stochastic(
        highs(),
        lows(),
        c,
        numberArg(call, 0, 14),
        numberArg(call, 1, 3),
        numberArg(call, 2, 3),
      );
      return { k: lastOf(s.k), d: lastOf(s.d) };
    }
    default:
      throw new FkDslQueryError(`${call.name} is not computable here`);
  }
}

function lastOf(series: ArrayLike<number>): Latest {
  const v = series[series.length - 1];
  return v === undefined || Number.isNaN(v) ? null : v;
}

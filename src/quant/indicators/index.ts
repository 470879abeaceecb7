import { ANNUALISED_DAILY } from '../periods.ts';

export { momentum, rateOfChange, sharpe } from './momentum.ts';
export { ema, sma } from './moving-averages.ts';
export { type BollingerSeries, bollinger, type MacdSeries, macd, rsi } from './oscillators.ts';
export { atr, type StochasticSeries, stochastic } from './range.ts';
export {
  annualizedVolatility,
  beta,
  drawdownSeries,
  logReturns,
  maxDrawdown,
  mean,
  pearson,
  sampleStdDev,
} from './statistics.ts';

/**
 * How each indicator is computed, with its default parameters and warm-up (the number of leading
 * bars without a value); returned with every FK-DSL result. Keys are the FK-DSL metric names.
 */
export const INDICATOR_CONVENTIONS: Readonly<Record<string, string>> = {
  SMA: 'SMA(n): mean of the last n closes; warm-up n - 1 bars',
  EMA: 'EMA(n): alpha = 2 / (n + 1), seeded with the SMA of the first n closes; warm-up n - 1 bars',
  RSI:
    'RSI: Wilder smoothing (first averages = simple means of the first changes, then (prev * (n - 1) + x) / n), ' +
    'period 14, warm-up 14 bars; 100 * avg gain / (avg gain + avg loss), 50 when the price did not move',
  MACD:
    'MACD: EMA(12) - EMA(26) of closes (SMA-seeded), signal EMA(9) of the line, histogram line - signal; ' +
    'warm-up 25 bars (line), 33 bars (signal, histogram)',
  BOLLINGER_BANDS:
    'BOLLINGER_BANDS: SMA(20) ± 2 population standard deviations (divisor n) of the same 20 closes; ' +
    '%B = (close - lower) / (upper - lower); warm-up 19 bars',
  ATR:
    'ATR: true range max(high - low, |high - previous close|, |low - previous close|) (high - low on the first bar), ' +
    'Wilder smoothing, period 14, seeded with the mean of the first 14 true ranges; warm-up 13 bars',
  STOCH:
    'STOCH: slow stochastic; raw %K = 100 * (close - lowest low) / (highest high - lowest low) over 14 bars ' +
    '(50 when that range is 0), %K = SMA(3) of raw %K, %D = SMA(3) of %K; warm-up 15 bars (%K), 17 bars (%D)',
  MOMENTUM:
    'MOMENTUM: rate of change (close / close n bars earlier - 1) x 100 over the window (default 10 bars); ' +
    'PRICE_CHANGE is the same over a window that must be given',
  VOLATILITY: `VOLATILITY: sample standard deviation (n - 1) of daily log returns ${ANNUALISED_DAILY}, in percent`,
  CORRELATE: 'CORRELATE: Pearson correlation of daily log returns on the dates both series have',
  SHARPE: `SHARPE: mean / sample standard deviation of daily log returns ${ANNUALISED_DAILY}, risk-free rate 0`,
  DRAWDOWN: 'DRAWDOWN: largest fall from a running peak of closes within the window, in percent',
};

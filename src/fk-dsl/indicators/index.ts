export { momentum, rateOfChange, sharpe } from './momentum.ts';
export { ema, sma } from './moving-averages.ts';
export { bollinger, macd, rsi } from './oscillators.ts';
export { atr, stochastic } from './range.ts';
export {
  annualizedVolatility,
  beta,
  logReturns,
  maxDrawdown,
  mean,
  pearson,
  sampleStdDev,
} from './statistics.ts';

/** How each indicator is computed; returned with every FK-DSL result. */
export const INDICATOR_CONVENTIONS: Readonly<Record<string, string>> = {
  SMA: 'simple mean of the last n closes; warm-up n - 1 bars',
  EMA: 'alpha = 2 / (n + 1), seeded with the SMA of the first n closes; warm-up n - 1 bars',
  RSI: 'Wilder smoothing, default period 14; first value after period changes; 100 with no losses, 50 when flat',
  MACD: 'EMA(12) - EMA(26) of closes, signal EMA(9) of the line, histogram line - signal; warm-up 25 / 33 bars',
  BOLLINGER_BANDS:
    'SMA(20) ± 2 population standard deviations of the same window; %B = (close - lower) / (upper - lower)',
  ATR: 'true range max(h-l, |h-prevC|, |l-prevC|), Wilder smoothing period 14, seeded with the mean of the first 14',
  STOCH:
    'slow stochastic: raw %K over 14 bars (50 when the range is 0), %K = SMA(3) of raw, %D = SMA(3) of %K',
  SHARPE: 'mean / sample sd of daily log returns x sqrt(252) (365 crypto), risk-free rate 0',
  DRAWDOWN: 'largest fall from a running peak of closes within the window, in percent',
  BETA: 'cov / var of daily log returns against the benchmark (SPY; BTC/USDT for crypto) on common dates',
  indicatorHistory:
    'indicators are computed over at least 250 daily bars (or 5 x their period) so smoothing has settled',
};

/** Representative queries from docs/fk-dsl.md, for the "Example" select. */
export const EXAMPLES: readonly { label: string; query: string }[] = [
  {
    label: 'Evaluate prices and indicators (AAPL)',
    query:
      'EVALUATE AAPL: PRICE, CHANGE, VOLATILITY(30d), TECHNICAL(RSI, MACD, BOLLINGER_BANDS, SMA(20)), BETA, SHARPE',
  },
  {
    label: 'Evaluate a crypto pair (BTC/USDT)',
    query: 'EVALUATE BTC/USDT: PRICE, CHANGE, RSI(14), EMA(20), ATR(14)',
  },
  {
    label: 'Scan US equities with WHERE',
    query:
      'SCAN US WHERE RSI < 30 AND VOLUME > AVG_VOLUME(30d) * 2 AND PRICE ABOVE SMA(200)\n  ORDER BY VOLATILITY(30d) DESC LIMIT 10',
  },
  {
    label: 'Scan a list of symbols',
    query:
      'SCAN [AAPL, MSFT, NVDA, TSLA] WHERE CHANGE BETWEEN -5% AND 5%\n  ORDER BY VOLATILITY(30d) DESC LIMIT 10',
  },
  { label: 'Correlation of crypto pairs', query: 'CORRELATE BTC/USDT WITH ETH/USDT, SOL/USDT WINDOW 60d' },
  { label: 'Correlation of equities', query: 'CORRELATE AAPL, MSFT, NVDA PERIOD(90d)' },
  {
    label: 'Volatility compared',
    query:
      'COMPARE AAPL VS MSFT VS NVDA ON: VOLATILITY(30d), VOLATILITY(90d), DRAWDOWN(1y), PRICE_CHANGE(3m)',
  },
  { label: 'Macro regression', query: 'MACRO: US10Y, VIX -> REGRESSION ON SPY WINDOW 2y' },
  { label: 'Explain a statement', query: 'EXPLAIN EVALUATE TSLA: ATR, STOCH(14, 3, 3)' },
];

import { describe, expect, it } from 'vitest';
import { FkDslQueryError } from './errors.ts';
import { MAX_INDICATOR_PERIOD, METRICS } from './metrics-catalog.ts';
import { parse } from './parser.ts';
import { validateProgram } from './validate.ts';

const check = (query: string) => validateProgram(parse(query));

function refusal(query: string): FkDslQueryError {
  try {
    check(query);
  } catch (error) {
    expect(error).toBeInstanceOf(FkDslQueryError);
    return error as FkDslQueryError;
  }
  throw new Error(`${query} was accepted`);
}

describe('FK-DSL argument validation', () => {
  it.each([
    ['EVALUATE AAPL: BOLLINGER_BANDS(20, -5)', 'deviations', 'from 0.1 to 10'],
    ['EVALUATE AAPL: BOLLINGER_BANDS(20, 11)', 'deviations', 'from 0.1 to 10'],
    ['EVALUATE AAPL: BOLLINGER_BANDS(1)', 'period', 'a whole number from 2 to 500'],
    ['EVALUATE AAPL: RSI(-3)', 'period', 'a whole number from 2 to 500'],
    ['EVALUATE AAPL: RSI(2.5)', 'period', 'a whole number from 2 to 500'],
    ['EVALUATE AAPL: RSI(100000)', 'period', 'a whole number from 2 to 500'],
    ['EVALUATE AAPL: ATR(0)', 'period', 'a whole number from 1 to 500'],
    ['EVALUATE AAPL: MACD(12, 26, 0)', 'signal', 'a whole number from 1 to 500'],
    ['EVALUATE AAPL: MACD(30, 26)', 'fast', 'must be shorter than slow (26)'],
    ['EVALUATE AAPL: STOCH(14, 3, 9999)', 'd', 'a whole number from 1 to 500'],
    ['EVALUATE AAPL: SMA(501)', 'period', 'a whole number from 1 to 500'],
    ['EVALUATE AAPL: EMA(24h)', 'period', 'a number of daily bars'],
    ['EVALUATE AAPL: VOLATILITY(1)', 'window', 'at least 2'],
    ['EVALUATE AAPL: BETA(SPY, 2d)', 'window', 'at least 3 bars'],
    ['SCAN US WHERE TECHNICAL(RSI(1)) > 0', 'period', 'from 2 to 500'],
    ['SCAN US WHERE PRICE ABOVE SMA(9999)', 'period', 'from 1 to 500'],
    ['SCAN US WHERE RSI < 30 ORDER BY SHARPE(1)', 'window', 'at least 2'],
  ])('refuses %j, naming the argument and its range', (query, argument, range) => {
    const error = refusal(query);
    expect(error.code).toBe('FKDSL_QUERY_ERROR');
    expect(error.message).toContain(`${argument} `);
    expect(error.message).toContain(range);
    expect(error.message).toMatch(/\(line 1, column \d+\)/);
    expect(error.details).toMatchObject({ argument });
  });

  it.each([
    ['SCAN [AAPL, AAPL, AAPL] WHERE PRICE > 0', 'AAPL'],
    ['SCAN [aapl, MSFT, AAPL] WHERE PRICE > 0', 'AAPL'],
    ['SCAN [BTC/USDT, btcusdt] WHERE PRICE > 0', 'btcusdt'],
    ['COMPARE AAPL VS AAPL ON: PRICE', 'AAPL'],
    ['CORRELATE AAPL WITH MSFT, AAPL', 'AAPL'],
    ['MACRO: CPI, CPI -> REGRESSION ON SPY', 'CPI'],
    ['MACRO: SPY -> CORRELATION ON SPY', 'SPY'],
    ['EVALUATE AAPL: CORRELATE(MSFT, MSFT)', 'MSFT'],
  ])('refuses %j, which names an asset twice', (query, symbol) => {
    const error = refusal(query);
    expect(error.message).toContain(`${symbol} is listed twice`);
    expect(error.details).toMatchObject({ argument: 'assets' });
  });

  it('refuses statement windows that cannot work: hourly MACRO data, two-bar correlations', () => {
    expect(refusal('MACRO: CPI -> REGRESSION ON SPY WINDOW 500h').message).toMatch(/^MACRO window: /);
    expect(refusal('CORRELATE AAPL, MSFT PERIOD(2d)').message).toContain('at least 3 bars');
  });

  it('never echoes a long symbol in full', () => {
    const long = `X${'Y'.repeat(200)}`;
    expect(refusal(`SCAN [${long}, ${long}] WHERE PRICE > 0`).message.length).toBeLessThan(120);
  });

  it('accepts every default and the edges of every range', () => {
    for (const spec of METRICS.values()) {
      if (spec.params.every((p) => p.default !== undefined || p.optional))
        expect(() => check(`EVALUATE AAPL: ${spec.name}`), spec.name).not.toThrow();
    }
    expect(() =>
      check(
        `EVALUATE AAPL: RSI(2), RSI(${MAX_INDICATOR_PERIOD}), BOLLINGER_BANDS(2, 0.1), BOLLINGER_BANDS(20, 10), ` +
          'MACD(1, 2, 1), STOCH(1, 1, 1), ATR(1), SMA(1), SMA(1y), EMA(500), VOLATILITY(2), VOLATILITY(24h), ' +
          'BETA(QQQ, 3), CORRELATE(MSFT, GOOGL, 3), SHARPE(2), DRAWDOWN(1), VOLUME(1), TECHNICAL(RSI, MACD)',
      ),
    ).not.toThrow();
    expect(() =>
      check(
        'SCAN [AAPL, MSFT] WHERE RSI(14) < 30 AND PRICE ABOVE SMA(200); CORRELATE AAPL, MSFT PERIOD(3d); EXPLAIN COMPARE AAPL VS MSFT ON: PE',
      ),
    ).not.toThrow();
  });

  it('checks EXPLAIN statements too', () => {
    expect(refusal('EXPLAIN EVALUATE AAPL: RSI(0)').details).toMatchObject({
      metric: 'RSI',
      argument: 'period',
    });
  });
});

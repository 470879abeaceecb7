import { describe, expect, it } from 'vitest';
import { withoutPositions } from './ast.ts';
import { FkDslSyntaxError } from './errors.ts';
import { parse } from './parser.ts';
import { print } from './printer.ts';

const ast = (source: string) => withoutPositions(parse(source));

describe('FK-DSL parser', () => {
  it('parses every statement form of the language', () => {
    expect(
      ast('EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD, BOLLINGER_BANDS, SMA(20))'),
    ).toEqual({
      statements: [
        {
          kind: 'evaluate',
          asset: { kind: 'asset', symbol: 'AAPL' },
          metrics: [
            { kind: 'metric', name: 'PRICE', args: [] },
            { kind: 'metric', name: 'VOLATILITY', args: [{ kind: 'duration', value: 30, unit: 'd' }] },
            {
              kind: 'metric',
              name: 'TECHNICAL',
              args: [
                { kind: 'metric', name: 'RSI', args: [] },
                { kind: 'metric', name: 'MACD', args: [] },
                { kind: 'metric', name: 'BOLLINGER_BANDS', args: [] },
                { kind: 'metric', name: 'SMA', args: [{ kind: 'number', value: 20, percent: false }] },
              ],
            },
          ],
        },
      ],
    });
    expect(ast('CORRELATE AAPL, MSFT, GOOGL PERIOD(90d)').statements[0]).toEqual({
      kind: 'correlate',
      form: 'period',
      assets: ['AAPL', 'MSFT', 'GOOGL'].map((symbol) => ({ kind: 'asset', symbol })),
      window: { kind: 'duration', value: 90, unit: 'd' },
    });
  });

  it('reads keywords and metric names in any case, and symbols with dots, slashes, dashes, =X and ^', () => {
    const program = ast(
      'evaluate brk.b: price, rsi(14); Evaluate BTC/USDT: change; EVALUATE btc-usd: Volatility(1y); EVALUATE EURUSD=X: PRICE; EVALUATE ^GSPC: PRICE',
    );
    expect(program.statements.map((s) => (s.kind === 'evaluate' ? s.asset.symbol : ''))).toEqual([
      'brk.b',
      'BTC/USDT',
      'btc-usd',
      'EURUSD=X',
      '^GSPC',
    ]);
    expect(program.statements[0]).toMatchObject({ metrics: [{ name: 'PRICE' }, { name: 'RSI' }] });
  });

  it('parses COMPARE, CORRELATE ... WITH, MACRO and SCAN with every condition form', () => {
    const program = ast(`
      -- comments are allowed
      COMPARE AAPL vs MSFT VS GOOGL ON: PRICE, PE;
      CORRELATE BTC/USDT WITH ETH/USDT, SOL/USDT WINDOW 30d; /* block
      comment */
      MACRO: US10Y, CPI -> regression ON SPY WINDOW 5y;
      MACRO: VIX -> CAUSALITY ON QQQ LAGS 3;
      SCAN US WHERE RSI < 30 AND CHANGE > -2.5% AND VOLUME > AVG_VOLUME(30d) * 2
        AND PRICE BETWEEN 10 AND 500 AND PRICE ABOVE SMA(200) AND TREND IS BULLISH
        ORDER BY VOLATILITY(30d) ASC LIMIT 10;
      SCAN [AAPL, "ON", BRK.B] WHERE PE <= 30
    `);
    expect(program.statements.map((s) => s.kind)).toEqual([
      'compare',
      'correlate',
      'macro',
      'macro',
      'scan',
      'scan',
    ]);
    const scan = program.statements[4];
    expect(scan).toMatchObject({
      universe: { kind: 'named', name: 'US' },
      conditions: [
        { kind: 'compare', op: '<', right: { kind: 'number', value: 30, percent: false } },
        { kind: 'compare', op: '>', right: { kind: 'number', value: -2.5, percent: true } },
        { kind: 'compare', right: { kind: 'scaled', metric: { name: 'AVG_VOLUME' }, factor: 2 } },
        { kind: 'between', low: { value: 10 }, high: { value: 500 } },
        { kind: 'relative', direction: 'above', right: { name: 'SMA' } },
        { kind: 'trend', direction: 'bullish' },
      ],
      orderBy: { metric: { name: 'VOLATILITY' }, direction: 'asc' },
      limit: 10,
    });
    expect(program.statements[5]).toMatchObject({
      universe: { kind: 'list', assets: [{ symbol: 'AAPL' }, { symbol: 'ON' }, { symbol: 'BRK.B' }] },
    });
    expect(program.statements[3]).toMatchObject({ analysis: 'causality', lags: 3, window: null });
  });

  it.each([
    ['EVALUATE AAPL PRICE', 1, 15, "':' before the metrics", "'PRICE'"],
    ['EVALUATE AAPL: PRICEE', 1, 16, 'a metric name', "'PRICEE'"],
    ['EVALUATE AAPL: SMA()', 1, 16, 'SMA(period): the period argument is required', "'SMA'"],
    ['EVALUATE AAPL: RSI(14, 3)', 1, 24, "')' (RSI takes 1 argument)", "'3'"],
    [
      'EVALUATE AAPL: PRICE;\nSCAN US WHERE PRICE > 5%',
      2,
      24,
      'a plain number (PRICE is not a percentage)',
      "'%'",
    ],
    ['CORRELATE AAPL MSFT', 1, 16, "WITH or ',' and another asset", "'MSFT'"],
    ['MACRO: CPI -> GUESS ON SPY', 1, 15, 'REGRESSION, CORRELATION, CAUSALITY or IMPACT', "'GUESS'"],
    ['EVALUATE AAPL: VOLATILITY(30x)', 1, 27, 'a number or a duration like 30d', '"30x"'],
    ['SELECT * FROM prices', 1, 1, 'a statement (EVALUATE, COMPARE, CORRELATE, MACRO or SCAN)', "'SELECT'"],
    ['', 1, 1, 'a statement (EVALUATE, COMPARE, CORRELATE, MACRO or SCAN)', 'the end of the query'],
    [
      'EVALUATE AAPL: TECHNICAL(PRICE)',
      1,
      26,
      'a technical indicator (RSI, MACD, BOLLINGER_BANDS, SMA, EMA, ATR, STOCH)',
      "'PRICE'",
    ],
  ])('reports %j at line %i, column %i', (source, line, column, expected, found) => {
    let error: unknown;
    try {
      parse(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FkDslSyntaxError);
    expect(error).toMatchObject({ line, column, expected, found });
    const snippet = (error as FkDslSyntaxError).details?.snippet as string;
    expect(snippet.split('\n')[1]).toBe(`  ${' '.repeat(column - 1)}^`);
    expect((error as Error).message).toContain(
      `line ${line}, column ${column}: expected ${expected}, found ${found}`,
    );
  });

  it('prints canonical text that parses back to the same AST', () => {
    const source = `evaluate aapl: rsi, sma(50); compare aapl, msft on price; scan [x] where change>=1.5%; macro: vix -> impact on spy lags 2`;
    const once = parse(source);
    const text = print(once);
    expect(text).toBe(
      'EVALUATE aapl: RSI, SMA(50);\nCOMPARE aapl VS msft ON: PRICE;\nSCAN [x] WHERE CHANGE >= 1.5%;\nMACRO: vix -> IMPACT ON spy LAGS 2',
    );
    expect(withoutPositions(parse(text))).toEqual(withoutPositions(once));
  });
});

import type {
  Argument,
  AssetRef,
  ComparisonOperator,
  Condition,
  Duration,
  DurationUnit,
  MacroAnalysis,
  MetricCall,
  NumberLiteral,
  Program,
  QueryStatement,
  ScanStatement,
  Statement,
  Universe,
} from './ast.ts';
import type { Token } from './lexer.ts';
import { isPercentMetric, type MetricSpec, metricSpec } from './metrics-catalog.ts';
import { TokenCursor } from './token-cursor.ts';

/**
 * Hand-written recursive-descent parser. Grammar (keywords case-insensitive, `;` between statements):
 *
 *   statement  := EXPLAIN query | query
 *   query      := EVALUATE asset ':' metrics
 *               | COMPARE asset (VS|,) asset ... (ON [':'] | ':') metrics
 *               | CORRELATE asset WITH asset (',' asset)* [WINDOW duration]
 *               | CORRELATE asset ',' asset (',' asset)* [PERIOD '(' duration ')' | WINDOW duration]
 *               | MACRO [':'] indicator (',' indicator)* '->' (REGRESSION|CORRELATION|CAUSALITY|IMPACT)
 *                   ON asset [WINDOW duration] [LAGS n]
 *               | SCAN (universe | '[' asset, ... ']') WHERE condition (AND condition)*
 *                   [ORDER BY metric [ASC|DESC]] [LIMIT n]
 *   condition  := metric op value['%'] | metric op metric ['*' n] | metric BETWEEN v AND v
 *               | metric (ABOVE|BELOW) metric | TREND IS (BULLISH|BEARISH|NEUTRAL)
 *   metric     := NAME ['(' argument, ... ')']         checked against metrics-catalog.ts
 */
export function parse(source: string): Program {
  return new Parser(source).program();
}

const ANALYSES: Readonly<Record<string, MacroAnalysis>> = {
  REGRESSION: 'regression',
  CORRELATION: 'correlation',
  CAUSALITY: 'causality',
  IMPACT: 'impact',
};

class Parser {
  readonly #in: TokenCursor;

  constructor(source: string) {
    this.#in = new TokenCursor(source);
  }

  program(): Program {
    const statements: Statement[] = [];
    for (;;) {
      while (this.#in.accept('semicolon')) {}
      if (this.#in.peek().type === 'eof') break;
      statements.push(this.#statement());
      if (this.#in.peek().type !== 'eof') this.#in.expect('semicolon', "';' between statements");
    }
    if (statements.length === 0)
      this.#in.fail(this.#in.peek(), 'a statement (EVALUATE, COMPARE, CORRELATE, MACRO or SCAN)');
    return { statements };
  }

  #statement(): Statement {
    if (this.#in.acceptKeyword('EXPLAIN')) return { kind: 'explain', statement: this.#query() };
    return this.#query();
  }

  #query(): QueryStatement {
    const token = this.#in.peek();
    const keyword = token.type === 'word' ? token.text.toUpperCase() : '';
    switch (keyword) {
      case 'EVALUATE': {
        this.#in.next();
        const asset = this.#asset();
        this.#in.expect('colon', "':' before the metrics");
        return { kind: 'evaluate', asset, metrics: this.#metricList() };
      }
      case 'COMPARE':
        this.#in.next();
        return this.#compare();
      case 'CORRELATE':
        this.#in.next();
        return this.#correlate();
      case 'MACRO':
        this.#in.next();
        return this.#macro();
      case 'SCAN':
        this.#in.next();
        return this.#scan();
      default:
        return this.#in.fail(token, 'a statement (EVALUATE, COMPARE, CORRELATE, MACRO or SCAN)');
    }
  }

  #compare(): QueryStatement {
    const assets = [this.#asset()];
    while (this.#in.acceptKeyword('VS') || this.#in.accept('comma')) assets.push(this.#asset());
    if (assets.length < 2) this.#in.fail(this.#in.peek(), 'VS and a second asset');
    if (this.#in.acceptKeyword('ON')) this.#in.accept('colon');
    else this.#in.expect('colon', "ON or ':' before the metrics");
    return { kind: 'compare', assets, metrics: this.#metricList() };
  }

  #correlate(): QueryStatement {
    const first = this.#asset();
    if (this.#in.acceptKeyword('WITH')) {
      const assets = [first, this.#asset()];
      while (this.#in.accept('comma')) assets.push(this.#asset());
      const window = this.#in.acceptKeyword('WINDOW') ? this.#duration() : null;
      return { kind: 'correlate', form: 'with', assets, window };
    }
    this.#in.expect('comma', "WITH or ',' and another asset");
    const assets = [first, this.#asset()];
    while (this.#in.accept('comma')) assets.push(this.#asset());
    let window: Duration | null = null;
    if (this.#in.acceptKeyword('PERIOD')) {
      this.#in.expect('lparen', "'(' after PERIOD");
      window = this.#duration();
      this.#in.expect('rparen', "')'");
    } else if (this.#in.acceptKeyword('WINDOW')) {
      window = this.#duration();
    }
    return { kind: 'correlate', form: 'period', assets, window };
  }

  #macro(): QueryStatement {
    this.#in.accept('colon');
    const indicators = [this.#asset()];
    while (this.#in.accept('comma')) indicators.push(this.#asset());
    this.#in.expect('arrow', "'->' before the analysis");
    const token = this.#in.peek();
    const analysis = token.type === 'word' ? ANALYSES[token.text.toUpperCase()] : undefined;
    if (!analysis) this.#in.fail(token, 'REGRESSION, CORRELATION, CAUSALITY or IMPACT');
    this.#in.next();
    this.#in.expectKeyword('ON', 'ON and the asset to analyse');
    const target = this.#asset();
    let window: Duration | null = null;
    let lags: number | null = null;
    for (;;) {
      if (window === null && this.#in.acceptKeyword('WINDOW')) window = this.#duration();
      else if (lags === null && this.#in.acceptKeyword('LAGS'))
        lags = this.#integer(1, 20, 'a number of lags from 1 to 20');
      else break;
    }
    return { kind: 'macro', indicators, analysis: analysis!, target, window, lags };
  }

  #scan(): ScanStatement {
    let universe: Universe;
    if (this.#in.accept('lbracket')) {
      const assets = [this.#asset()];
      while (this.#in.accept('comma')) assets.push(this.#asset());
      this.#in.expect('rbracket', "']' after the asset list");
      universe = { kind: 'list', assets };
    } else {
      const token = this.#in.peek();
      if (token.type !== 'word' || token.text.toUpperCase() === 'WHERE')
        this.#in.fail(token, 'a universe (US, CRYPTO, ETF, ALL) or [asset, ...]');
      this.#in.next();
      universe = { kind: 'named', name: token.text.toUpperCase() };
    }
    this.#in.expectKeyword('WHERE', 'WHERE and the conditions');
    const conditions = [this.#condition()];
    while (this.#in.acceptKeyword('AND')) conditions.push(this.#condition());
    let orderBy: ScanStatement['orderBy'] = null;
    if (this.#in.acceptKeyword('ORDER')) {
      this.#in.expectKeyword('BY', 'BY after ORDER');
      const metric = this.#metric();
      let direction: 'asc' | 'desc' = 'desc';
      if (this.#in.acceptKeyword('ASC')) direction = 'asc';
      else this.#in.acceptKeyword('DESC');
      orderBy = { metric, direction };
    }
    const limit = this.#in.acceptKeyword('LIMIT') ? this.#integer(1, 1000, 'a limit from 1 to 1000') : null;
    return { kind: 'scan', universe, conditions, orderBy, limit };
  }

  #condition(): Condition {
    if (this.#in.isKeyword(this.#in.peek(), 'TREND')) {
      this.#in.next();
      this.#in.expectKeyword('IS', 'IS after TREND');
      const token = this.#in.peek();
      const direction = token.type === 'word' ? token.text.toLowerCase() : '';
      if (direction !== 'bullish' && direction !== 'bearish' && direction !== 'neutral') {
        this.#in.fail(token, 'BULLISH, BEARISH or NEUTRAL');
      }
      this.#in.next();
      return { kind: 'trend', direction: direction as 'bullish' | 'bearish' | 'neutral' };
    }
    const left = this.#metric();
    if (this.#in.acceptKeyword('BETWEEN')) {
      const low = this.#value(left);
      this.#in.expectKeyword('AND', 'AND between the bounds');
      const high = this.#value(left);
      return { kind: 'between', metric: left, low, high };
    }
    for (const direction of ['above', 'below'] as const) {
      if (this.#in.acceptKeyword(direction.toUpperCase()))
        return { kind: 'relative', direction, left, right: this.#metric() };
    }
    const opToken = this.#in.peek();
    if (opToken.type !== 'op')
      this.#in.fail(opToken, 'a comparison (>, <, >=, <=, =, !=), BETWEEN, ABOVE or BELOW');
    this.#in.next();
    const op = opToken.text as ComparisonOperator;
    const next = this.#in.peek();
    if (next.type === 'word') {
      const metric = this.#metric();
      let factor = 1;
      if (this.#in.accept('star')) factor = this.#number().value;
      return { kind: 'compare', left, op, right: { kind: 'scaled', metric, factor } };
    }
    return { kind: 'compare', left, op, right: this.#value(left) };
  }

  /** A literal compared with `metric`; `%` is only meaningful for percentage metrics. */
  #value(metric: MetricCall): NumberLiteral {
    const literal = this.#number();
    const percentToken = this.#in.peek();
    if (this.#in.accept('percent')) {
      if (!isPercentMetric(metric.name)) {
        this.#in.fail(percentToken, `a plain number (${metric.name} is not a percentage)`);
      }
      return { ...literal, percent: true };
    }
    return literal;
  }

  #metricList(): MetricCall[] {
    const metrics = [this.#metric()];
    while (this.#in.accept('comma')) metrics.push(this.#metric());
    return metrics;
  }

  #metric(technicalOnly = false): MetricCall {
    const token = this.#in.peek();
    if (token.type !== 'word')
      this.#in.fail(token, technicalOnly ? 'a technical indicator (RSI, MACD, SMA(20)...)' : 'a metric name');
    const spec = metricSpec(token.text);
    if (!spec || (technicalOnly && !spec.technical)) {
      this.#in.fail(
        token,
        technicalOnly
          ? 'a technical indicator (RSI, MACD, BOLLINGER_BANDS, SMA, EMA, ATR, STOCH)'
          : 'a metric name',
      );
    }
    this.#in.next();
    const at = { line: token.line, column: token.column };
    const args = this.#in.accept('lparen') ? this.#arguments(spec!) : [];
    this.#checkArity(spec!, args, token);
    return { kind: 'metric', name: spec!.name, args, at };
  }

  #arguments(spec: MetricSpec): Argument[] {
    const args: Argument[] = [];
    if (this.#in.accept('rparen')) return args;
    let param = 0;
    for (;;) {
      const p = spec.params[param];
      if (!p)
        this.#in.fail(
          this.#in.peek(),
          `')' (${spec.name} takes ${spec.params.length} argument${spec.params.length === 1 ? '' : 's'})`,
        );
      const token = this.#in.peek();
      if (p!.type === 'indicator') args.push(this.#metric(true));
      else if (p!.type === 'asset') {
        // A repeated asset list ends where the window argument starts.
        if ((token.type === 'duration' || token.type === 'number') && p!.repeated && args.length > 0) {
          param++;
          continue;
        }
        args.push(this.#asset());
      } else if (p!.type === 'window') {
        args.push(
          token.type === 'duration'
            ? this.#duration()
            : this.#integerLiteral(1, 10_000, 'a window: bars (20) or a duration (30d)'),
        );
      } else {
        args.push(this.#number());
      }
      if (!p!.repeated) param++;
      if (this.#in.accept('rparen')) return args;
      this.#in.expect('comma', "',' or ')'");
    }
  }

  #checkArity(spec: MetricSpec, args: readonly Argument[], token: Token): void {
    const required = spec.params.filter((p) => p.default === undefined && !p.optional);
    const provided = new Set(args.map((a) => (a.kind === 'metric' ? 'indicator' : a.kind)));
    for (const p of required) {
      const has =
        (p.type === 'window' && (provided.has('duration') || provided.has('number'))) ||
        (p.type === 'asset' && provided.has('asset')) ||
        (p.type === 'indicator' && provided.has('indicator')) ||
        (p.type === 'number' && provided.has('number'));
      if (!has)
        this.#in.fail(
          token,
          `${spec.name}(${spec.params.map((x) => x.name).join(', ')}): the ${p.name} argument is required`,
        );
    }
  }

  #asset(): AssetRef {
    const token = this.#in.peek();
    if (token.type === 'word' || token.type === 'string' || token.type === 'number') {
      if (token.type === 'string' && token.text.trim() === '') this.#in.fail(token, 'an asset symbol');
      this.#in.next();
      return { kind: 'asset', symbol: token.text.trim(), at: { line: token.line, column: token.column } };
    }
    return this.#in.fail(token, 'an asset symbol (AAPL, BRK.B, BTC/USDT, "3M")');
  }

  #duration(): Duration {
    const token = this.#in.peek();
    if (token.type !== 'duration') this.#in.fail(token, 'a duration like 30d, 12w, 6m or 1y');
    this.#in.next();
    const value = Number(token.text.slice(0, -1));
    if (!Number.isInteger(value) || value < 1 || value > 10_000)
      this.#in.fail(token, 'a whole, positive duration like 30d');
    return { kind: 'duration', value, unit: token.text.slice(-1).toLowerCase() as DurationUnit };
  }

  #number(): NumberLiteral {
    const negative = this.#in.accept('minus');
    const token = this.#in.peek();
    if (token.type !== 'number') this.#in.fail(token, 'a number');
    this.#in.next();
    const value = Number(token.text);
    return { kind: 'number', value: negative ? -value : value, percent: false };
  }

  #integerLiteral(min: number, max: number, expected: string): NumberLiteral {
    return { kind: 'number', value: this.#integer(min, max, expected), percent: false };
  }

  #integer(min: number, max: number, expected: string): number {
    const token = this.#in.peek();
    const value = Number(token.text);
    if (token.type !== 'number' || !Number.isInteger(value) || value < min || value > max)
      this.#in.fail(token, expected);
    this.#in.next();
    return value;
  }
}

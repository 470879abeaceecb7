import type {
  Argument,
  AssetRef,
  Condition,
  Duration,
  MetricCall,
  NumberLiteral,
  Program,
  Statement,
} from './ast.ts';

/**
 * Canonical text of an AST: upper-case keywords and metric names, one statement per line.
 * parse(print(ast)) gives back `ast` (positions aside); property-tested in printer.test.ts.
 */
export function print(program: Program): string {
  return program.statements.map(printStatement).join(';\n');
}

export function printStatement(statement: Statement): string {
  switch (statement.kind) {
    case 'explain':
      return `EXPLAIN ${printStatement(statement.statement)}`;
    case 'evaluate':
      return `EVALUATE ${asset(statement.asset)}: ${statement.metrics.map(printMetric).join(', ')}`;
    case 'compare':
      return `COMPARE ${statement.assets.map(asset).join(' VS ')} ON: ${statement.metrics.map(printMetric).join(', ')}`;
    case 'correlate': {
      const [first, ...rest] = statement.assets;
      if (statement.form === 'with') {
        return `CORRELATE ${asset(first!)} WITH ${rest.map(asset).join(', ')}${statement.window ? ` WINDOW ${duration(statement.window)}` : ''}`;
      }
      return `CORRELATE ${statement.assets.map(asset).join(', ')}${statement.window ? ` PERIOD(${duration(statement.window)})` : ''}`;
    }
    case 'macro':
      return (
        `MACRO: ${statement.indicators.map(asset).join(', ')} -> ${statement.analysis.toUpperCase()} ON ${asset(statement.target)}` +
        `${statement.window ? ` WINDOW ${duration(statement.window)}` : ''}${statement.lags !== null ? ` LAGS ${statement.lags}` : ''}`
      );
    case 'scan': {
      const universe =
        statement.universe.kind === 'named'
          ? statement.universe.name
          : `[${statement.universe.assets.map(asset).join(', ')}]`;
      const order = statement.orderBy
        ? ` ORDER BY ${printMetric(statement.orderBy.metric)} ${statement.orderBy.direction.toUpperCase()}`
        : '';
      const limit = statement.limit !== null ? ` LIMIT ${statement.limit}` : '';
      return `SCAN ${universe} WHERE ${statement.conditions.map(condition).join(' AND ')}${order}${limit}`;
    }
  }
}

export function printMetric(metric: MetricCall): string {
  return metric.args.length ? `${metric.name}(${metric.args.map(argument).join(', ')})` : metric.name;
}

function argument(arg: Argument): string {
  switch (arg.kind) {
    case 'number':
      return number(arg);
    case 'duration':
      return duration(arg);
    case 'asset':
      return asset(arg);
    case 'metric':
      return printMetric(arg);
  }
}

function condition(c: Condition): string {
  switch (c.kind) {
    case 'trend':
      return `TREND IS ${c.direction.toUpperCase()}`;
    case 'between':
      return `${printMetric(c.metric)} BETWEEN ${number(c.low)} AND ${number(c.high)}`;
    case 'relative':
      return `${printMetric(c.left)} ${c.direction.toUpperCase()} ${printMetric(c.right)}`;
    case 'compare': {
      const right =
        c.right.kind === 'scaled'
          ? `${printMetric(c.right.metric)}${c.right.factor !== 1 ? ` * ${c.right.factor}` : ''}`
          : number(c.right);
      return `${printMetric(c.left)} ${c.op} ${right}`;
    }
  }
}

function number(n: NumberLiteral): string {
  return `${n.value}${n.percent ? '%' : ''}`;
}

function duration(d: Duration): string {
  return `${d.value}${d.unit}`;
}

/** Symbols that would not read back as one word (or would read as a keyword position) are quoted. */
function asset(a: AssetRef): string {
  return /^[A-Za-z_^][A-Za-z0-9_]*([./-][A-Za-z0-9^][A-Za-z0-9_]*)*(=[Xx])?$/.test(a.symbol) &&
    !KEYWORDS.has(a.symbol.toUpperCase())
    ? a.symbol
    : `"${a.symbol}"`;
}

const KEYWORDS = new Set(['VS', 'ON', 'WITH', 'WINDOW', 'PERIOD', 'WHERE', 'AND', 'LAGS', 'EXPLAIN']);

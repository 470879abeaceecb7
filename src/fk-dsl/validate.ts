import { instrumentKey, parseInstrument } from '../market-data/instruments.ts';
import type { Argument, AssetRef, Duration, MetricCall, Position, Program, QueryStatement } from './ast.ts';
import { FkDslQueryError } from './errors.ts';
import { type ArgumentRange, metricSpec, type ParamSpec } from './metrics-catalog.ts';
import { printMetric } from './printer.ts';

const MACRO_WINDOW = 'must be in days, weeks, months or years (macro series are daily or slower)';

/**
 * Checks what the grammar cannot: every argument is within its range (BOLLINGER_BANDS(20, -5) has
 * no meaning), arguments agree with each other (MACD's fast period is the shorter) and no list
 * names an asset twice (SCAN [AAPL, AAPL] would match twice, MACRO would regress on a copy of a
 * regressor). Window lengths against the ten-year history depend on the asset class and are checked
 * when each statement is planned (windows.ts).
 */
export function validateProgram(program: Program): void {
  for (const statement of program.statements)
    validateStatement(statement.kind === 'explain' ? statement.statement : statement);
}

function validateStatement(statement: QueryStatement): void {
  switch (statement.kind) {
    case 'evaluate':
      statement.metrics.forEach(validateMetric);
      return;
    case 'compare':
      distinct('COMPARE', statement.assets);
      statement.metrics.forEach(validateMetric);
      return;
    case 'correlate':
      distinct('CORRELATE', statement.assets);
      if (statement.window) statementWindow('CORRELATE window', statement.window, 3);
      return;
    case 'macro':
      distinct('MACRO', [...statement.indicators, statement.target]);
      if (statement.window?.unit === 'h')
        throw new FkDslQueryError(`MACRO window: ${MACRO_WINDOW}`, { argument: 'window' });
      return;
    case 'scan':
      if (statement.universe.kind === 'list') distinct('SCAN', statement.universe.assets);
      for (const c of statement.conditions) {
        if (c.kind === 'compare') {
          validateMetric(c.left);
          if (c.right.kind === 'scaled') validateMetric(c.right.metric);
        } else if (c.kind === 'between') validateMetric(c.metric);
        else if (c.kind === 'relative') {
          validateMetric(c.left);
          validateMetric(c.right);
        }
      }
      if (statement.orderBy) validateMetric(statement.orderBy.metric);
  }
}

/** One metric call: each argument against its parameter, then the rules between arguments. */
export function validateMetric(call: MetricCall): void {
  const spec = metricSpec(call.name);
  if (!spec) return;
  if (call.name === 'TECHNICAL') {
    for (const arg of call.args) if (arg.kind === 'metric') validateMetric(arg);
    return;
  }
  const numbers = spec.params.filter((p) => p.type === 'number');
  const numberArgs = call.args.filter((a) => a.kind === 'number');
  numberArgs.forEach((arg, i) => {
    const param = numbers[i];
    if (param?.range && arg.kind === 'number') inRange(call, param, arg.value, param.range);
  });
  const window = spec.params.find((p) => p.type === 'window');
  const windowArg = call.args.find((a) => a.kind === 'duration' || a.kind === 'number');
  if (window && windowArg) checkWindow(call, window, windowArg);
  const assets = call.args.filter((a): a is AssetRef => a.kind === 'asset');
  if (assets.length > 1) distinct(printMetric(call), assets, call.at);
  if (call.name === 'MACD') {
    const value = (i: number, fallback: number) => {
      const a = numberArgs[i];
      return a?.kind === 'number' ? a.value : fallback;
    };
    if (value(0, 12) >= value(1, 26))
      fail(call, 'fast', `must be shorter than slow (${value(1, 26)})`, { max: value(1, 26) - 1 });
  }
}

function checkWindow(call: MetricCall, param: ParamSpec, arg: Argument): void {
  if (arg.kind === 'duration' && arg.unit === 'h' && param.dailyOnly)
    fail(call, param.name, 'must be a number of daily bars (20) or a daily duration (30d, 12w, 6m, 1y)', {});
  const range = param.range;
  if (!range) return;
  // Durations are checked in bars of the shortest calendar (5 sessions a week): a floor that holds
  // for every asset class.
  const bars = arg.kind === 'number' ? arg.value : arg.kind === 'duration' ? minimumBars(arg) : Number.NaN;
  if (!Number.isNaN(bars)) inRange(call, param, bars, range, arg.kind === 'duration' ? 'bars' : '');
}

function minimumBars(d: Duration): number {
  const perUnit = { h: 1, d: 1, w: 5, m: 21, y: 250 } as const;
  return d.value * perUnit[d.unit];
}

function statementWindow(what: string, window: Duration, minBars: number): void {
  if (minimumBars(window) < minBars)
    throw new FkDslQueryError(`${what}: must be at least ${minBars} bars`, {
      argument: 'window',
      min: minBars,
    });
}

function inRange(call: MetricCall, param: ParamSpec, value: number, range: ArgumentRange, unit = ''): void {
  const whole = !range.integer || Number.isInteger(value);
  if (whole && value >= range.min && value <= range.max) return;
  const bound = Number.isFinite(range.max) ? `from ${range.min} to ${range.max}` : `at least ${range.min}`;
  const kind = range.integer ? 'a whole number ' : 'a number ';
  fail(call, param.name, `must be ${kind}${bound}${unit ? ` ${unit}` : ''}`, {
    min: range.min,
    ...(Number.isFinite(range.max) ? { max: range.max } : {}),
  });
}

function fail(call: MetricCall, argument: string, problem: string, details: Record<string, unknown>): never {
  throw new FkDslQueryError(`${call.name}${where(call.at)}: ${argument} ${problem}`, {
    metric: call.name,
    argument,
    ...details,
    ...(call.at ? { line: call.at.line, column: call.at.column } : {}),
  });
}

/** Assets of one list, each once (`aapl` and `AAPL`, `BTCUSDT` and `BTC/USDT` are the same). */
function distinct(what: string, assets: readonly AssetRef[], at?: Position): void {
  const seen = new Set<string>();
  for (const asset of assets) {
    const key = assetKey(asset);
    if (seen.has(key)) {
      const symbol = asset.symbol.length > 24 ? `${asset.symbol.slice(0, 24)}…` : asset.symbol;
      throw new FkDslQueryError(
        `${what}${where(asset.at ?? at)}: ${symbol} is listed twice; name each asset once`,
        {
          argument: 'assets',
          symbol,
        },
      );
    }
    seen.add(key);
  }
}

function assetKey(asset: AssetRef): string {
  try {
    return instrumentKey(parseInstrument(asset.symbol));
  } catch {
    // Not a valid symbol: planning reports that with its own message.
    return asset.symbol.toUpperCase();
  }
}

const where = (at: Position | undefined) => (at ? ` (line ${at.line}, column ${at.column})` : '');

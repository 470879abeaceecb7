import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type {
  Argument,
  AssetRef,
  Condition,
  Duration,
  MetricCall,
  NumberLiteral,
  Program,
  QueryStatement,
  Statement,
} from './ast.ts';
import { withoutPositions } from './ast.ts';
import { METRICS, type MetricSpec } from './metrics-catalog.ts';
import { parse } from './parser.ts';
import { print } from './printer.ts';

/** Random, well-formed ASTs: printing then parsing must give each one back unchanged. */
const symbol = fc.oneof(
  fc.constantFrom(
    'AAPL',
    'brk.b',
    'BTC/USDT',
    'btc-usd',
    'EURUSD=X',
    '^GSPC',
    'ON',
    'VS',
    '7203',
    '3M',
    'US10Y',
  ),
  fc.stringMatching(/^[A-Z][A-Z0-9]{0,5}$/),
);
const asset: fc.Arbitrary<AssetRef> = symbol.map((s) => ({ kind: 'asset', symbol: s }));
const duration: fc.Arbitrary<Duration> = fc.record({
  kind: fc.constant('duration' as const),
  value: fc.integer({ min: 1, max: 999 }),
  unit: fc.constantFrom('h', 'd', 'w', 'm', 'y' as const),
});
const plain = (min: number, max: number): fc.Arbitrary<NumberLiteral> =>
  fc
    .double({ min, max, noNaN: true, noDefaultInfinity: true })
    .map((value) => ({ kind: 'number', value, percent: false }));
const bars = fc
  .integer({ min: 1, max: 500 })
  .map((value): NumberLiteral => ({ kind: 'number', value, percent: false }));

function argFor(spec: MetricSpec, index: number): fc.Arbitrary<Argument> | undefined {
  const p = spec.params[index];
  if (!p) return undefined;
  if (p.type === 'window') return fc.oneof(duration, bars);
  if (p.type === 'asset') return asset;
  if (p.type === 'indicator') return technical;
  return fc
    .integer({ min: 1, max: 60 })
    .map((value): NumberLiteral => ({ kind: 'number', value, percent: false }));
}

function callOf(spec: MetricSpec): fc.Arbitrary<MetricCall> {
  // Leading parameters in order; a repeated one appears one to three times.
  const parts: fc.Arbitrary<Argument[]>[] = spec.params.map((p, i) => {
    const one = argFor(spec, i)!;
    return p.repeated ? fc.array(one, { minLength: 1, maxLength: 3 }) : one.map((a) => [a]);
  });
  const required = spec.params.filter((p) => p.default === undefined && !p.optional).length;
  return fc
    .integer({ min: required, max: spec.params.length })
    .chain((count) => (count === 0 ? fc.constant([] as Argument[][]) : fc.tuple(...parts.slice(0, count))))
    .map((groups) => ({ kind: 'metric' as const, name: spec.name, args: groups.flat() }));
}

const technical: fc.Arbitrary<MetricCall> = fc.oneof(
  ...[...METRICS.values()].filter((s) => s.technical).map(callOf),
);
const metric: fc.Arbitrary<MetricCall> = fc.oneof(...[...METRICS.values()].map(callOf));
const percentMetric = fc.oneof(...[...METRICS.values()].filter((s) => s.unit === 'percent').map(callOf));

const condition: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({
    kind: fc.constant('trend' as const),
    direction: fc.constantFrom('bullish', 'bearish', 'neutral' as const),
  }),
  fc.record({ kind: fc.constant('between' as const), metric, low: plain(-1e6, 1e6), high: plain(-1e6, 1e6) }),
  fc.record({
    kind: fc.constant('relative' as const),
    direction: fc.constantFrom('above', 'below' as const),
    left: metric,
    right: metric,
  }),
  fc.record({
    kind: fc.constant('compare' as const),
    left: metric,
    op: fc.constantFrom('>', '<', '>=', '<=', '=', '!=' as const),
    right: fc.oneof(
      plain(-1e9, 1e9),
      fc.record({
        kind: fc.constant('scaled' as const),
        metric,
        factor: fc.double({ min: 0.01, max: 100, noNaN: true }),
      }),
    ),
  }),
  fc.record({
    kind: fc.constant('compare' as const),
    left: percentMetric,
    op: fc.constantFrom('>', '<' as const),
    right: plain(-100, 100).map((n) => ({ ...n, percent: true })),
  }),
);

const query: fc.Arbitrary<QueryStatement> = fc.oneof(
  fc.record({
    kind: fc.constant('evaluate' as const),
    asset,
    metrics: fc.array(metric, { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    kind: fc.constant('compare' as const),
    assets: fc.array(asset, { minLength: 2, maxLength: 4 }),
    metrics: fc.array(metric, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('correlate' as const),
    form: fc.constantFrom('with', 'period' as const),
    assets: fc.array(asset, { minLength: 2, maxLength: 4 }),
    window: fc.option(duration, { nil: null }),
  }),
  fc.record({
    kind: fc.constant('macro' as const),
    indicators: fc.array(asset, { minLength: 1, maxLength: 3 }),
    analysis: fc.constantFrom('regression', 'correlation', 'causality', 'impact' as const),
    target: asset,
    window: fc.option(duration, { nil: null }),
    lags: fc.option(fc.integer({ min: 1, max: 20 }), { nil: null }),
  }),
  fc.record({
    kind: fc.constant('scan' as const),
    universe: fc.oneof(
      fc.constantFrom('US', 'CRYPTO', 'ETF', 'ALL').map((name) => ({ kind: 'named' as const, name })),
      fc.array(asset, { minLength: 1, maxLength: 4 }).map((assets) => ({ kind: 'list' as const, assets })),
    ),
    conditions: fc.array(condition, { minLength: 1, maxLength: 3 }),
    orderBy: fc.option(fc.record({ metric, direction: fc.constantFrom('asc', 'desc' as const) }), {
      nil: null,
    }),
    limit: fc.option(fc.integer({ min: 1, max: 1000 }), { nil: null }),
  }),
);
const statement: fc.Arbitrary<Statement> = fc.oneof(
  { weight: 5, arbitrary: query },
  { weight: 1, arbitrary: query.map((q) => ({ kind: 'explain' as const, statement: q })) },
);
const program: fc.Arbitrary<Program> = fc
  .array(statement, { minLength: 1, maxLength: 4 })
  .map((statements) => ({ statements }));

describe('printer', () => {
  it('parse(print(ast)) is ast, for any well-formed program', () => {
    fc.assert(
      fc.property(program, (ast) => {
        expect(withoutPositions(parse(print(ast)))).toEqual(withoutPositions(ast));
      }),
      { numRuns: 500 },
    );
  });

  it('print is stable: printing a re-parsed program gives the same text', () => {
    fc.assert(
      fc.property(program, (ast) => {
        const text = print(ast);
        expect(print(parse(text))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { componentsOf, tidy, tidyJson, unitOfMetric } from './fk-dsl-values.graphql.ts';

describe('FK-DSL numbers as GraphQL gives them', () => {
  it('drops float noise, keeps integers exact and never shows a non-finite number', () => {
    expect(tidy(0.1 + 0.2)).toBe(0.3);
    expect(tidy(-2037.800000000003)).toBe(-2037.8);
    expect(tidy(3_212_345_678_901)).toBe(3_212_345_678_901);
    expect(tidy(Number.NaN)).toBeNull();
    expect(tidy(Number.POSITIVE_INFINITY)).toBeNull();
    expect(tidy(null)).toBeNull();
    expect(tidyJson({ a: [0.1 + 0.2, Number.NaN, 'x'], b: { c: 1 / 3 } })).toEqual({
      a: [0.3, null, 'x'],
      b: { c: 0.333333333333 },
    });
  });

  it('names and units the components of metrics that give several values', () => {
    expect(componentsOf('PRICE', 101.5)).toBeNull();
    expect(componentsOf('MACD', { macd: 1, signal: 0.5, histogram: 0.5 })?.map((c) => c.unit)).toEqual([
      'price',
      'price',
      'price',
    ]);
    expect(componentsOf('BOLLINGER_BANDS(20, 2)', { upper: 3, percentB: 0.4 })?.map((c) => c.unit)).toEqual([
      'price',
      'ratio',
    ]);
    expect(componentsOf('TECHNICAL(RSI, SMA(50), MACD)', { RSI: 55, 'SMA(50)': 180, MACD: {} })).toEqual([
      { name: 'RSI', value: 55, unit: 'number' },
      { name: 'SMA(50)', value: 180, unit: 'price' },
      { name: 'MACD', value: {}, unit: 'object' },
    ]);
    expect(componentsOf('CORRELATE(MSFT)', { MSFT: 0.7 })).toEqual([
      { name: 'MSFT', value: 0.7, unit: 'number' },
    ]);
  });

  it('reads the unit of a metric call from the catalog, aliases included', () => {
    expect(unitOfMetric('VOLATILITY(30d)')).toBe('percent');
    expect(unitOfMetric('bbands(20)')).toBe('object');
    expect(unitOfMetric('NOT_A_METRIC')).toBeNull();
  });
});

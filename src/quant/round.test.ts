import { describe, expect, it } from 'vitest';
import { roundFloat, roundNullable } from './round.ts';

describe('roundFloat', () => {
  it('drops the residue of binary fractions from differences and ratios', () => {
    expect(roundFloat(68_012.2 - 70_050)).toBe(-2037.8);
    expect(68_012.2 - 70_050).not.toBe(-2037.8);
    expect(roundFloat(1.1 - 1.0)).toBe(0.1);
    expect(roundFloat(0.1 + 0.2)).toBe(0.3);
    expect(roundFloat((-2037.8 / 70_050) * 100)).toBe(-2.9090649536);
  });

  it('keeps twelve significant digits at every magnitude', () => {
    expect(roundFloat(123_456.789_012_345_6)).toBe(123_456.789_012);
    expect(roundFloat(0.000_012_345_678_901_234_5)).toBe(0.000_012_345_678_901_2);
    expect(roundFloat(9.876_543_210_987_654e20)).toBe(9.876_543_210_99e20);
    expect(roundFloat(-0.333_333_333_333_333_3)).toBe(-0.333_333_333_333);
  });

  it('leaves integers, zero and non-finite values alone', () => {
    expect(roundFloat(42)).toBe(42);
    expect(Object.is(roundFloat(-0), 0)).toBe(true);
    expect(roundFloat(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
    expect(roundFloat(Number.NaN)).toBeNaN();
  });

  it('keeps null as null', () => {
    expect(roundNullable(null)).toBeNull();
    expect(roundNullable(0.1 + 0.2)).toBe(0.3);
  });
});

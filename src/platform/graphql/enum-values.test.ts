import { describe, expect, it } from 'vitest';
import { enumName, enumValues, fromEnumName } from './enum-values.ts';

describe('enum values', () => {
  it('spells internal values in UPPER_CASE', () => {
    expect(enumName('quick')).toBe('QUICK');
    expect(enumName('cryptoStats')).toBe('CRYPTO_STATS');
    expect(enumName('week52High')).toBe('WEEK52_HIGH');
    expect(enumName('1d')).toBe('1D');
    expect(enumName('pre-market')).toBe('PRE_MARKET');
  });

  it('declares each internal value under its GraphQL name, with its description', () => {
    expect(enumValues({ quick: 'fast', deep: 'slow' })).toEqual({
      QUICK: { value: 'quick', description: 'fast' },
      DEEP: { value: 'deep', description: 'slow' },
    });
  });

  it('refuses two values with one GraphQL name, and names GraphQL does not allow', () => {
    expect(() => enumValues({ orderBook: 'a', order_book: 'b' })).toThrow(/both ORDER_BOOK/);
    expect(() => enumValues({ '1d': 'a day' })).toThrow(/no GraphQL enum name/);
  });

  it('maps GraphQL names back to internal values and refuses unknown names', () => {
    const back = fromEnumName(['averageVolume', 'beta'] as const);
    expect(back('AVERAGE_VOLUME')).toBe('averageVolume');
    expect(back('BETA')).toBe('beta');
    expect(() => back('beta')).toThrow(/unmapped/);
  });
});

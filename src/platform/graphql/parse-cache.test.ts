import { describe, expect, it } from 'vitest';
import { boundedParseCache } from './parse-cache.ts';

describe('boundedParseCache', () => {
  it('keeps at most its number of entries, dropping the least recently used', () => {
    const cache = boundedParseCache<number>(2, 100);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
  });

  it('never keeps a document longer than its bound', () => {
    const cache = boundedParseCache<number>(10, 100);
    cache.set('x'.repeat(101), 1);
    expect(cache.get('x'.repeat(101))).toBeUndefined();
  });
});

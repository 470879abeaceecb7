import { describe, expect, it } from 'vitest';
import { ApqStore } from './apq-store.ts';

function clockAt(start: number) {
  let now = start;
  return { now: () => new Date(now), advance: (ms: number) => (now += ms) };
}

describe('ApqStore', () => {
  it('drops the least recently used entry past its entry bound', () => {
    const store = new ApqStore({ maxEntries: 2, maxBytes: 1_000, ttlMs: 60_000 }, clockAt(0));
    store.set('a', '{ a }');
    store.set('b', '{ b }');
    expect(store.get('a')).toBe('{ a }');
    store.set('c', '{ c }');
    expect(store.get('b')).toBeUndefined();
    expect(store.get('a')).toBe('{ a }');
    expect(store.get('c')).toBe('{ c }');
  });

  it('holds at most its byte bound, counting UTF-8 bytes, and never keeps a larger document', () => {
    const store = new ApqStore({ maxEntries: 100, maxBytes: 10, ttlMs: 60_000 }, clockAt(0));
    store.set('a', 'ééé'); // 6 bytes
    store.set('b', 'xxxx');
    expect(store.bytes).toBe(10);
    store.set('c', 'y');
    expect(store.get('a')).toBeUndefined();
    expect(store.bytes).toBe(5);
    store.set('d', 'z'.repeat(11));
    expect(store.get('d')).toBeUndefined();
    expect(store.size).toBe(2);
  });

  it('forgets a document its time after it was last used', () => {
    const clock = clockAt(0);
    const store = new ApqStore({ maxEntries: 10, maxBytes: 1_000, ttlMs: 1_000 }, clock);
    store.set('a', '{ a }');
    clock.advance(900);
    expect(store.get('a')).toBe('{ a }');
    clock.advance(900);
    expect(store.get('a')).toBe('{ a }');
    clock.advance(1_000);
    expect(store.get('a')).toBeUndefined();
    expect(store.bytes).toBe(0);
  });

  it('keeps nothing with no entries allowed', () => {
    const store = new ApqStore({ maxEntries: 0, maxBytes: 1_000, ttlMs: 1_000 }, clockAt(0));
    store.set('a', '{ a }');
    expect(store.size).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './provider-http.ts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-05-22T20:00:00Z');

  it('reads delta-seconds', () => {
    expect(parseRetryAfter('1', now)).toBe(1_000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('0', now)).toBe(0);
  });

  it('reads an HTTP date relative to now, never below zero', () => {
    expect(parseRetryAfter('Fri, 22 May 2026 20:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Fri, 22 May 2026 19:59:00 GMT', now)).toBe(0);
  });

  it('caps long pauses at five minutes', () => {
    expect(parseRetryAfter('86400', now)).toBe(300_000);
  });

  it('ignores missing, blank and unreadable values', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('  ', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

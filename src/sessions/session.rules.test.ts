import { describe, expect, it } from 'vitest';
import {
  checkContextUpdate,
  checkNewSession,
  decodeCursor,
  encodeCursor,
  HOUR_MS,
  lifetime,
  mergeContext,
  SESSION_LIMITS,
  sessionState,
  withResult,
} from './session.rules.ts';

const T0 = new Date('2026-01-05T10:00:00Z');
const at = (hours: number) => new Date(T0.getTime() + hours * HOUR_MS);

describe('new sessions', () => {
  it('normalises symbols and tags, and takes the default time-to-live', () => {
    expect(
      checkNewSession({ assets: [' aapl', 'AAPL', 'btc/usdt'], sessionType: 'Equity', tags: ['a', 'a'] }, 24),
    ).toEqual({
      assets: ['AAPL', 'BTC/USDT'],
      sessionType: 'equity',
      userId: null,
      tags: ['a'],
      requestedHours: 24,
    });
  });

  it.each([
    [{ assets: [], sessionType: 'equity' }, 'assets'],
    [{ assets: ['AAPL', 'not a symbol'], sessionType: 'equity' }, 'assets.1'],
    [{ assets: ['AAPL'], sessionType: 'stocks' }, 'sessionType'],
    [{ assets: ['AAPL'], sessionType: 'equity', ttlHours: 0 }, 'ttlHours'],
    [{ assets: ['AAPL'], sessionType: 'equity', ttlHours: Number.NaN }, 'ttlHours'],
    [{ assets: ['AAPL'], sessionType: 'equity', userId: ' ' }, 'userId'],
    [{ assets: ['AAPL'], sessionType: 'equity', tags: ['x'.repeat(51)] }, 'tags.0'],
    [{ assets: Array.from({ length: 51 }, (_, i) => `S${i}`), sessionType: 'equity' }, 'assets'],
  ])('refuses %j naming %s', (input, field) => {
    expect(() => checkNewSession(input, 24)).toThrow(expect.objectContaining({ field }));
  });
});

describe('the max-TTL rule', () => {
  it('grants what is asked within the maximum from creation', () => {
    expect(lifetime(T0, at(24), 24, 168)).toEqual({
      expiresAt: at(48),
      grantedHours: 24,
      requestedHours: 24,
      capped: false,
    });
  });

  it('grants up to the maximum and says it capped', () => {
    expect(lifetime(T0, at(150), 24, 168)).toEqual({
      expiresAt: at(168),
      grantedHours: 18,
      requestedHours: 24,
      capped: true,
    });
    expect(lifetime(T0, at(168), 1, 168)).toMatchObject({
      expiresAt: at(168),
      grantedHours: 0,
      capped: true,
    });
  });

  it('caps a first time-to-live the same way', () => {
    expect(lifetime(T0, T0, 500, 168)).toMatchObject({ expiresAt: at(168), grantedHours: 168, capped: true });
  });
});

describe('session state', () => {
  it('is active before expiry, expired at and after it, archived once archived', () => {
    expect(sessionState({ status: 'active', expiresAt: at(1) }, T0)).toBe('active');
    expect(sessionState({ status: 'active', expiresAt: T0 }, T0)).toBe('expired');
    expect(sessionState({ status: 'archived', expiresAt: at(1) }, T0)).toBe('archived');
  });
});

describe('context and results', () => {
  it('merges set keys and removes keys', () => {
    const update = checkContextUpdate({ b: 2, c: { d: 1 } }, ['a']);
    expect(mergeContext({ a: 1, b: 1 }, update)).toEqual({ b: 2, c: { d: 1 } });
  });

  it('refuses an empty update, a non-object and too many keys', () => {
    expect(() => checkContextUpdate(undefined, [])).toThrow(expect.objectContaining({ field: 'set' }));
    expect(() => checkContextUpdate([1], [])).toThrow(expect.objectContaining({ field: 'set' }));
    const many = Object.fromEntries(
      Array.from({ length: SESSION_LIMITS.contextKeys + 1 }, (_, i) => [`k${i}`, i]),
    );
    expect(() => mergeContext({}, checkContextUpdate(many, []))).toThrow(/at most 100 keys/);
  });

  it('bounds one result and all of a session', () => {
    expect(withResult({}, 'r', [1, 2])).toEqual({ r: [1, 2] });
    expect(() => withResult({}, 'r', 'x'.repeat(SESSION_LIMITS.resultBytes))).toThrow(
      expect.objectContaining({ field: 'value' }),
    );
    const full = Object.fromEntries(Array.from({ length: SESSION_LIMITS.results }, (_, i) => [`r${i}`, i]));
    expect(() => withResult(full, 'one-more', 1)).toThrow(expect.objectContaining({ field: 'name' }));
    expect(withResult(full, 'r0', 'replaced').r0).toBe('replaced');
  });
});

describe('cursors', () => {
  it('round-trips and refuses what it did not make', () => {
    expect(decodeCursor(encodeCursor(T0, 'abc'))).toEqual({ createdAt: T0, id: 'abc' });
    expect(() => decodeCursor('garbage')).toThrow(expect.objectContaining({ field: 'cursor' }));
  });
});

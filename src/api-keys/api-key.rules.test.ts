import { describe, expect, it } from 'vitest';
import { ValidationError } from '../platform/errors.ts';
import { checkExpiry, checkName, checkScopes, isKeyId, noticeText, readNotice } from './api-key.rules.ts';

describe('API key rules', () => {
  it('trims a name and refuses an empty, overlong or invisible one, naming the field', () => {
    expect(checkName('  ci bot ')).toBe('ci bot');
    for (const bad of ['   ', 'x'.repeat(101), 'a\u200bb', 'a\nb']) {
      expect(() => checkName(bad)).toThrow(ValidationError);
      expect(() => checkName(bad)).toThrow(/name/);
    }
    expect(checkName('é'.repeat(100))).toHaveLength(100);
  });

  it('keeps known scopes once each and refuses none or an unknown one', () => {
    expect(checkScopes(['read', 'read', 'admin'])).toEqual(['read', 'admin']);
    expect(() => checkScopes([])).toThrow(/at least one scope/);
    expect(() => checkScopes(['root'])).toThrow(/unknown scope "root"/);
  });

  it('takes no expiry or a future one', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(checkExpiry(undefined, now)).toBeNull();
    expect(checkExpiry(null, now)).toBeNull();
    expect(checkExpiry(new Date('2026-02-01T00:00:00Z'), now)).toEqual(new Date('2026-02-01T00:00:00Z'));
    expect(() => checkExpiry(now, now)).toThrow(/expiresAt.*future|future/);
    expect(() => checkExpiry(new Date(Number.NaN), now)).toThrow(/valid date/);
  });

  it('tells a key id from anything else', () => {
    expect(isKeyId('0b7e2a0c-1d7b-4e5e-9f59-0c2f1b9a6d11')).toBe(true);
    expect(isKeyId('0b7e2a0c')).toBe(false);
    expect(isKeyId("' or 1=1 --")).toBe(false);
  });

  it('reads back the notices it writes and nothing else', () => {
    expect(readNotice(noticeText({ created: 'abcd1234' }))).toEqual({ created: 'abcd1234' });
    expect(readNotice(noticeText({ revoked: 'some-id' }))).toEqual({ revoked: 'some-id' });
    for (const bad of ['', 'null', '{', '[]', '{"revoked":""}', '{"revoked":7}', '{"created":"short"}'])
      expect(readNotice(bad)).toBeUndefined();
  });
});

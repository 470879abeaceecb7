import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.ts';

describe('API keys', () => {
  it('have the documented shape: vgl_, an 8-character public prefix, 43 base64url characters', () => {
    const key = generateApiKey();
    expect(key.secret).toMatch(/^vgl_[a-z0-9]{8}_[A-Za-z0-9_-]{43}$/);
    expect(key.secret.startsWith(displayPrefix(key.prefix))).toBe(true);
    expect(key.prefix).toMatch(/^[a-z0-9]{8}$/);
    expect(Buffer.from(key.secret.slice(-43), 'base64url')).toHaveLength(32);
    expect(looksLikeApiKey(key.secret)).toBe(true);
  });

  it('are different every time, prefixes included', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    expect(new Set(keys.map((k) => k.secret)).size).toBe(200);
    expect(new Set(keys.map((k) => k.prefix)).size).toBe(200);
  });

  it('are stored as the SHA-256 of the whole key, in hex', () => {
    const key = generateApiKey();
    expect(key.hash).toBe(createHash('sha256').update(key.secret).digest('hex'));
    expect(hashApiKey(key.secret)).toBe(key.hash);
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(`${key.secret}x`)).not.toBe(key.hash);
  });

  it('are told apart from anything else without a lookup', () => {
    const { secret } = generateApiKey();
    for (const other of [
      '',
      'vgl_',
      secret.slice(0, -1),
      `${secret}A`,
      secret.replace('vgl_', 'VGL_'),
      `vgl_ABCDEFGH_${secret.slice(-43)}`,
      `vgl_abcdefg_${secret.slice(-43)}`,
      `vgl_abcdefgh_${secret.slice(-43, -1)}+`,
      ` ${secret}`,
      'an-admin-key-of-at-least-24-characters',
    ]) {
      expect(looksLikeApiKey(other), other).toBe(false);
    }
  });
});

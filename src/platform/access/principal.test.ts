import { describe, expect, it } from 'vitest';
import { effectiveScopes, mayAccessOwnedBy, type Principal, requireScope } from './principal.ts';

const key = (id: string, scope: 'read' | 'write' | 'admin'): Principal => ({
  kind: 'key',
  id,
  name: id,
  scopes: effectiveScopes([scope]),
});

describe('scopes and ownership', () => {
  it('includes the lower scopes in a higher one', () => {
    expect([...effectiveScopes(['admin'])]).toEqual(['read', 'write', 'admin']);
    expect([...effectiveScopes(['write'])]).toEqual(['read', 'write']);
    expect([...effectiveScopes(['read', 'read'])]).toEqual(['read']);
    expect([...effectiveScopes([])]).toEqual([]);
  });

  it('names the missing scope', () => {
    expect(() => requireScope(key('a', 'read'), 'write', 'submitFkDsl')).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN', details: { scope: 'write' } }),
    );
    expect(() => requireScope(key('a', 'write'), 'write', 'submitFkDsl')).not.toThrow();
  });

  it('lets owners and admins, and nobody else, reach owned things', () => {
    expect(mayAccessOwnedBy(key('a', 'write'), 'a')).toBe(true);
    expect(mayAccessOwnedBy(key('b', 'write'), 'a')).toBe(false);
    expect(mayAccessOwnedBy(key('c', 'admin'), 'a')).toBe(true);
    expect(mayAccessOwnedBy(key('a', 'write'), null)).toBe(false);
  });
});

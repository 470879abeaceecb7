import { describe, expect, it, vi } from 'vitest';
import { Authenticator, type KeyCheck } from './authenticator.ts';
import { effectiveScopes, type Principal } from './principal.ts';

const reader: Principal = { kind: 'key', id: 'k1', name: 'reader', scopes: effectiveScopes(['read']) };

function authenticator(required: boolean, maxFailuresPerMinute = 3) {
  const verify = vi.fn(
    async (secret: string): Promise<KeyCheck> =>
      secret === 'good'
        ? { ok: true, principal: reader }
        : { ok: false, reason: secret === 'old' ? 'revoked' : 'invalid' },
  );
  return { verify, auth: new Authenticator({ required, verify, maxFailuresPerMinute }) };
}

describe('Authenticator', () => {
  it('lets a caller without a key in as anonymous with every scope only while keys are not required', async () => {
    const open = await authenticator(false).auth.authenticate({ kind: 'none' }, 'ip:1');
    expect(open).toMatchObject({ ok: true, principal: { kind: 'anonymous' } });
    if (open.ok) expect([...open.principal.scopes]).toEqual(['read', 'write', 'admin']);
    const closed = await authenticator(true).auth.authenticate({ kind: 'none' }, 'ip:1');
    expect(closed).toMatchObject({
      ok: false,
      error: { code: 'UNAUTHENTICATED', details: { reason: 'missing' } },
    });
  });

  it('never downgrades a wrong key to anonymous, even while keys are optional', async () => {
    const { auth } = authenticator(false);
    await expect(auth.authenticate({ kind: 'key', secret: 'nope' }, 'ip:1')).resolves.toMatchObject({
      ok: false,
      error: { code: 'UNAUTHENTICATED', message: 'the API key is not valid' },
    });
    await expect(auth.authenticate({ kind: 'key', secret: 'old' }, 'ip:1')).resolves.toMatchObject({
      ok: false,
      error: { message: 'the API key has been revoked' },
    });
    await expect(auth.authenticate({ kind: 'key', secret: 'good' }, 'ip:1')).resolves.toEqual({
      ok: true,
      principal: reader,
    });
  });

  it('stops asking the key store for an address that keeps failing, and only for that address', async () => {
    const { auth, verify } = authenticator(true, 3);
    for (let i = 0; i < 3; i++) await auth.authenticate({ kind: 'key', secret: `guess-${i}` }, 'ip:6.6.6.6');
    expect(verify).toHaveBeenCalledTimes(3);
    const refused = await auth.authenticate({ kind: 'key', secret: 'good' }, 'ip:6.6.6.6');
    expect(refused).toMatchObject({ ok: false, error: { code: 'RATE_LIMITED' } });
    if (!refused.ok) expect(refused.error.details?.retryAfterSeconds).toBeGreaterThan(0);
    expect(verify).toHaveBeenCalledTimes(3);
    await expect(auth.authenticate({ kind: 'key', secret: 'good' }, 'ip:1.2.3.4')).resolves.toMatchObject({
      ok: true,
    });
  });

  it('forgets the oldest addresses first when it tracks too many', async () => {
    const verify = async (): Promise<KeyCheck> => ({ ok: false, reason: 'invalid' });
    const auth = new Authenticator({
      required: true,
      verify,
      maxFailuresPerMinute: 1,
      maxTrackedAddresses: 2,
    });
    await auth.authenticate({ kind: 'key', secret: 'x' }, 'ip:a');
    await auth.authenticate({ kind: 'key', secret: 'x' }, 'ip:b');
    await auth.authenticate({ kind: 'key', secret: 'x' }, 'ip:c');
    // ip:a was forgotten, so it is asked about again (and fails as invalid, not as rate limited).
    await expect(auth.authenticate({ kind: 'key', secret: 'x' }, 'ip:a')).resolves.toMatchObject({
      error: { code: 'UNAUTHENTICATED' },
    });
    await expect(auth.authenticate({ kind: 'key', secret: 'x' }, 'ip:c')).resolves.toMatchObject({
      error: { code: 'RATE_LIMITED' },
    });
  });
});

describe('Authenticator on a shared address', () => {
  it('lets a key known to be valid through an address locked out by failed guesses', async () => {
    const verify = vi.fn(
      async (secret: string): Promise<KeyCheck> =>
        secret === 'good' ? { ok: true, principal: reader } : { ok: false, reason: 'invalid' },
    );
    const auth = new Authenticator({
      required: true,
      verify,
      known: (secret) => secret === 'good',
      maxFailuresPerMinute: 2,
    });
    for (let i = 0; i < 2; i++) await auth.authenticate({ kind: 'key', secret: `guess-${i}` }, 'ip:nat');
    await expect(auth.authenticate({ kind: 'key', secret: 'guess-3' }, 'ip:nat')).resolves.toMatchObject({
      error: { code: 'RATE_LIMITED' },
    });
    await expect(auth.authenticate({ kind: 'key', secret: 'good' }, 'ip:nat')).resolves.toMatchObject({
      ok: true,
    });
  });
});

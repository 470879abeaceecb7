import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from './api-keys.repository.ts';
import { VerifiedKeys } from './verified-keys.ts';

const record = (id: string): ApiKeyRecord =>
  ({
    id,
    name: `key ${id}`,
    prefix: 'abcd1234',
    scopes: ['read'],
    createdAt: new Date(0),
    createdBy: 'admin',
    expiresAt: null,
    lastUsedAt: null,
    revokedAt: null,
  }) as ApiKeyRecord;

/** A database of keys by hash whose reads wait until released, counting them. */
function slowDatabase() {
  const reads: Array<() => void> = [];
  let count = 0;
  const find = async (hash: string) => {
    count++;
    await new Promise<void>((resolve) => reads.push(resolve));
    return hash.startsWith('missing') ? undefined : record(`id-${hash}`);
  };
  return {
    find,
    release: () => {
      for (const read of reads.splice(0)) read();
    },
    count: () => count,
  };
}

describe('VerifiedKeys', () => {
  it('reads a hash once for a burst of lookups and trusts it for its time-to-live', async () => {
    const db = slowDatabase();
    const keys = new VerifiedKeys(db.find, 1_000, 10);
    const burst = Array.from({ length: 50 }, () => keys.lookUp('h1', 0));
    db.release();
    const found = await Promise.all(burst);
    expect(db.count()).toBe(1);
    expect(new Set(found).size).toBe(1);
    expect(found[0]?.valid).toMatchObject({ ok: true, principal: { id: 'id-h1', kind: 'key' } });
    expect(keys.fresh('h1', 999)).toBe(found[0]);
    expect(keys.fresh('h1', 1_000)).toBeUndefined();
  });

  it('keeps no key that does not exist, and at most maxKeys, the oldest leaving first', async () => {
    const db = slowDatabase();
    const keys = new VerifiedKeys(db.find, 1_000, 2);
    const lookups = ['missing', 'a', 'b', 'c'].map((h) => keys.lookUp(h, 0));
    db.release();
    expect(await lookups[0]).toBeUndefined();
    await Promise.all(lookups);
    expect(keys.size).toBe(2);
    expect(keys.fresh('a', 0)).toBeUndefined();
    expect(keys.fresh('c', 0)?.id).toBe('id-c');
  });

  it('answers but does not keep a read that overlapped a revocation or a clear', async () => {
    const db = slowDatabase();
    const keys = new VerifiedKeys(db.find, 1_000, 10);
    const during = keys.lookUp('h1', 0);
    keys.forget('some-other-id');
    db.release();
    expect((await during)?.id).toBe('id-h1');
    expect(keys.fresh('h1', 0)).toBeUndefined();

    const again = keys.lookUp('h1', 0);
    db.release();
    await again;
    expect(keys.fresh('h1', 0)?.id).toBe('id-h1');
    keys.forget('id-h1');
    expect(keys.fresh('h1', 0)).toBeUndefined();
    const third = keys.lookUp('h2', 0);
    keys.clear();
    db.release();
    await third;
    expect(keys.size).toBe(0);
  });
});

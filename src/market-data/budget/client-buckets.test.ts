import { describe, expect, it } from 'vitest';
import { ClientBuckets } from './client-buckets.ts';

describe('ClientBuckets', () => {
  it('gives each client its own share and says when the next call fits', () => {
    let now = 0;
    const buckets = new ClientBuckets(6, () => now);
    for (let i = 0; i < 6; i++) expect(buckets.take('a')).toEqual({ ok: true });
    expect(buckets.take('a')).toEqual({ ok: false, retryAfterMs: 10_000 });
    expect(buckets.take('b')).toEqual({ ok: true });
    now += 10_000;
    expect(buckets.take('a')).toEqual({ ok: true });
  });

  it('never lends ahead: refusals take nothing', () => {
    let now = 0;
    const buckets = new ClientBuckets(60, () => now);
    for (let i = 0; i < 60; i++) buckets.take('a');
    for (let i = 0; i < 1_000; i++) buckets.take('a');
    now += 1_000;
    expect(buckets.take('a')).toEqual({ ok: true });
  });

  it('forgets clients whose bucket has refilled', () => {
    let now = 0;
    const buckets = new ClientBuckets(60, () => now);
    for (let i = 0; i < 100; i++) buckets.take(`client-${i}`);
    expect(buckets.size).toBe(100);
    now += 120_000;
    buckets.take('late');
    expect(buckets.size).toBe(1);
  });
});

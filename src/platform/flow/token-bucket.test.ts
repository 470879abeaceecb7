import { describe, expect, it } from 'vitest';
import { KeyedTokenBuckets, TokenBucket } from './token-bucket.ts';

function bucket(ratePerSecond: number, burst: number) {
  let now = 0;
  const tokens = new TokenBucket(ratePerSecond, burst, () => now);
  return {
    reserve: (maxWaitMs?: number) => tokens.reserve(maxWaitMs),
    giveBack: () => tokens.giveBack(),
    tryTake: () => tokens.tryTake(),
    tryTakeAbove: (keep: number) => tokens.tryTakeAbove(keep),
    msUntilToken: () => tokens.msUntilToken(),
    isFull: () => tokens.isFull(),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('TokenBucket.reserve', () => {
  it('hands out the burst at once, then queues callers one interval apart', () => {
    const b = bucket(2, 3);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    // Each reservation waits for the token after the previous caller's.
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([500, 1000, 1500]);
  });

  it('refills at the sustained rate and never above the burst', () => {
    const b = bucket(2, 3);
    for (let i = 0; i < 3; i++) b.reserve();
    b.advance(500);
    expect(b.reserve()).toBe(0);
    expect(b.reserve()).toBe(500);
    b.advance(60_000);
    expect([b.reserve(), b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0, 500]);
  });

  it('spaces slow rates (5 per minute, burst 1) twelve seconds apart', () => {
    const b = bucket(5 / 60, 1);
    expect(b.reserve()).toBe(0);
    expect(b.reserve()).toBe(12_000);
    b.advance(12_000);
    expect(b.reserve()).toBe(12_000);
  });

  it('reserves nothing for a caller that cannot wait that long', () => {
    const b = bucket(1, 1);
    expect(b.reserve()).toBe(0);
    expect(b.reserve()).toBe(1000);
    // A third caller would wait 2 s; with at most 1.5 s it is refused and books nothing...
    expect(b.reserve(1_500)).toBe(-2000);
    // ...so the next caller's wait is the same 2 s, not 3 s.
    expect(b.reserve()).toBe(2000);
  });

  it('takes back the reservation of a caller that gave up, so those behind it do not wait for it', () => {
    const b = bucket(1, 1);
    b.reserve();
    expect(b.reserve()).toBe(1000);
    b.giveBack();
    expect(b.reserve()).toBe(1000);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(/positive/);
    expect(() => new KeyedTokenBuckets(-1, 1)).toThrow(/positive/);
  });
});

describe('TokenBucket.tryTakeAbove', () => {
  it('leaves the kept tokens to the callers that reserve, and waits behind their bookings', () => {
    // 4 a minute, burst 2, one kept: the shape of a 5-a-minute provider with an interactive reserve.
    const b = bucket(4 / 60, 2);
    expect(b.tryTakeAbove(1).ok).toBe(true);
    // The kept token is there for a reserving caller at once...
    expect(b.tryTakeAbove(1)).toEqual({ ok: false, retryAfterMs: 15_000 });
    expect(b.reserve()).toBe(0);
    // ...and once it is booked, spare work waits for the booking and the kept token to refill.
    expect(b.tryTakeAbove(1)).toEqual({ ok: false, retryAfterMs: 30_000 });
    b.advance(15_000);
    expect(b.tryTakeAbove(1).ok).toBe(false);
    expect(b.reserve()).toBe(0);
  });

  it('books nothing: refused spare work never delays the callers that reserve', () => {
    const b = bucket(1, 2);
    expect(b.tryTakeAbove(1).ok).toBe(true);
    for (let i = 0; i < 5; i++) expect(b.tryTakeAbove(1).ok).toBe(false);
    expect(b.reserve()).toBe(0);
    expect(b.reserve()).toBe(1000);
  });

  it('never takes when the kept tokens fill the burst', () => {
    const b = bucket(1, 1);
    expect(b.tryTakeAbove(1)).toEqual({ ok: false, retryAfterMs: Number.POSITIVE_INFINITY });
    expect(b.tryTakeAbove(0).ok).toBe(true);
  });
});

describe('TokenBucket.tryTake', () => {
  it('allows the burst, then one per refill, and refusals cost nothing', () => {
    const b = bucket(2, 3);
    expect([b.tryTake(), b.tryTake(), b.tryTake()].every((r) => r.ok)).toBe(true);
    expect(b.tryTake()).toEqual({ ok: false, retryAfterMs: 500 });
    // Refused calls do not push the next token further away.
    for (let i = 0; i < 10; i++) b.tryTake();
    expect(b.msUntilToken()).toBe(500);
    b.advance(500);
    expect(b.tryTake().ok).toBe(true);
    expect(b.tryTake().ok).toBe(false);
    b.advance(9_500);
    expect([b.tryTake(), b.tryTake(), b.tryTake(), b.tryTake()].map((r) => r.ok)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });

  it('takes back a token given back, never above the burst', () => {
    const b = bucket(1, 2);
    expect(b.isFull()).toBe(true);
    b.tryTake();
    b.tryTake();
    expect(b.tryTake().ok).toBe(false);
    b.giveBack();
    expect(b.tryTake().ok).toBe(true);
    b.giveBack();
    b.giveBack();
    b.giveBack();
    expect(b.isFull()).toBe(true);
    expect([b.tryTake(), b.tryTake(), b.tryTake()].map((r) => r.ok)).toEqual([true, true, false]);
  });

  it('adds nothing for a clock set back', () => {
    let now = 10_000;
    const b = new TokenBucket(1, 1, () => now);
    b.tryTake();
    now = 0;
    expect(b.tryTake()).toEqual({ ok: false, retryAfterMs: 1000 });
    now = 1_000;
    expect(b.tryTake().ok).toBe(true);
  });
});

describe('KeyedTokenBuckets', () => {
  it('gives each key its own share and says when the next call fits', () => {
    let now = 0;
    const buckets = new KeyedTokenBuckets(6 / 60, 6, () => now);
    for (let i = 0; i < 6; i++) expect(buckets.tryTake('a')).toEqual({ ok: true });
    expect(buckets.tryTake('a')).toEqual({ ok: false, retryAfterMs: 10_000 });
    expect(buckets.tryTake('b')).toEqual({ ok: true });
    now += 10_000;
    expect(buckets.tryTake('a')).toEqual({ ok: true });
  });

  it('never lends ahead: refusals take nothing', () => {
    let now = 0;
    const buckets = new KeyedTokenBuckets(1, 60, () => now);
    for (let i = 0; i < 60; i++) buckets.tryTake('a');
    for (let i = 0; i < 1_000; i++) buckets.tryTake('a');
    now += 1_000;
    expect(buckets.tryTake('a')).toEqual({ ok: true });
  });

  it('forgets keys whose bucket has refilled, once per sweep period', () => {
    let now = 0;
    const buckets = new KeyedTokenBuckets(1, 60, () => now, 60_000);
    for (let i = 0; i < 100; i++) buckets.tryTake(`client-${i}`);
    expect(buckets.size).toBe(100);
    now += 59_999;
    buckets.tryTake('early');
    expect(buckets.size).toBe(101);
    now += 60_001;
    buckets.tryTake('late');
    expect(buckets.size).toBe(1);
  });

  it('keeps a key whose bucket is still refilling', () => {
    let now = 0;
    const buckets = new KeyedTokenBuckets(1, 60, () => now);
    buckets.tryTake('idle');
    now = 50_000;
    for (let i = 0; i < 60; i++) buckets.tryTake('busy');
    now = 60_000;
    // The sweep (every 60 s, the time an empty bucket takes to refill): 'idle' is full again and
    // forgotten; 'busy' holds 10 of its 60 tokens and is kept.
    buckets.tryTake('late');
    expect(buckets.size).toBe(2);
    for (let i = 0; i < 10; i++) expect(buckets.tryTake('busy').ok).toBe(true);
    expect(buckets.tryTake('busy').ok).toBe(false);
    now = 120_000;
    buckets.tryTake('last');
    expect(buckets.size).toBe(1);
  });
});

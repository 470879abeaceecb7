import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.ts';

function bucket(ratePerSecond: number, burst: number) {
  let now = 0;
  const tokens = new TokenBucket(ratePerSecond, burst, () => now);
  return {
    take: (maxWaitMs?: number) => tokens.take(maxWaitMs),
    refund: () => tokens.refund(),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('TokenBucket', () => {
  it('hands out the burst at once, then queues callers one interval apart', () => {
    const b = bucket(2, 3);
    expect([b.take(), b.take(), b.take()]).toEqual([0, 0, 0]);
    // Each reservation waits for the token after the previous caller's.
    expect([b.take(), b.take(), b.take()]).toEqual([500, 1000, 1500]);
  });

  it('refills at the sustained rate and never above the burst', () => {
    const b = bucket(2, 3);
    for (let i = 0; i < 3; i++) b.take();
    b.advance(500);
    expect(b.take()).toBe(0);
    expect(b.take()).toBe(500);
    b.advance(60_000);
    expect([b.take(), b.take(), b.take(), b.take()]).toEqual([0, 0, 0, 500]);
  });

  it('spaces slow rates (5 per minute, burst 1) twelve seconds apart', () => {
    const b = bucket(5 / 60, 1);
    expect(b.take()).toBe(0);
    expect(b.take()).toBe(12_000);
    b.advance(12_000);
    expect(b.take()).toBe(12_000);
  });

  it('reserves nothing for a caller that cannot wait that long', () => {
    const b = bucket(1, 1);
    expect(b.take()).toBe(0);
    expect(b.take()).toBe(1000);
    // A third caller would wait 2 s; with at most 1.5 s it is refused and books nothing...
    expect(b.take(1_500)).toBe(-2000);
    // ...so the next caller's wait is the same 2 s, not 3 s.
    expect(b.take()).toBe(2000);
  });

  it('takes back the reservation of a caller that gave up, so those behind it do not wait for it', () => {
    const b = bucket(1, 1);
    b.take();
    expect(b.take()).toBe(1000);
    b.refund();
    expect(b.take()).toBe(1000);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(/positive/);
  });
});

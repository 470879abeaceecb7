import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.ts';

function bucket(ratePerSecond: number, burst: number) {
  let now = 0;
  const tokens = new TokenBucket(ratePerSecond, burst, () => now);
  return {
    take: () => tokens.take(),
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

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0, 1)).toThrow(/positive/);
  });
});

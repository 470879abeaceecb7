import { describe, expect, it } from 'vitest';
import { closeReason, RateGate } from './socket-limits.ts';

describe('RateGate', () => {
  it('allows the burst, then one per refill, and refusals cost nothing', () => {
    let now = 0;
    const gate = new RateGate(2, 3, () => now);
    expect([gate.tryTake(), gate.tryTake(), gate.tryTake()].every((r) => r.ok)).toBe(true);
    expect(gate.tryTake()).toEqual({ ok: false, retryAfterMs: 500 });
    // Refused calls do not push the next token further away.
    for (let i = 0; i < 10; i++) gate.tryTake();
    now = 500;
    expect(gate.tryTake().ok).toBe(true);
    expect(gate.tryTake().ok).toBe(false);
    now = 10_000;
    expect([gate.tryTake(), gate.tryTake(), gate.tryTake(), gate.tryTake()].map((r) => r.ok)).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('closeReason', () => {
  it('keeps a reason within the 123 bytes a close frame allows, multi-byte characters included', () => {
    expect(closeReason('short')).toBe('short');
    expect(Buffer.byteLength(closeReason('é'.repeat(100)))).toBeLessThanOrEqual(123);
    expect(Buffer.byteLength(closeReason('x'.repeat(500)))).toBe(123);
  });
});

import { describe, expect, it } from 'vitest';
import { closeReason } from './socket-limits.ts';

describe('closeReason', () => {
  it('keeps a reason within the 123 bytes a close frame allows, multi-byte characters included', () => {
    expect(closeReason('short')).toBe('short');
    expect(Buffer.byteLength(closeReason('é'.repeat(100)))).toBeLessThanOrEqual(123);
    expect(Buffer.byteLength(closeReason('x'.repeat(500)))).toBe(123);
  });
});

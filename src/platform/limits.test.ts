import { describe, expect, it } from 'vitest';
import { ValidationError } from './errors.ts';
import { checkIntervalMs, UPDATE_INTERVAL_MS } from './limits.ts';

describe('update interval bounds', () => {
  it('accepts the bounds and the default', () => {
    for (const ms of [UPDATE_INTERVAL_MS.min, UPDATE_INTERVAL_MS.default, UPDATE_INTERVAL_MS.max])
      expect(checkIntervalMs('intervalMs', ms)).toBe(ms);
  });

  it('names the field and the range when refusing', () => {
    for (const ms of [99, 60_001, Number.NaN]) {
      expect(() => checkIntervalMs('intervalMs', ms)).toThrow(ValidationError);
    }
    expect(() => checkIntervalMs('interval_ms', 5)).toThrow(
      'interval_ms: must be between 100 and 60000, got 5',
    );
  });
});

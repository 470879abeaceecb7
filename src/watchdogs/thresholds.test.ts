import { describe, expect, it } from 'vitest';
import { resolveThresholds, type ThresholdSpec, threshold } from './thresholds.ts';

interface Levels {
  readonly high: number;
  readonly critical: number;
  readonly share: number;
  readonly windowMs: number;
  readonly minCount: number;
  readonly maxCount: number;
}

const SPEC: ThresholdSpec<Levels> = {
  defaults: { high: 2, critical: 5, share: 0.5, windowMs: 60_000, minCount: 3, maxCount: 10 },
  demo: { windowMs: 5_000 },
  rules: {
    high: threshold.above(1),
    critical: threshold.above(1),
    share: threshold.fraction,
    windowMs: threshold.durationMs,
    minCount: threshold.count(1),
    maxCount: threshold.count(1),
  },
  order: [
    ['critical', '>', 'high'],
    ['minCount', '<=', 'maxCount'],
  ],
};

const resolve = (given: Record<string, unknown>, demo = false) => resolveThresholds(SPEC, given, demo);
const messages = (given: Record<string, unknown>) =>
  resolve(given).problems.map((p) => `${p.key}: ${p.message}`);

describe('resolveThresholds', () => {
  it('takes the defaults, then the demo replacements, then the given values key by key', () => {
    expect(resolve({})).toEqual({ thresholds: SPEC.defaults, problems: [] });
    expect(resolve({}, true).thresholds.windowMs).toBe(5_000);
    expect(resolve({ windowMs: 120_000, high: 3 }, true)).toEqual({
      thresholds: { ...SPEC.defaults, windowMs: 120_000, high: 3 },
      problems: [],
    });
  });

  it('names unknown keys and values that are not numbers', () => {
    expect(messages({ hihg: 3, share: '0.5', minCount: null })).toEqual([
      'hihg: unknown; known: high, critical, share, windowMs, minCount, maxCount',
      'share: must be a fraction above 0 and below 1',
      'minCount: must be a whole number of at least 1',
    ]);
  });

  it('refuses each value that breaks its own rule', () => {
    expect(messages({ high: 1, share: 1, windowMs: 0, minCount: 2.5 })).toEqual([
      'high: must be a number above 1',
      'share: must be a fraction above 0 and below 1',
      'windowMs: must be a whole number of milliseconds above 0',
      'minCount: must be a whole number of at least 1',
    ]);
    expect(messages({ windowMs: -60_000 })).toEqual([
      'windowMs: must be a whole number of milliseconds above 0',
    ]);
  });

  it('reports a broken ordering on the key the operator set', () => {
    // Only `critical` given, below the default `high`: critical is at fault.
    expect(messages({ critical: 1.5 })).toEqual(['critical: must be above high (2)']);
    // Only `high` given, above the default `critical`: high is at fault.
    expect(messages({ high: 6 })).toEqual(['high: must be below critical (5)']);
    // Both given: the first key of the ordering.
    expect(messages({ high: 6, critical: 4 })).toEqual(['critical: must be above high (6)']);
    // Equal is not above.
    expect(messages({ critical: 2 })).toEqual(['critical: must be above high (2)']);
    // `<=` holds at equality, and reads "at most" / "at least".
    expect(messages({ minCount: 10 })).toEqual([]);
    expect(messages({ minCount: 11 })).toEqual(['minCount: must be at most maxCount (10)']);
    expect(messages({ maxCount: 2 })).toEqual(['maxCount: must be at least minCount (3)']);
  });

  it('skips an ordering whose key is already refused (one problem per mistake)', () => {
    expect(messages({ critical: -1 })).toEqual(['critical: must be a number above 1']);
    expect(messages({ critical: 'x' })).toEqual(['critical: must be a number above 1']);
  });
});

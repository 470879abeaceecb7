import { describe, expect, it } from 'vitest';
import { type Candidate, reconcile } from './reconcile.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 5, 15, 0, s));
const c = (provider: string, value: number, second = 0): Candidate => ({ provider, value, asOf: at(second) });
const options = { tolerance: 0.01, maxLagMs: 60_000, preference: ['a', 'b', 'c', 'd'] };

describe('reconcile', () => {
  it('returns the only value with full agreement', () => {
    const r = reconcile([c('a', 100)], options);
    expect(r.chosen).toEqual(c('a', 100));
    expect(r).toMatchObject({ agreement: 1, conflict: false, rejected: [] });
  });

  it('chooses a value some provider reported, nearest the median, never an average', () => {
    const r = reconcile([c('a', 100.0), c('b', 100.2), c('c', 100.5)], options);
    expect(r.chosen.value).toBe(100.2);
    expect(r.chosen.provider).toBe('b');
    expect(r.agreement).toBe(1);
  });

  it('rejects an outlier beyond the tolerance, naming it and by how much', () => {
    const r = reconcile([c('a', 100), c('b', 100.1), c('c', 92)], options);
    expect(r.used.map((x) => x.provider)).toEqual(['a', 'b']);
    expect(r.rejected).toEqual([
      { provider: 'c', reason: expect.stringMatching(/^outlier: 92 is -8\.\d+% from the agreed 100/) },
    ]);
    expect(r.agreement).toBeCloseTo(2 / 3);
    expect(r.conflict).toBe(true);
  });

  it('settles a two-way disagreement in favour of the better-ranked provider', () => {
    const r = reconcile([c('b', 110), c('a', 100)], options);
    expect(r.chosen.provider).toBe('a');
    expect(r.rejected.map((x) => x.provider)).toEqual(['b']);
    expect(r.agreement).toBe(0.5);
  });

  it('rejects stale values before comparing prices', () => {
    const r = reconcile(
      [c('a', 100, 0), { provider: 'b', value: 100, asOf: new Date(at(0).getTime() - 600_000) }],
      options,
    );
    expect(r.chosen.provider).toBe('a');
    expect(r.rejected[0]).toMatchObject({
      provider: 'b',
      reason: expect.stringMatching(/^stale: 600s older/),
    });
  });

  it('prefers the freshest among equally central values', () => {
    const r = reconcile([c('a', 100, 1), c('b', 100, 5)], options);
    expect(r.chosen.provider).toBe('b');
  });
});

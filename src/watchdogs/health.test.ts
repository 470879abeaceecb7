import { describe, expect, it } from 'vitest';
import { watchdogStatus } from './health.ts';

const MIN = 60_000;
const t0 = new Date('2026-01-05T10:00:00Z');
const at = (minutes: number) => new Date(t0.getTime() + minutes * MIN);
const base = { enabled: true, since: t0, lastCheckAt: at(0), consecutiveFailures: 0, lastGaps: 0 };

describe('watchdogStatus', () => {
  it('is disabled whatever else holds', () => {
    expect(watchdogStatus({ ...base, enabled: false, consecutiveFailures: 9 }, MIN, at(100))).toBe(
      'disabled',
    );
  });

  it('is running after a clean check, and right after enabling before any check', () => {
    expect(watchdogStatus(base, MIN, at(1))).toBe('running');
    expect(watchdogStatus({ ...base, lastCheckAt: null }, MIN, at(2))).toBe('running');
  });

  it('is stopped once three intervals pass without a check (exactly three is not yet)', () => {
    expect(watchdogStatus(base, MIN, at(3))).toBe('running');
    expect(watchdogStatus(base, MIN, new Date(at(3).getTime() + 1))).toBe('stopped');
    expect(watchdogStatus({ ...base, lastCheckAt: null }, MIN, at(4))).toBe('stopped');
  });

  it('counts from a restart when the last check is older than it', () => {
    expect(watchdogStatus({ ...base, lastCheckAt: at(-100), since: at(10) }, MIN, at(11))).toBe('running');
  });

  it('is degraded after one or two failures or with data gaps, failing from three failures', () => {
    expect(watchdogStatus({ ...base, lastGaps: 2 }, MIN, at(1))).toBe('degraded');
    expect(watchdogStatus({ ...base, consecutiveFailures: 2 }, MIN, at(1))).toBe('degraded');
    expect(watchdogStatus({ ...base, consecutiveFailures: 3 }, MIN, at(1))).toBe('failing');
  });
});

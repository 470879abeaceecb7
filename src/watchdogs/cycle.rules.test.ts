import { describe, expect, it } from 'vitest';
import { cycleVerdict } from './cycle.rules.ts';
import type { CheckGap, CheckOutcome } from './watchdog.ts';

const outcome = (checked: number, gaps: CheckGap[]): CheckOutcome => ({ findings: [], checked, gaps });
const failed = (subject: string): CheckGap => ({ subject, error: 'yahoo: upstream error (502)' });
const deferred = (subject: string): CheckGap => ({
  subject,
  error: 'bars for X is unavailable: every provider failed (alphavantage: deferred)',
  deferred: true,
});

describe('cycleVerdict', () => {
  it('is ok without gaps, degraded with some', () => {
    expect(cycleVerdict(outcome(3, []))).toEqual({ result: 'ok' });
    expect(cycleVerdict(outcome(3, [failed('AAPL')]))).toEqual({
      result: 'degraded',
      lastError: 'no data for 1 of 3: AAPL: yahoo: upstream error (502)',
    });
  });

  it('fails when nothing could be had and something really failed', () => {
    const verdict = cycleVerdict(outcome(2, [deferred('AAPL'), failed('MSFT')]));
    expect(verdict.result).toBe('failed');
    // The real failure comes first; what was skipped is said beside it.
    expect(verdict).toMatchObject({
      lastError: expect.stringMatching(
        /^no data for 1 of 2: MSFT: .*; 1 of 2 skipped for want of provider budget \(AAPL\)/,
      ),
    });
  });

  it('is deferred, no failure, when every subject was only skipped for want of provider budget', () => {
    const verdict = cycleVerdict(outcome(7, ['A', 'B', 'C', 'D', 'E', 'F', 'G'].map(deferred)));
    expect(verdict).toEqual({
      result: 'deferred',
      lastError:
        '7 of 7 skipped for want of provider budget (A, B, C, D, E, and 2 more): the providers serve interactive callers first; asked again next cycle',
    });
  });

  it('says what was skipped when the rest was checked', () => {
    const verdict = cycleVerdict(outcome(3, [deferred('MSFT')]));
    expect(verdict.result).toBe('degraded');
    expect(verdict).toMatchObject({
      lastError: expect.stringMatching(/^1 of 3 skipped for want of provider budget \(MSFT\)/),
    });
  });
});

import { describe, expect, it } from 'vitest';
import { MARKETS, msUntilOpen, sessionState, usHolidays } from './markets.ts';

const us = MARKETS.US!;

describe('markets', () => {
  it('knows the NYSE holidays, with weekend observance', () => {
    const h2026 = usHolidays(2026);
    for (const day of [
      '2026-1-1',
      '2026-1-19',
      '2026-2-16',
      '2026-4-3',
      '2026-5-25',
      '2026-6-19',
      '2026-7-3',
      '2026-9-7',
      '2026-11-26',
      '2026-12-25',
    ]) {
      expect(h2026.has(day), day).toBe(true);
    }
    // 2022-01-01 was a Saturday: not observed on Friday 2021-12-31.
    expect(usHolidays(2021).has('2021-12-31')).toBe(false);
    expect(usHolidays(2022).has('2022-12-26')).toBe(true);
    expect(usHolidays(2024).has('2024-3-29')).toBe(true); // Good Friday
  });

  it('follows the session in exchange time across daylight saving changes', () => {
    expect(sessionState(us, new Date('2026-07-15T13:35:00Z'))).toBe('regular'); // 09:35 EDT
    expect(sessionState(us, new Date('2026-12-15T13:35:00Z'))).toBe('pre'); // 08:35 EST
    expect(sessionState(us, new Date('2026-12-15T21:05:00Z'))).toBe('post');
    expect(sessionState(MARKETS.UK!, new Date('2026-07-15T07:30:00Z'))).toBe('regular'); // 08:30 BST
  });

  it('measures the time until the next open over weekends and holidays', () => {
    // Friday 2026-11-20 16:30 New York -> Monday 09:30 = 65 h.
    expect(msUntilOpen(us, new Date('2026-11-20T21:30:00Z'))).toBe(65 * 3_600_000);
    // Wednesday before Thanksgiving 17:00 -> Friday 09:30.
    expect(msUntilOpen(us, new Date('2026-11-25T22:00:00Z'))).toBe((7 + 24 + 9.5) * 3_600_000);
    expect(msUntilOpen(us, new Date('2026-11-18T15:00:00Z'))).toBe(0);
  });
});

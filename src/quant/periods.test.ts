import { describe, expect, it } from 'vitest';
import { ANNUALISED_DAILY, periodsPerYear, tradingCalendar } from './periods.ts';

describe('periods per year', () => {
  it('gives listed sessions to every asset class but crypto and fx', () => {
    for (const kind of ['equity', 'etf', 'index', 'macro', 'us']) {
      expect(tradingCalendar(kind)).toBe('listed');
      expect(periodsPerYear(kind)).toBe(252);
    }
    expect(periodsPerYear('crypto')).toBe(365);
    expect(periodsPerYear('fx')).toBe(261);
  });

  it('counts hourly bars by the hours of a session', () => {
    expect(periodsPerYear('equity', 'hourly')).toBe(252 * 6.5);
    expect(periodsPerYear('crypto', 'hourly')).toBe(365 * 24);
    expect(periodsPerYear('fx', 'hourly')).toBe(261 * 24);
  });

  it('states the rule from the table', () => {
    expect(ANNUALISED_DAILY).toBe('x sqrt(252) (365 for crypto, 261 for fx)');
  });
});

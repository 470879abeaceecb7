import { describe, expect, it } from 'vitest';
import { sessionState, tradingHours } from '../../market-hours.rules.ts';
import { localTime, MARKETS } from '../../markets.ts';
import {
  DAY_MS,
  dayIndexOf,
  dayStartMs,
  lastStartedTradingDay,
  MINUTE_MS,
  previousTradingDay,
  sessionEndMs,
  sessionOf,
  tradingDayOnOrAfter,
  usEasternOffsetMinutes,
} from './calendar.ts';

const day = (iso: string) => dayIndexOf(Date.parse(`${iso}T12:00:00Z`));

describe('simulated calendars', () => {
  it('knows US Eastern daylight time without Intl (checked against Intl for 2015-2030)', () => {
    for (let ms = Date.UTC(2015, 0, 1); ms < Date.UTC(2031, 0, 1); ms += DAY_MS) {
      const noonUtc = ms + 17 * 3_600_000;
      const local = localTime(new Date(noonUtc), 'America/New_York');
      const date = new Date(ms);
      const offset = usEasternOffsetMinutes(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
      expect(17 * 60 - local.minute, date.toISOString()).toBe(offset);
    }
  });

  it('trades the US session exactly when the one market calendar says (holidays, early closes)', () => {
    for (let d = day('2024-01-01'); d < day('2027-12-31'); d++) {
      const session = sessionOf('us', d);
      const noon = new Date(dayStartMs(d) + 17 * 3_600_000);
      const trading = sessionState(MARKETS.US!, noon) !== 'closed';
      expect(session !== null, noon.toISOString()).toBe(trading);
      if (!session) continue;
      const hours = tradingHours(MARKETS.US!, localTime(noon, 'America/New_York'))!;
      expect(localTime(new Date(session.openMs), 'America/New_York').minute).toBe(570);
      const lastMinute = localTime(new Date(sessionEndMs(session) - MINUTE_MS), 'America/New_York').minute;
      expect(lastMinute, noon.toISOString()).toBe(hours.close - 1);
      expect(session.minutes).toBe(hours.earlyClose ? 210 : 390);
      expect(sessionState(MARKETS.US!, new Date(sessionEndMs(session) - MINUTE_MS))).toBe('regular');
      expect(sessionState(MARKETS.US!, new Date(sessionEndMs(session)))).toBe('post');
    }
    expect(sessionOf('us', day('2025-01-09'))).toBeNull(); // National Day of Mourning
    expect(sessionOf('us', day('2025-11-28'))!.minutes).toBe(210); // closes at 13:00
    expect(sessionOf('us', day('2025-12-25'))).toBeNull();
    expect(sessionOf('us', day('2025-01-20'))).toBeNull(); // Martin Luther King Jr. Day
    expect(sessionOf('us', day('2025-03-10'))!.openMs).toBe(Date.parse('2025-03-10T13:30:00Z'));
    expect(sessionOf('us', day('2025-03-07'))!.openMs).toBe(Date.parse('2025-03-07T14:30:00Z'));
  });

  it('trades crypto every day and fx on weekdays, around the clock', () => {
    const saturday = day('2025-06-14');
    expect(sessionOf('crypto', saturday)).toEqual({
      openMs: Date.parse('2025-06-14T00:00:00Z'),
      minutes: 1440,
    });
    expect(sessionOf('fx', saturday)).toBeNull();
    expect(sessionOf('fx', saturday + 2)).toEqual({
      openMs: Date.parse('2025-06-16T00:00:00Z'),
      minutes: 1440,
    });
  });

  it('finds the previous and the last started trading day', () => {
    expect(previousTradingDay('us', day('2025-06-16'))).toBe(day('2025-06-13'));
    expect(previousTradingDay('crypto', day('2025-06-16'))).toBe(day('2025-06-15'));
    expect(tradingDayOnOrAfter('us', day('2025-12-25'))).toBe(day('2025-12-26'));
    expect(lastStartedTradingDay('us', Date.parse('2025-06-16T13:00:00Z'))).toBe(day('2025-06-13'));
    expect(lastStartedTradingDay('us', Date.parse('2025-06-16T13:30:00Z'))).toBe(day('2025-06-16'));
    expect(lastStartedTradingDay('fx', Date.parse('2025-06-15T10:00:00Z'))).toBe(day('2025-06-13'));
    expect(lastStartedTradingDay('crypto', Date.parse('2015-01-01T00:00:00Z'))).toBe(0);
    expect(lastStartedTradingDay('us', Date.parse('2015-01-01T20:00:00Z'))).toBeUndefined();
  });
});

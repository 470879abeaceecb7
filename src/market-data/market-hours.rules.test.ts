import { describe, expect, it } from 'vitest';
import { holidaysOf } from './market-holidays.ts';
import { msUntilOpen, type SessionState, sessionState } from './market-hours.rules.ts';
import { MARKETS } from './markets.ts';

const HOUR = 3_600_000;

/** [market, instant (UTC), expected state, why]: boundaries are checked a minute either side. */
const CASES: ReadonlyArray<readonly [string, string, SessionState, string]> = [
  // A summer Wednesday in New York (EDT, UTC-4).
  ['US', '2025-06-11T07:59:00Z', 'closed', '03:59, before pre-market'],
  ['US', '2025-06-11T08:00:00Z', 'pre', '04:00, pre-market opens'],
  ['US', '2025-06-11T13:29:00Z', 'pre', '09:29'],
  ['US', '2025-06-11T13:30:00Z', 'regular', '09:30, the open'],
  ['US', '2025-06-11T19:59:00Z', 'regular', '15:59'],
  ['US', '2025-06-11T20:00:00Z', 'post', '16:00, the close'],
  ['US', '2025-06-11T23:59:00Z', 'post', '19:59'],
  ['US', '2025-06-12T00:00:00Z', 'closed', '20:00, after-hours over'],
  // Winter (EST, UTC-5), and the week daylight time starts (Sunday 9 March 2025).
  ['US', '2025-03-07T14:29:00Z', 'pre', 'Friday 09:29 EST'],
  ['US', '2025-03-07T14:30:00Z', 'regular', 'Friday 09:30 EST'],
  ['US', '2025-03-10T13:29:00Z', 'pre', 'Monday 09:29 EDT'],
  ['US', '2025-03-10T13:30:00Z', 'regular', 'Monday 09:30 EDT: the same UTC time was pre-market on Friday'],
  ['US', '2025-11-03T08:59:00Z', 'closed', 'Monday 03:59 EST, after daylight time ended'],
  ['US', '2025-11-03T09:00:00Z', 'pre', 'Monday 04:00 EST'],
  // Weekends and holidays: shut all day, extended hours included.
  ['US', '2025-06-14T15:00:00Z', 'closed', 'Saturday'],
  ['US', '2025-07-04T12:00:00Z', 'closed', 'Independence Day, 08:00'],
  ['US', '2025-07-04T15:00:00Z', 'closed', 'Independence Day, 11:00'],
  ['US', '2025-07-04T21:00:00Z', 'closed', 'Independence Day, 17:00'],
  ['US', '2025-01-09T15:00:00Z', 'closed', 'National Day of Mourning'],
  ['US', '2026-07-03T15:00:00Z', 'closed', 'Independence Day observed on Friday'],
  // A half day: the day after Thanksgiving closes at 13:00, after-hours until 17:00.
  ['US', '2025-11-28T17:59:00Z', 'regular', 'half day, 12:59'],
  ['US', '2025-11-28T18:00:00Z', 'post', 'half day, 13:00'],
  ['US', '2025-11-28T21:59:00Z', 'post', 'half day, 16:59'],
  ['US', '2025-11-28T22:00:00Z', 'closed', 'half day, 17:00'],
  ['US', '2025-12-24T18:00:00Z', 'post', 'Christmas Eve, 13:00'],
  // Markets without extended hours: closed outside the regular session.
  ['UK', '2025-06-11T06:59:00Z', 'closed', 'London 07:59 BST'],
  ['UK', '2025-06-11T07:00:00Z', 'regular', 'London 08:00'],
  ['UK', '2025-06-11T15:29:00Z', 'regular', 'London 16:29'],
  ['UK', '2025-06-11T15:30:00Z', 'closed', 'London 16:30'],
  ['UK', '2025-04-18T10:00:00Z', 'closed', 'Good Friday'],
  ['UK', '2025-04-21T10:00:00Z', 'closed', 'Easter Monday'],
  ['UK', '2025-12-24T12:29:00Z', 'regular', 'Christmas Eve 12:29 GMT'],
  ['UK', '2025-12-24T12:30:00Z', 'closed', 'Christmas Eve closes at 12:30'],
  ['UK', '2026-12-28T10:00:00Z', 'closed', 'Boxing Day on a Saturday, observed Monday'],
  ['DE', '2025-12-24T10:00:00Z', 'closed', 'Xetra shut on Christmas Eve'],
  ['DE', '2025-05-01T10:00:00Z', 'closed', 'Labour Day'],
  ['DE', '2025-06-09T10:00:00Z', 'regular', 'Whit Monday trades on Xetra'],
  ['CH', '2025-06-09T10:00:00Z', 'closed', 'Whit Monday, SIX'],
  ['FR', '2025-12-31T13:04:00Z', 'regular', 'Paris 14:04'],
  ['FR', '2025-12-31T13:05:00Z', 'closed', 'New Year’s Eve closes at 14:05'],
  ['NL', '2025-12-26T10:00:00Z', 'closed', 'Boxing Day'],
  ['JP', '2025-06-11T02:29:00Z', 'regular', 'Tokyo 11:29'],
  ['JP', '2025-06-11T02:30:00Z', 'closed', 'Tokyo lunch break, 11:30'],
  ['JP', '2025-06-11T03:30:00Z', 'regular', 'Tokyo 12:30, the afternoon session'],
  ['JP', '2025-06-11T06:30:00Z', 'closed', 'Tokyo 15:30, the close'],
  ['JP', '2026-09-22T02:00:00Z', 'closed', "Citizens' Holiday between two holidays"],
  ['JP', '2025-01-03T02:00:00Z', 'closed', 'year-end closing, 3 January'],
  ['HK', '2025-07-01T02:00:00Z', 'closed', 'HKSAR Establishment Day'],
  ['HK', '2025-06-11T04:30:00Z', 'closed', 'Hong Kong lunch break, 12:30'],
  ['CA', '2025-05-19T15:00:00Z', 'closed', 'Victoria Day'],
  ['CA', '2025-05-20T15:00:00Z', 'regular', 'the day after'],
  ['AU', '2025-04-25T02:00:00Z', 'closed', 'Anzac Day'],
  ['IN', '2025-08-15T05:00:00Z', 'closed', 'Independence Day'],
  ['IN', '2025-08-14T03:44:00Z', 'closed', 'Mumbai 09:14'],
  ['IN', '2025-08-14T03:45:00Z', 'regular', 'Mumbai 09:15'],
];

describe('market hours: the one session function', () => {
  it.each(CASES)('%s at %s is %s (%s)', (code, iso, expected) => {
    expect(sessionState(MARKETS[code]!, new Date(iso))).toBe(expected);
  });

  it('reads the US rules the way the NYSE published 2026 and 2027, and applies them to 2028', () => {
    // The published table covers 2025-2027; a year outside it comes from NYSE Rule 7.2 (2028 was
    // published later: New Year's Day on a Saturday is not observed).
    expect(holidaysOf('US', 2028)).toEqual([
      '2028-01-17',
      '2028-02-21',
      '2028-04-14',
      '2028-05-29',
      '2028-06-19',
      '2028-07-04',
      '2028-09-04',
      '2028-11-23',
      '2028-12-25',
    ]);
    expect(sessionState(MARKETS.US!, new Date('2028-07-03T17:30:00Z'))).toBe('post'); // early close
    expect(holidaysOf('US', 2027)).toContain('2027-12-24'); // Christmas on a Saturday, observed Friday
  });

  it('measures the time until the next open over weekends, holidays, half days and breaks', () => {
    const us = MARKETS.US!;
    // Friday 2026-11-20 16:30 New York -> Monday 09:30 = 65 h.
    expect(msUntilOpen(us, new Date('2026-11-20T21:30:00Z'))).toBe(65 * HOUR);
    // Wednesday before Thanksgiving 17:00 -> Friday 09:30.
    expect(msUntilOpen(us, new Date('2026-11-25T22:00:00Z'))).toBe((7 + 24 + 9.5) * HOUR);
    expect(msUntilOpen(us, new Date('2026-11-18T15:00:00Z'))).toBe(0);
    // Saturday 8 March 2025 noon EST -> Monday 09:30 EDT: 45.5 h of wall clock, 44.5 h elapsed.
    expect(msUntilOpen(us, new Date('2025-03-08T17:00:00Z'))).toBe(44.5 * HOUR);
    // The half day's 13:00 -> Monday 09:30.
    expect(msUntilOpen(us, new Date('2025-11-28T18:00:00Z'))).toBe((11 + 48 + 9.5) * HOUR);
    // Tokyo's lunch break: the afternoon session resumes at 12:30.
    expect(msUntilOpen(MARKETS.JP!, new Date('2025-06-11T02:45:00Z'))).toBe(0.75 * HOUR);
  });
});

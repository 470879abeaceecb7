/**
 * The NYSE calendar as the exchange published it, for 2025-2027. Source: NYSE Group, "NYSE Group
 * Announces 2025, 2026 and 2027 Holiday and Early Closings Calendar" (8 November 2024, also at
 * nyse.com/markets/hours-calendars), plus the National Day of Mourning for President Carter on
 * 9 January 2025 (NYSE notice of 30 December 2024). Nasdaq observes the same days. Early closes end
 * the regular session at 13:00 New York time; the late trading sessions close at 17:00.
 * Years outside the table follow the rules in market-holidays.ts.
 */

/** A calendar date as `YYYY-MM-DD`. */
export type DateKey = string;

/** The NYSE calendar as published for 2025-2027 (see the header): full closings, and 13:00 early closes. */
export const US_PUBLISHED: Readonly<
  Record<number, { closed: readonly DateKey[]; early: readonly DateKey[] }>
> = {
  2025: {
    closed: [
      '2025-01-01',
      '2025-01-09', // National Day of Mourning, President Carter
      '2025-01-20',
      '2025-02-17',
      '2025-04-18',
      '2025-05-26',
      '2025-06-19',
      '2025-07-04',
      '2025-09-01',
      '2025-11-27',
      '2025-12-25',
    ],
    early: ['2025-07-03', '2025-11-28', '2025-12-24'],
  },
  2026: {
    closed: [
      '2026-01-01',
      '2026-01-19',
      '2026-02-16',
      '2026-04-03',
      '2026-05-25',
      '2026-06-19',
      '2026-07-03',
      '2026-09-07',
      '2026-11-26',
      '2026-12-25',
    ],
    early: ['2026-11-27', '2026-12-24'],
  },
  2027: {
    closed: [
      '2027-01-01',
      '2027-01-18',
      '2027-02-15',
      '2027-03-26',
      '2027-05-31',
      '2027-06-18',
      '2027-07-05',
      '2027-09-06',
      '2027-11-25',
      '2027-12-24',
    ],
    early: ['2027-11-26'],
  },
};

/** The minute a US early close ends the regular session: 13:00 New York time. */
export const US_EARLY_CLOSE_MINUTE = 13 * 60;

/**
 * Days an exchange does not trade, or closes early, by market code: the data behind
 * `market-hours.rules.ts`. Pure: a calendar date in, an answer out.
 *
 * US: NYSE and Nasdaq. 2025-2027 come from the exchange's published calendar
 * (`market-holidays-us.ts`, which names its source); other years follow the same rules (NYSE
 * Rule 7.2: a Saturday holiday is observed on Friday, a Sunday one on Monday, a Saturday New
 * Year's Day not at all), which cannot foresee an unscheduled closing.
 * Other markets: their fixed and Easter-based public holidays and their usual year-end early
 * closes, by rule (see MARKET_HOLIDAYS); holidays that follow the lunar or a religious calendar
 * (Lunar New Year, Diwali...) are not known, so such a day reads as a trading day.
 */

import { type DateKey, US_EARLY_CLOSE_MINUTE, US_PUBLISHED } from './market-holidays-us.ts';

export type { DateKey } from './market-holidays-us.ts';

export const dateKey = (y: number, mo: number, d: number): DateKey =>
  `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

const DAY_MS = 86_400_000;
const utc = (y: number, mo: number, d: number) => new Date(Date.UTC(y, mo - 1, d));
const keyOf = (date: Date) => dateKey(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
const shift = (date: Date, days: number) => new Date(date.getTime() + days * DAY_MS);
const isWeekend = (date: Date) => date.getUTCDay() === 0 || date.getUTCDay() === 6;

function nthWeekday(y: number, mo: number, weekday: number, n: number): Date {
  const first = utc(y, mo, 1);
  return utc(y, mo, 1 + ((weekday - first.getUTCDay() + 7) % 7) + (n - 1) * 7);
}

function lastWeekday(y: number, mo: number, weekday: number): Date {
  const last = utc(y, mo + 1, 0);
  return shift(last, -((last.getUTCDay() - weekday + 7) % 7));
}

const mondayOnOrBefore = (date: Date) => shift(date, -((date.getUTCDay() + 6) % 7));

/** Easter Sunday, anonymous Gregorian algorithm (Meeus/Jones/Butcher). */
export function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((b + 8) / 25) + 1) / 3) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return utc(year, month, ((h + l - 7 * m + 114) % 31) + 1);
}

const easter = (year: number, days: number) => shift(easterSunday(year), days);

/** US closings by NYSE Rule 7.2, for years the published table does not cover. */
function usRuleHolidays(year: number): Date[] {
  const observed = (mo: number, d: number) => {
    const date = utc(year, mo, d);
    return date.getUTCDay() === 6 ? shift(date, -1) : date.getUTCDay() === 0 ? shift(date, 1) : date;
  };
  return [
    ...(utc(year, 1, 1).getUTCDay() === 6 ? [] : [observed(1, 1)]),
    nthWeekday(year, 1, 1, 3), // Martin Luther King Jr. Day
    nthWeekday(year, 2, 1, 3), // Washington's Birthday
    easter(year, -2), // Good Friday
    lastWeekday(year, 5, 1), // Memorial Day
    ...(year >= 2022 ? [observed(6, 19)] : []), // Juneteenth
    observed(7, 4),
    nthWeekday(year, 9, 1, 1), // Labor Day
    nthWeekday(year, 11, 4, 4), // Thanksgiving
    observed(12, 25),
  ];
}

/** US early closes by the usual rule: July 3, the day after Thanksgiving, Christmas Eve (weekdays that trade). */
function usRuleEarlyCloses(year: number, closed: ReadonlySet<DateKey>): DateKey[] {
  const candidates = [utc(year, 7, 3), shift(nthWeekday(year, 11, 4, 4), 1), utc(year, 12, 24)];
  return candidates.filter((d) => !isWeekend(d) && !closed.has(keyOf(d))).map(keyOf);
}

/** Moves a holiday that falls on a weekend to the next weekday not already a holiday (UK, Canada, Australia). */
function substituted(days: readonly Date[]): Date[] {
  const taken = new Set<DateKey>();
  return days.map((day) => {
    let d = day;
    while (isWeekend(d) || taken.has(keyOf(d))) d = shift(d, 1);
    taken.add(keyOf(d));
    return d;
  });
}

/** A Sunday holiday moves to the next weekday not already a holiday (Japan, Hong Kong). */
function sundaySubstituted(days: readonly Date[]): Date[] {
  const keys = new Set(days.map(keyOf));
  return days.map((day) => {
    if (day.getUTCDay() !== 0) return day;
    let d = shift(day, 1);
    while (keys.has(keyOf(d))) d = shift(d, 1);
    keys.add(keyOf(d));
    return d;
  });
}

/** Japan's equinox days by the astronomical equinox in Tokyo (announced each February; computed here). */
const JP_EQUINOXES: Readonly<Record<number, readonly [number, number]>> = {
  2025: [20, 23],
  2026: [20, 23],
  2027: [21, 23],
};

function japanHolidays(y: number): Date[] {
  const [spring, autumn] = JP_EQUINOXES[y] ?? [20, 23];
  const national = sundaySubstituted([
    utc(y, 1, 1),
    nthWeekday(y, 1, 1, 2),
    utc(y, 2, 11),
    utc(y, 2, 23),
    utc(y, 3, spring),
    utc(y, 4, 29),
    utc(y, 5, 3),
    utc(y, 5, 4),
    utc(y, 5, 5),
    nthWeekday(y, 7, 1, 3),
    utc(y, 8, 11),
    nthWeekday(y, 9, 1, 3),
    utc(y, 9, autumn),
    nthWeekday(y, 10, 1, 2),
    utc(y, 11, 3),
    utc(y, 11, 23),
  ]);
  // A weekday between two holidays is a holiday too (Citizens' Holiday, e.g. 22 September 2026).
  const keys = new Set(national.map(keyOf));
  const between = national
    .map((d) => shift(d, 1))
    .filter((d) => !keys.has(keyOf(d)) && keys.has(keyOf(shift(d, 1))) && d.getUTCDay() !== 0);
  // The exchange also closes from 31 December to 3 January.
  return [...national, ...between, utc(y, 1, 2), utc(y, 1, 3), utc(y, 12, 31)];
}

interface MarketCalendar {
  /** Full closings of a year (weekends aside). */
  readonly holidays: (year: number) => Date[];
  /** Early closes of a year: date and the local minute the regular session ends. */
  readonly earlyCloses?: (year: number) => Array<readonly [Date, number]>;
}

const yearEnd = (minute: number) => (y: number) =>
  [utc(y, 12, 24), utc(y, 12, 31)].map((d) => [d, minute] as const);

const euronext: MarketCalendar = {
  holidays: (y) => [utc(y, 1, 1), easter(y, -2), easter(y, 1), utc(y, 5, 1), utc(y, 12, 25), utc(y, 12, 26)],
  earlyCloses: yearEnd(14 * 60 + 5),
};

/** Non-US markets by code: their holiday rules (see the header for what they leave out). */
const MARKET_HOLIDAYS: Readonly<Record<string, MarketCalendar>> = {
  UK: {
    holidays: (y) =>
      substituted([
        utc(y, 1, 1),
        easter(y, -2),
        easter(y, 1),
        nthWeekday(y, 5, 1, 1),
        lastWeekday(y, 5, 1),
        lastWeekday(y, 8, 1),
        utc(y, 12, 25),
        utc(y, 12, 26),
      ]),
    earlyCloses: yearEnd(12 * 60 + 30),
  },
  DE: {
    holidays: (y) => [
      utc(y, 1, 1),
      easter(y, -2),
      easter(y, 1),
      utc(y, 5, 1),
      utc(y, 12, 24),
      utc(y, 12, 25),
      utc(y, 12, 26),
      utc(y, 12, 31),
    ],
  },
  FR: euronext,
  NL: euronext,
  CH: {
    holidays: (y) => [
      utc(y, 1, 1),
      utc(y, 1, 2),
      easter(y, -2),
      easter(y, 1),
      utc(y, 5, 1),
      easter(y, 39), // Ascension
      easter(y, 50), // Whit Monday
      utc(y, 8, 1),
      utc(y, 12, 24),
      utc(y, 12, 25),
      utc(y, 12, 26),
      utc(y, 12, 31),
    ],
  },
  JP: { holidays: japanHolidays },
  HK: {
    holidays: (y) =>
      sundaySubstituted([
        utc(y, 1, 1),
        easter(y, -2),
        easter(y, 1),
        utc(y, 5, 1),
        utc(y, 7, 1),
        utc(y, 10, 1),
        utc(y, 12, 25),
        utc(y, 12, 26),
      ]),
    // Christmas Eve and New Year's Eve trade the morning session only.
    earlyCloses: yearEnd(12 * 60),
  },
  CA: {
    holidays: (y) => [
      ...substituted([utc(y, 1, 1)]),
      nthWeekday(y, 2, 1, 3), // Family Day
      easter(y, -2),
      mondayOnOrBefore(utc(y, 5, 24)), // Victoria Day
      ...substituted([utc(y, 7, 1)]),
      nthWeekday(y, 8, 1, 1), // Civic Holiday
      nthWeekday(y, 9, 1, 1), // Labour Day
      nthWeekday(y, 10, 1, 2), // Thanksgiving
      ...substituted([utc(y, 12, 25), utc(y, 12, 26)]),
    ],
  },
  AU: {
    holidays: (y) => [
      ...substituted([utc(y, 1, 1)]),
      ...substituted([utc(y, 1, 26)]), // Australia Day
      easter(y, -2),
      easter(y, 1),
      utc(y, 4, 25), // Anzac Day (no substitute for the exchange)
      nthWeekday(y, 6, 1, 2), // King's Birthday
      ...substituted([utc(y, 12, 25), utc(y, 12, 26)]),
    ],
    earlyCloses: yearEnd(14 * 60 + 10),
  },
  IN: {
    holidays: (y) => [utc(y, 1, 26), utc(y, 5, 1), utc(y, 8, 15), utc(y, 10, 2), utc(y, 12, 25)],
  },
};

/** One market's closings and early closes of one year. */
interface YearCalendar {
  readonly closed: ReadonlySet<DateKey>;
  /** Date -> local minute the regular session ends that day. */
  readonly early: ReadonlyMap<DateKey, number>;
}

const calendars = new Map<string, YearCalendar>();

function usYear(year: number): YearCalendar {
  const published = US_PUBLISHED[year];
  const closed = new Set(published ? published.closed : usRuleHolidays(year).map(keyOf));
  const early = published ? published.early : usRuleEarlyCloses(year, closed);
  return { closed, early: new Map(early.map((d) => [d, US_EARLY_CLOSE_MINUTE])) };
}

function yearCalendar(code: string, year: number): YearCalendar {
  const cacheKey = `${code}:${year}`;
  const cached = calendars.get(cacheKey);
  if (cached) return cached;
  let calendar: YearCalendar;
  if (code === 'US') calendar = usYear(year);
  else {
    const rules = MARKET_HOLIDAYS[code];
    const closed = new Set((rules?.holidays(year) ?? []).map(keyOf));
    const early = (rules?.earlyCloses?.(year) ?? []).filter(([d]) => !isWeekend(d) && !closed.has(keyOf(d)));
    calendar = { closed, early: new Map(early.map(([d, minute]) => [keyOf(d), minute])) };
  }
  calendars.set(cacheKey, calendar);
  return calendar;
}

/** Whether the market of `code` is shut all day on this (weekday) date for a holiday. */
export function isHoliday(code: string, year: number, month: number, day: number): boolean {
  return yearCalendar(code, year).closed.has(dateKey(year, month, day));
}

/** The local minute an early close ends the regular session on this date, or null on a full day. */
export function earlyCloseMinute(code: string, year: number, month: number, day: number): number | null {
  return yearCalendar(code, year).early.get(dateKey(year, month, day)) ?? null;
}

/** Every holiday of a market in a year, sorted (for the docs and the tests). */
export function holidaysOf(code: string, year: number): DateKey[] {
  return [...yearCalendar(code, year).closed].sort();
}

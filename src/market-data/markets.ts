/**
 * Markets Vigil knows by code (the `market` argument of the data tools): their time zone, regular
 * session and the suffix Yahoo-style symbols carry. Used to validate input, to map symbols to
 * providers, and to make cache lifetimes market-hours aware in the exchange's own time zone.
 * Holidays are known for US exchanges (NYSE rules); other markets close on weekends only.
 */
export interface MarketInfo {
  readonly code: string;
  readonly name: string;
  readonly timeZone: string;
  /** Regular session, local time, minutes after midnight. */
  readonly openMinute: number;
  readonly closeMinute: number;
  /** Suffix of Yahoo-style tickers (`.L`); empty for the US. */
  readonly suffix: string;
  readonly currency: string;
}

const m = (h: number, min: number) => h * 60 + min;

export const MARKETS: Readonly<Record<string, MarketInfo>> = {
  US: {
    code: 'US',
    name: 'United States (NYSE, Nasdaq)',
    timeZone: 'America/New_York',
    openMinute: m(9, 30),
    closeMinute: m(16, 0),
    suffix: '',
    currency: 'USD',
  },
  UK: {
    code: 'UK',
    name: 'London Stock Exchange',
    timeZone: 'Europe/London',
    openMinute: m(8, 0),
    closeMinute: m(16, 30),
    suffix: '.L',
    currency: 'GBP',
  },
  DE: {
    code: 'DE',
    name: 'Xetra',
    timeZone: 'Europe/Berlin',
    openMinute: m(9, 0),
    closeMinute: m(17, 30),
    suffix: '.DE',
    currency: 'EUR',
  },
  FR: {
    code: 'FR',
    name: 'Euronext Paris',
    timeZone: 'Europe/Paris',
    openMinute: m(9, 0),
    closeMinute: m(17, 30),
    suffix: '.PA',
    currency: 'EUR',
  },
  NL: {
    code: 'NL',
    name: 'Euronext Amsterdam',
    timeZone: 'Europe/Amsterdam',
    openMinute: m(9, 0),
    closeMinute: m(17, 30),
    suffix: '.AS',
    currency: 'EUR',
  },
  CH: {
    code: 'CH',
    name: 'SIX Swiss Exchange',
    timeZone: 'Europe/Zurich',
    openMinute: m(9, 0),
    closeMinute: m(17, 30),
    suffix: '.SW',
    currency: 'CHF',
  },
  JP: {
    code: 'JP',
    name: 'Tokyo Stock Exchange',
    timeZone: 'Asia/Tokyo',
    openMinute: m(9, 0),
    closeMinute: m(15, 30),
    suffix: '.T',
    currency: 'JPY',
  },
  HK: {
    code: 'HK',
    name: 'Hong Kong Exchanges',
    timeZone: 'Asia/Hong_Kong',
    openMinute: m(9, 30),
    closeMinute: m(16, 0),
    suffix: '.HK',
    currency: 'HKD',
  },
  CA: {
    code: 'CA',
    name: 'Toronto Stock Exchange',
    timeZone: 'America/Toronto',
    openMinute: m(9, 30),
    closeMinute: m(16, 0),
    suffix: '.TO',
    currency: 'CAD',
  },
  AU: {
    code: 'AU',
    name: 'Australian Securities Exchange',
    timeZone: 'Australia/Sydney',
    openMinute: m(10, 0),
    closeMinute: m(16, 0),
    suffix: '.AX',
    currency: 'AUD',
  },
  IN: {
    code: 'IN',
    name: 'National Stock Exchange of India',
    timeZone: 'Asia/Kolkata',
    openMinute: m(9, 15),
    closeMinute: m(15, 30),
    suffix: '.NS',
    currency: 'INR',
  },
};

export const MARKET_CODES = Object.keys(MARKETS);

export function marketInfo(code: string): MarketInfo | undefined {
  return MARKETS[code.toUpperCase()];
}

export function marketForSuffix(suffix: string): MarketInfo | undefined {
  const s = suffix.toUpperCase();
  return Object.values(MARKETS).find((info) => info.suffix !== '' && info.suffix.toUpperCase() === s);
}

interface LocalTime {
  readonly year: number;
  readonly month: number; // 1..12
  readonly day: number;
  readonly weekday: number; // 0 Sunday .. 6 Saturday
  readonly minute: number; // minutes after local midnight
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** Wall-clock parts of an instant in a time zone (DST included). */
export function localTime(at: Date, timeZone: string): LocalTime {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      weekday: 'short',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(timeZone, f);
  }
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS.indexOf(parts.weekday ?? ''),
    minute: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/**
 * The instant of a wall-clock time (`YYYY-MM-DD` + minutes after local midnight) in a time zone,
 * DST included: the zone's offset is read at a first guess and again at the corrected instant.
 * Null for a malformed date.
 */
export function wallClockToUtc(date: string, minute: number, timeZone: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) return null;
  const wall = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 0, minute);
  if (Number.isNaN(wall)) return null;
  let instant = wall;
  for (let i = 0; i < 2; i++) {
    const local = localTime(new Date(instant), timeZone);
    instant = wall - (Date.UTC(local.year, local.month - 1, local.day, 0, local.minute) - instant);
  }
  return new Date(instant);
}

export type SessionState = 'pre' | 'regular' | 'post' | 'closed';

/** Where the market is in its trading day at `at` (pre/post = same weekday outside the session). */
export function sessionState(market: MarketInfo, at: Date): SessionState {
  const local = localTime(at, market.timeZone);
  if (!isTradingDay(market, local)) return 'closed';
  if (local.minute < market.openMinute) return 'pre';
  if (local.minute >= market.closeMinute) return 'post';
  return 'regular';
}

export function isTradingDay(
  market: MarketInfo,
  local: Pick<LocalTime, 'year' | 'month' | 'day' | 'weekday'>,
): boolean {
  if (local.weekday === 0 || local.weekday === 6) return false;
  if (market.code === 'US' && usHolidays(local.year).has(dayKey(local.year, local.month, local.day)))
    return false;
  return true;
}

/**
 * Milliseconds from `at` until the next regular-session open (0 while the session is open).
 * Searches minute-exact in the exchange's time zone, so DST changes are honoured.
 */
export function msUntilOpen(market: MarketInfo, at: Date): number {
  if (sessionState(market, at) === 'regular') return 0;
  // Step to each following local day's open; at most two weeks ahead (long holiday runs included).
  for (let dayOffset = 0; dayOffset < 15; dayOffset++) {
    const probe = new Date(at.getTime() + dayOffset * 86_400_000);
    const local = localTime(probe, market.timeZone);
    if (!isTradingDay(market, local)) continue;
    const open = probe.getTime() + (market.openMinute - local.minute) * 60_000 - (probe.getTime() % 60_000);
    if (open > at.getTime()) return open - at.getTime();
  }
  return 86_400_000;
}

const dayKey = (y: number, mo: number, d: number) => `${y}-${mo}-${d}`;
const holidayCache = new Map<number, Set<string>>();

/** NYSE full-day holidays of a year, by the exchange's rules (weekend holidays observed Fri/Mon). */
export function usHolidays(year: number): Set<string> {
  const cached = holidayCache.get(year);
  if (cached) return cached;
  const days = new Set<string>();
  const add = (date: Date) =>
    days.add(dayKey(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate()));
  const observed = (mo: number, d: number) => {
    const date = new Date(Date.UTC(year, mo - 1, d));
    const wd = date.getUTCDay();
    if (wd === 6) date.setUTCDate(d - 1);
    if (wd === 0) date.setUTCDate(d + 1);
    return date;
  };
  const nthWeekday = (mo: number, weekday: number, n: number) => {
    const first = new Date(Date.UTC(year, mo - 1, 1));
    const offset = (weekday - first.getUTCDay() + 7) % 7;
    return new Date(Date.UTC(year, mo - 1, 1 + offset + (n - 1) * 7));
  };
  const lastWeekday = (mo: number, weekday: number) => {
    const last = new Date(Date.UTC(year, mo, 0));
    return new Date(Date.UTC(year, mo - 1, last.getUTCDate() - ((last.getUTCDay() - weekday + 7) % 7)));
  };
  // New Year's Day falling on a Saturday is not observed on the preceding Friday (NYSE rule 7.2).
  const newYear = new Date(Date.UTC(year, 0, 1));
  if (newYear.getUTCDay() !== 6) add(observed(1, 1));
  add(nthWeekday(1, 1, 3)); // Martin Luther King Jr. Day
  add(nthWeekday(2, 1, 3)); // Washington's Birthday
  const easter = easterSunday(year);
  add(new Date(easter.getTime() - 2 * 86_400_000)); // Good Friday
  add(lastWeekday(5, 1)); // Memorial Day
  if (year >= 2022) add(observed(6, 19)); // Juneteenth
  add(observed(7, 4)); // Independence Day
  add(nthWeekday(9, 1, 1)); // Labor Day
  add(nthWeekday(11, 4, 4)); // Thanksgiving
  add(observed(12, 25)); // Christmas
  holidayCache.set(year, days);
  return days;
}

/** Anonymous Gregorian algorithm (Meeus/Jones/Butcher). */
function easterSunday(year: number): Date {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const mm = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * mm + 114) / 31);
  const day = ((h + l - 7 * mm + 114) % 31) + 1;
  return new Date(Date.UTC(year, month - 1, day));
}

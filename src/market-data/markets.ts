/**
 * Markets Vigil knows by code (the `market` argument of the data tools): their time zone, regular
 * session and the suffix Yahoo-style symbols carry. Used to validate input, to map symbols to
 * providers, and to make cache lifetimes market-hours aware in the exchange's own time zone.
 * Which days they trade and how a day is divided (extended hours, breaks, holidays, early closes)
 * is decided in one place, `market-hours.rules.ts`.
 */
export interface MarketInfo {
  readonly code: string;
  readonly name: string;
  readonly timeZone: string;
  /** Regular session, local time, minutes after midnight. */
  readonly openMinute: number;
  readonly closeMinute: number;
  /**
   * Extended hours, local minutes: pre-market from `preOpenMinute` to the open, after-hours from
   * the close to `postCloseMinute`. Absent where the exchange has no such trading session.
   */
  readonly preOpenMinute?: number;
  readonly postCloseMinute?: number;
  /** A midday break in the regular session (Tokyo, Hong Kong), local minutes. */
  readonly lunchBreak?: readonly [number, number];
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
    // Nasdaq and NYSE Arca: pre-market from 04:00, after-hours until 20:00.
    preOpenMinute: m(4, 0),
    postCloseMinute: m(20, 0),
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
    lunchBreak: [m(11, 30), m(12, 30)],
    suffix: '.T',
    currency: 'JPY',
  },
  HK: {
    code: 'HK',
    name: 'Hong Kong Exchanges',
    timeZone: 'Asia/Hong_Kong',
    openMinute: m(9, 30),
    closeMinute: m(16, 0),
    lunchBreak: [m(12, 0), m(13, 0)],
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

export interface LocalTime {
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

import { tradingHours } from '../../market-hours.rules.ts';
import { MARKETS } from '../../markets.ts';

/**
 * When each simulated instrument trades. Days are UTC calendar days counted from HISTORY_START;
 * a day's session is a run of whole minutes:
 * - `us`: NYSE/Nasdaq regular session 09:30-16:00 America/New_York on NYSE trading days, 09:30-13:00
 *   on early closes (the days and hours of market-hours.rules.ts, which every surface's market state
 *   reads, so the simulated market trades exactly when Vigil says it does);
 * - `crypto`: the whole UTC day, every day;
 * - `fx`: the whole UTC day, Monday to Friday (24/5).
 */
export type CalendarKind = 'us' | 'crypto' | 'fx';

export const HISTORY_START_MS = Date.UTC(2015, 0, 1);
export const DAY_MS = 86_400_000;
export const MINUTE_MS = 60_000;

export interface Session {
  readonly openMs: number;
  readonly minutes: number;
}

export const dayIndexOf = (ms: number): number => Math.floor((ms - HISTORY_START_MS) / DAY_MS);
export const dayStartMs = (day: number): number => HISTORY_START_MS + day * DAY_MS;
export const sessionEndMs = (session: Session): number => session.openMs + session.minutes * MINUTE_MS;

/**
 * Offset of US Eastern time from UTC in minutes on a calendar date (rule in force since 2007: daylight
 * time from the second Sunday of March to the first Sunday of November). Computed arithmetically
 * because Intl is far too slow for a decade of days; the calendar test checks it against Intl.
 */
export function usEasternOffsetMinutes(year: number, month: number, day: number): number {
  const secondSundayOfMarch = 8 + ((7 - new Date(Date.UTC(year, 2, 8)).getUTCDay()) % 7);
  const firstSundayOfNovember = 1 + ((7 - new Date(Date.UTC(year, 10, 1)).getUTCDay()) % 7);
  const daylight =
    (month > 3 && month < 11) ||
    (month === 3 && day >= secondSundayOfMarch) ||
    (month === 11 && day < firstSundayOfNovember);
  return daylight ? 240 : 300;
}

const US = MARKETS.US!;
const usSessions: Array<Session | null> = [];

function usSession(day: number): Session | null {
  if (day < 0) return computeUsSession(day);
  while (usSessions.length <= day) usSessions.push(computeUsSession(usSessions.length));
  return usSessions[day]!;
}

function computeUsSession(day: number): Session | null {
  const start = new Date(dayStartMs(day));
  const local = {
    year: start.getUTCFullYear(),
    month: start.getUTCMonth() + 1,
    day: start.getUTCDate(),
    weekday: start.getUTCDay(),
  };
  const hours = tradingHours(US, local);
  if (!hours) return null;
  const offset = usEasternOffsetMinutes(local.year, local.month, local.day);
  return {
    openMs: start.getTime() + (hours.open + offset) * MINUTE_MS,
    minutes: hours.close - hours.open,
  };
}

/** The session of a calendar day, or null when the instrument does not trade that day. */
export function sessionOf(kind: CalendarKind, day: number): Session | null {
  if (kind === 'us') return usSession(day);
  if (kind === 'fx') {
    const weekday = new Date(dayStartMs(day)).getUTCDay();
    if (weekday === 0 || weekday === 6) return null;
  }
  return { openMs: dayStartMs(day), minutes: 1_440 };
}

/** The latest trading day strictly before `day` (long holiday runs included), or undefined before history. */
export function previousTradingDay(kind: CalendarKind, day: number): number | undefined {
  for (let d = day - 1; d >= 0 && d > day - 20; d--) if (sessionOf(kind, d)) return d;
  return undefined;
}

/** The latest trading day whose session has begun at `ms` (the one running, or the last one). */
export function lastStartedTradingDay(kind: CalendarKind, ms: number): number | undefined {
  const today = dayIndexOf(ms);
  const session = sessionOf(kind, today);
  if (session && session.openMs <= ms) return today;
  return previousTradingDay(kind, today);
}

/** The first trading day on or after `day`. */
export function tradingDayOnOrAfter(kind: CalendarKind, day: number): number {
  let d = day;
  while (!sessionOf(kind, d)) d++;
  return d;
}

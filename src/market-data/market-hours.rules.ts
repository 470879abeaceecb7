import { dateKey, earlyCloseMinute, isHoliday } from './market-holidays.ts';
import { type LocalTime, localTime, type MarketInfo, wallClockToUtc } from './markets.ts';

/**
 * How an exchange's day is divided, in its own time zone (DST included): the one decision behind
 * every market state Vigil shows (quotes, price streams, data tools) and behind cache lifetimes.
 * Pure: a market and an instant in, an answer out.
 */

export type SessionState = 'pre' | 'regular' | 'post' | 'closed';

/** One trading day of a market, in local minutes after midnight. */
export interface TradingHours {
  /** Start of pre-market trading; equal to `open` where there is none. */
  readonly preOpen: number;
  readonly open: number;
  /** End of the regular session (13:00 on a US early close). */
  readonly close: number;
  /** End of after-hours trading; equal to `close` where there is none. */
  readonly postClose: number;
  /** A break inside the regular session (lunch in Tokyo and Hong Kong), when it falls before the close. */
  readonly lunchBreak: readonly [number, number] | null;
  readonly earlyClose: boolean;
}

type LocalDate = Pick<LocalTime, 'year' | 'month' | 'day' | 'weekday'>;

/** Whether the market trades at all on this local date: a weekday that is not one of its holidays. */
export function isTradingDay(market: MarketInfo, local: LocalDate): boolean {
  if (local.weekday === 0 || local.weekday === 6) return false;
  return !isHoliday(market.code, local.year, local.month, local.day);
}

/** The market's hours on a local date, or null when it does not trade that day. */
export function tradingHours(market: MarketInfo, local: LocalDate): TradingHours | null {
  if (!isTradingDay(market, local)) return null;
  const early = earlyCloseMinute(market.code, local.year, local.month, local.day);
  const close = early ?? market.closeMinute;
  // After-hours keeps its length on an early close (US: 13:00 to 17:00).
  const postLength = (market.postCloseMinute ?? market.closeMinute) - market.closeMinute;
  const lunch = market.lunchBreak && market.lunchBreak[0] < close ? market.lunchBreak : null;
  return {
    preOpen: market.preOpenMinute ?? market.openMinute,
    open: market.openMinute,
    close,
    postClose: close + postLength,
    lunchBreak: lunch,
    earlyClose: early !== null,
  };
}

/** Where the market is at a local minute of a day with these hours. */
export function stateWithin(hours: TradingHours | null, minute: number): SessionState {
  if (!hours) return 'closed';
  if (minute < hours.preOpen) return 'closed';
  if (minute < hours.open) return 'pre';
  if (minute < hours.close) {
    const lunch = hours.lunchBreak;
    return lunch && minute >= lunch[0] && minute < lunch[1] ? 'closed' : 'regular';
  }
  return minute < hours.postClose ? 'post' : 'closed';
}

/**
 * Where the market is in its trading day at `at`: `pre` and `post` only inside the exchange's
 * extended-hours windows (US 04:00-09:30 and 16:00-20:00 New York time, 13:00-17:00 after an early
 * close), `closed` outside them, on weekends, on holidays and during a lunch break.
 */
export function sessionState(market: MarketInfo, at: Date): SessionState {
  const local = localTime(at, market.timeZone);
  return stateWithin(tradingHours(market, local), local.minute);
}

/**
 * Milliseconds from `at` until the regular session next opens or resumes after its break (0 while
 * it is open). Opens are read as wall-clock times in the exchange's zone, so DST changes are honoured.
 */
export function msUntilOpen(market: MarketInfo, at: Date): number {
  if (sessionState(market, at) === 'regular') return 0;
  // Each following local day, at most two weeks ahead (long holiday runs included).
  for (let offset = 0; offset < 15; offset++) {
    const local = localTime(new Date(at.getTime() + offset * 86_400_000), market.timeZone);
    const hours = tradingHours(market, local);
    if (!hours) continue;
    const date = dateKey(local.year, local.month, local.day);
    for (const minute of hours.lunchBreak ? [hours.open, hours.lunchBreak[1]] : [hours.open]) {
      const start = wallClockToUtc(date, minute, market.timeZone);
      if (start && start.getTime() > at.getTime()) return start.getTime() - at.getTime();
    }
  }
  return 86_400_000;
}

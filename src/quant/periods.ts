/**
 * How many bars make a year, by trading calendar: listed markets hold about 252 sessions a year
 * (weekdays less exchange holidays), fx trades 24 hours a day Monday to Friday (261 weekdays),
 * crypto trades every day. The one place this rule lives: annualising volatility and Sharpe, turning
 * `1y` into bars, the simulated market's per-day rates, and every conventions text that states it.
 */
export const PERIODS_PER_YEAR = { listed: 252, fx: 261, crypto: 365 } as const;

/** Trading hours in one daily session: a US regular session is 09:30-16:00; fx and crypto trade all day. */
export const HOURS_PER_SESSION = { listed: 6.5, fx: 24, crypto: 24 } as const;

export type TradingCalendar = keyof typeof PERIODS_PER_YEAR;

/**
 * The calendar of an asset class or calendar kind: `crypto` and `fx` have their own; anything else
 * (equity, etf, index, macro, a listed market such as the simulator's `us`) trades listed sessions.
 */
export function tradingCalendar(kind: string): TradingCalendar {
  return kind === 'crypto' || kind === 'fx' ? kind : 'listed';
}

/** Bars per year of `kind` (an asset class or calendar kind), daily by default or hourly. */
export function periodsPerYear(kind: string, bars: 'daily' | 'hourly' = 'daily'): number {
  const calendar = tradingCalendar(kind);
  const daily = PERIODS_PER_YEAR[calendar];
  return bars === 'daily' ? daily : daily * HOURS_PER_SESSION[calendar];
}

/** How daily statistics are annualised, as conventions texts state it. */
export const ANNUALISED_DAILY =
  `x sqrt(${PERIODS_PER_YEAR.listed}) (${PERIODS_PER_YEAR.crypto} for crypto, ` +
  `${PERIODS_PER_YEAR.fx} for fx)`;

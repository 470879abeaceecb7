import type { AssetClass, BarInterval } from '../../market-data/types.ts';
import { HOURS_PER_SESSION, PERIODS_PER_YEAR, periodsPerYear, tradingCalendar } from '../../quant/periods.ts';
import type { Argument, Duration } from '../ast.ts';
import { FkDslQueryError } from '../errors.ts';

/**
 * Durations become bar counts. Daily bars: `Nd` = N bars (trading sessions for listed instruments,
 * days for crypto), `Nw` = 5N bars (7N for crypto), `Nm` = 21N (30N), `Ny` = N years of bars by
 * the trading calendar (quant/periods.ts). `Nh` = N hourly bars. A plain number is a count of daily bars.
 */
export interface BarWindow {
  readonly interval: Extract<BarInterval, '1d' | '1h'>;
  readonly bars: number;
  /** As the user wrote it (`30d`, `20`), for labels and results. */
  readonly text: string;
}

/** Longest history one query may ask for: ten years of daily bars. */
export const MAX_HISTORY_YEARS = 10;
/**
 * Longest hourly window: about 14 months of US sessions, 12 weeks around the clock. Live providers
 * keep about two years of hourly history, and each hourly bar costs a day's bar many times over
 * to fetch or generate (see cost.ts).
 */
export const MAX_HOURLY_BARS = 2_000;

export function maxDailyBars(assetClass: AssetClass): number {
  return MAX_HISTORY_YEARS * periodsPerYear(assetClass);
}

/** How windows are counted, for the conventions returned with every result. */
export const WINDOW_CONVENTIONS =
  'Nd = N daily bars (sessions for listed instruments, days for crypto); Nw = 5N (7N crypto); Nm = 21N (30N); ' +
  `Ny = ${PERIODS_PER_YEAR.listed}N (${PERIODS_PER_YEAR.crypto}N crypto, ${PERIODS_PER_YEAR.fx}N fx); ` +
  `Nh = N hourly bars (at most ${MAX_HOURLY_BARS}); a plain number = daily bars; at most ${MAX_HISTORY_YEARS} years`;

export function toWindow(
  arg: Argument | undefined,
  fallback: string | number,
  assetClass: AssetClass,
): BarWindow {
  const value = arg ?? parseDefault(fallback);
  if (value.kind === 'number')
    return checked({ interval: '1d', bars: value.value, text: String(value.value) }, assetClass);
  if (value.kind !== 'duration')
    throw new FkDslQueryError(`expected a window (bars or a duration), got a ${value.kind}`);
  return checked(fromDuration(value, assetClass), assetClass);
}

export function fromDuration(d: Duration, assetClass: AssetClass): BarWindow {
  const crypto = assetClass === 'crypto';
  const text = `${d.value}${d.unit}`;
  switch (d.unit) {
    case 'h':
      return { interval: '1h', bars: d.value, text };
    case 'd':
      return { interval: '1d', bars: d.value, text };
    case 'w':
      return { interval: '1d', bars: d.value * (crypto ? 7 : 5), text };
    case 'm':
      return { interval: '1d', bars: d.value * (crypto ? 30 : 21), text };
    case 'y':
      return { interval: '1d', bars: d.value * periodsPerYear(assetClass), text };
  }
}

function checked(window: BarWindow, assetClass: AssetClass): BarWindow {
  const max = window.interval === '1h' ? MAX_HOURLY_BARS : maxDailyBars(assetClass);
  if (window.bars > max) {
    const why = window.interval === '1h' ? 'hourly windows' : `${MAX_HISTORY_YEARS} years daily`;
    throw new FkDslQueryError(
      `window ${window.text} is ${window.bars} bars; at most ${max} ${window.interval} bars (${why})`,
      {
        window: window.text,
        limit: max,
      },
    );
  }
  return window;
}

function parseDefault(fallback: string | number): Argument {
  if (typeof fallback === 'number') return { kind: 'number', value: fallback, percent: false };
  const match = /^(\d+)([hdwmy])$/.exec(fallback);
  if (!match) throw new Error(`bad default window ${fallback}`);
  return { kind: 'duration', value: Number(match[1]), unit: match[2] as Duration['unit'] };
}

/** Calendar days to request so that `bars` bars come back (weekends, holidays, a margin). */
export function calendarDaysFor(
  window: Pick<BarWindow, 'interval' | 'bars'>,
  assetClass: AssetClass,
): number {
  const crypto = assetClass === 'crypto';
  if (window.interval === '1h') {
    const hoursPerDay = HOURS_PER_SESSION[tradingCalendar(assetClass)];
    return Math.ceil((window.bars / hoursPerDay) * (crypto ? 1 : 7 / 5) * 1.15) + 3;
  }
  return Math.ceil(window.bars * (crypto ? 1 : 365 / 250) * 1.04) + 7;
}

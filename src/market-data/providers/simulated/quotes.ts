import { marketStateAt } from '../../market-state.ts';
import { priceChange } from '../../price-change.ts';
import type { CryptoStats, Profile, Quote } from '../../types.ts';
import { priceOf, volumeOf } from './bars.ts';
import {
  DAY_MS,
  dayIndexOf,
  lastStartedTradingDay,
  previousTradingDay,
  sessionEndMs,
  sessionOf,
} from './calendar.ts';
import type { DailyPath } from './daily.ts';
import type { Observation } from './macro.ts';
import type { SimulatedMarket } from './market.ts';
import { stream } from './rng.ts';
import { type Known, VENUE, type View } from './universe.ts';
import { LISTED } from './universe-data.ts';

/**
 * Quotes, profiles and 24-hour statistics, all read off the same paths at `nowMs`. Listed instruments
 * (and fx) quote their current or last regular session against the previous session's close; crypto
 * quotes live around the clock against the price 24 hours earlier.
 */
const round = (value: number, decimals: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

interface Rolling {
  readonly price: number;
  readonly reference: number | null;
  readonly open: number | null;
  readonly high: number | null;
  readonly low: number | null;
  readonly volume: number | null;
  readonly quoteVolume: number | null;
  readonly asOf: number;
}

/** A session-based instrument: the running session, or the last one when the market is shut. */
function sessionSnapshot(
  market: SimulatedMarket,
  path: DailyPath,
  view: View,
  nowMs: number,
): Rolling | undefined {
  const kind = path.spec.calendar;
  const day = lastStartedTradingDay(kind, nowMs);
  if (day === undefined) return undefined;
  const bar = market.dayBar(path, day, nowMs);
  if (!bar) return undefined;
  const end = sessionEndMs(sessionOf(kind, day)!);
  const running = nowMs < end;
  const previous = previousTradingDay(kind, day);
  const [high, low] = view.invert ? [bar.low, bar.high] : [bar.high, bar.low];
  return {
    price: priceOf(view, bar.close),
    reference: previous === undefined ? null : priceOf(view, path.logClose(previous)),
    open: priceOf(view, bar.open),
    high: priceOf(view, high),
    low: priceOf(view, low),
    volume: volumeOf(view, bar.volume),
    quoteVolume: null,
    asOf: running ? nowMs : end,
  };
}

/** Around-the-clock instrument: price now against 24 hours earlier, with the 24-hour range and volume. */
function rollingSnapshot(
  market: SimulatedMarket,
  path: DailyPath,
  view: View,
  nowMs: number,
): Rolling | undefined {
  const now = market.priceAt(path, nowMs);
  if (!now) return undefined;
  const dayAgo = market.priceAt(path, nowMs - DAY_MS);
  let high = -Infinity;
  let low = Infinity;
  let volume = 0;
  let quoteVolume = 0;
  market.eachMinute(path, nowMs - DAY_MS, nowMs, nowMs, (m) => {
    if (m.high > high) high = m.high;
    if (m.low < low) low = m.low;
    volume += m.volume;
    quoteVolume += (volumeOf(view, m.volume) ?? 0) * priceOf(view, m.close);
  });
  const [hi, lo] = view.invert ? [low, high] : [high, low];
  const reference = dayAgo ? priceOf(view, dayAgo.log) : null;
  return {
    price: priceOf(view, now.log),
    reference,
    open: reference,
    high: Number.isFinite(hi) ? priceOf(view, hi) : null,
    low: Number.isFinite(lo) ? priceOf(view, lo) : null,
    volume: volumeOf(view, volume),
    quoteVolume: view.volumeShare === null ? null : round(quoteVolume, 2),
    asOf: nowMs,
  };
}

export function snapshot(market: SimulatedMarket, known: Known, nowMs: number): Rolling | undefined {
  const view = known.view!;
  const path = market.path(view.path);
  return path.spec.calendar === 'crypto'
    ? rollingSnapshot(market, path, view, nowMs)
    : sessionSnapshot(market, path, view, nowMs);
}

/** The quote of a snapshot taken at `nowMs`; its market state is the one every surface reads. */
export function quoteOf(known: Known, s: Rolling, nowMs: number): Quote {
  return {
    symbol: known.instrument.symbol,
    price: s.price,
    ...priceChange(s.price, s.reference),
    previousClose: s.reference,
    open: s.open,
    dayHigh: s.high,
    dayLow: s.low,
    volume: s.volume,
    currency: known.currency,
    asOf: new Date(s.asOf),
    name: known.name,
    ...(known.exchange ? { exchange: known.exchange } : {}),
    marketState: marketStateAt(known.instrument, new Date(nowMs)),
  };
}

export function cryptoStatsOf(market: SimulatedMarket, known: Known, s: Rolling, nowMs: number): CryptoStats {
  const { change, changePercent } = priceChange(s.price, s.reference);
  const usd = market.priceAt(market.path(known.coin!.path), nowMs);
  return {
    symbol: known.instrument.symbol,
    venue: VENUE,
    lastPrice: s.price,
    priceChange: change ?? 0,
    priceChangePercent: changePercent ?? 0,
    high: s.high ?? s.price,
    low: s.low ?? s.price,
    volume: s.volume ?? 0,
    quoteVolume: s.quoteVolume,
    marketCap: usd ? Math.round(Math.exp(usd.log) * known.coin!.circulatingSupply) : null,
    asOf: new Date(nowMs),
  };
}

const SPY = LISTED.find((l) => l.symbol === 'SPY')!;

/** Completed trading days before `nowMs`, most recent first, up to `count`. */
function completedDays(path: DailyPath, nowMs: number, count: number): number[] {
  const days: number[] = [];
  let day = lastStartedTradingDay(path.spec.calendar, nowMs);
  if (day !== undefined && sessionEndMs(sessionOf(path.spec.calendar, day)!) > nowMs) {
    day = previousTradingDay(path.spec.calendar, day);
  }
  while (day !== undefined && days.length < count) {
    days.push(day);
    day = previousTradingDay(path.spec.calendar, day);
  }
  return days;
}

/** Beta of daily log returns against SPY over the last year of completed sessions. */
function beta(market: SimulatedMarket, path: DailyPath, nowMs: number): number | null {
  const spy = market.path(SPY.path);
  const days = completedDays(path, nowMs, 253).reverse();
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 1; i < days.length; i++) {
    xs.push(spy.logClose(days[i]!) - spy.logClose(days[i - 1]!));
    ys.push(path.logClose(days[i]!) - path.logClose(days[i - 1]!));
  }
  if (xs.length < 60) return null;
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const [mx, my] = [mean(xs), mean(ys)];
  let cov = 0;
  let varX = 0;
  for (let i = 0; i < xs.length; i++) {
    cov += (xs[i]! - mx) * (ys[i]! - my);
    varX += (xs[i]! - mx) ** 2;
  }
  return round(cov / varX, 3);
}

export function profileOf(market: SimulatedMarket, known: Known, s: Rolling, nowMs: number): Profile {
  const view = known.view!;
  const path = market.path(view.path);
  const listed = known.listed;
  const averageDays = completedDays(path, nowMs, listed ? 63 : 90);
  const volumes = averageDays.map((d) => volumeOf(view, path.summary(d)!.volume) ?? 0);
  let high = -Infinity;
  let low = Infinity;
  for (let day = dayIndexOf(nowMs - 365 * DAY_MS); day <= dayIndexOf(nowMs); day++) {
    const bar = market.dayBar(path, day, nowMs);
    if (!bar) continue;
    high = Math.max(high, priceOf(view, view.invert ? bar.low : bar.high));
    low = Math.min(low, priceOf(view, view.invert ? bar.high : bar.low));
  }
  let marketCap: number | null = null;
  let peRatio: number | null = null;
  if (listed) {
    marketCap = Math.round(s.price * listed.sharesOutstanding);
    if (listed.assetClass === 'equity') {
      const priceAt = (ms: number) => {
        const p = market.priceAt(path, ms);
        return p ? Math.exp(p.log) : undefined;
      };
      const eps = market.earnings.trailingEps(listed, nowMs, priceAt);
      peRatio = eps !== null && eps > 0 ? round(s.price / eps, 2) : null;
    }
  } else if (known.coin) {
    const usd = market.priceAt(market.path(known.coin.path), nowMs);
    marketCap = usd ? Math.round(Math.exp(usd.log) * known.coin.circulatingSupply) : null;
  }
  return {
    symbol: known.instrument.symbol,
    name: known.name,
    exchange: known.exchange,
    currency: known.currency,
    assetClass: known.instrument.assetClass,
    sector: known.sector,
    industry: known.industry,
    marketCap,
    peRatio,
    beta: listed ? beta(market, path, nowMs) : null,
    averageVolume:
      volumes.length > 0 ? Math.round(volumes.reduce((a, b) => a + b, 0) / volumes.length) : null,
    week52High: Number.isFinite(high) ? high : null,
    week52Low: Number.isFinite(low) ? low : null,
    sharesOutstanding: listed ? listed.sharesOutstanding : null,
    asOf: new Date(nowMs),
  };
}

/** A published series: its latest value against the one before, as of its release. */
export function observedQuote(known: Known, observations: readonly Observation[]): Quote | undefined {
  const last = observations.at(-1);
  if (!last) return undefined;
  const previous = observations.at(-2)?.value ?? null;
  return {
    symbol: known.instrument.symbol,
    price: last.value,
    ...priceChange(last.value, previous),
    previousClose: previous,
    open: null,
    dayHigh: null,
    dayLow: null,
    volume: null,
    currency: known.currency,
    asOf: new Date(last.releaseMs),
    name: known.name,
  };
}

const S_TRADE_SIZE = stream('trade-size');

/** A deterministic trade size for a stream tick: the minute's volume spread over its ticks, with noise. */
export function tradeSize(
  market: SimulatedMarket,
  path: DailyPath,
  view: View,
  nowMs: number,
  tickMs: number,
): number | null {
  if (view.volumeShare === null) return null;
  const perTick = (market.minuteVolumeAt(path, nowMs) * view.volumeShare * Math.min(tickMs, 60_000)) / 60_000;
  const size =
    perTick *
    Math.exp(
      0.6 * market.rand.normal(S_TRADE_SIZE, path.id, Math.floor(nowMs / 1_000), nowMs % 1_000) - 0.18,
    );
  return path.spec.calendar === 'us' ? Math.max(1, Math.round(size)) : Math.round(size * 1e6) / 1e6;
}

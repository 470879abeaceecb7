/**
 * The simulated market: Vigil's zero-setup data source. Real instruments (universe-data.ts), simulated
 * prices: a seeded, deterministic model (same seed and same clock give bit-for-bit the same answers)
 * that only ever answers with what has happened up to `clock.now()`. It says what it is: id
 * `simulated`, live = false, and every venue detail starts with "simulated".
 *
 * Model: daily log prices = trend through real 2015/2025 levels + mean-reverting deviation driven by
 * common factors (market, tech, financials, energy, defensive, crypto, altcoins, rates, dollar, gold)
 * under calm / normal / stressed volatility regimes, jumps, earnings gaps and spells where an asset
 * decouples from its factors; each day's minute path is a bridge through the day's pinned open,
 * close and flash events that reaches exactly the planned high and low, so minute and daily bars
 * always agree.
 *
 * Inputs for the watchdogs. "normal" rates are the model's parameters and what the tests measure
 * (watchdog-inputs.test.ts, seed 'watchdogs'; figures in brackets from a 1-2 year sweep). "demo" adds
 * fixed rotations over the watched symbols (the `watchedSymbols` option; the whole universe when it
 * names none this market lists), so each condition holds on a watched symbol at every minute (the
 * test checks all eight at each of 30 consecutive minutes across midnight UTC on a weekend, and
 * demo-coverage.test.ts the rotating four within 3 minutes of 50 random starts).
 *
 * - earnings_anomaly. normal: 4 reports a year for each of 26 stocks, surprises drawn 80 % within
 *   +-5 %, 14 % at 10-20 %, 6 % at 20-45 % [75 % / 22 % above 10 % / 9 % above 20 % after EPS
 *   rounding]. demo: a synthetic report every 20-40 s on a watched share (slots stay empty when
 *   fewer than 8 are watched), kept 7 days, 70 % beyond 10 %.
 * - unusual_volume. normal: volume-spike days (3.5-7.5x usual) 4 a year per stock, 6 per coin
 *   [1.9 % of symbol-days above 3x their 30-day average, 0.9 % above 5x]; single-minute bursts
 *   (4-12x) in 0.15 % of minutes. demo: every minute one watched coin (and one watched listing in
 *   session) trades a 30-39x burst; each takes at least 8 slots of the rotation, empty ones between
 *   when fewer are watched, so it stands out against its own earlier bursts [default symbols: the
 *   best of the last two completed minutes >= 4.2x the mean of the 30 before it].
 * - whale_movement. normal: ~2.65 transfers >= USD 100k a minute, ~8 % above USD 1M [~340 a day].
 *   demo: 3-5 more above USD 1.2M every minute, spread over the minute, in watched coins.
 * - funding_rate. normal: 0.01 % +- 0.01 % per 8 h; 2.5 % of periods spike to 0.11 % or more,
 *   [0.17 %] above 0.3 %. demo: one watched coin at a time (2-hour slots) adds 0.12-0.4 %.
 * - liquidity_drop. normal: 8 % of 4-hour blocks per coin drain the book to 10-38 % of its depth for
 *   5-45 minutes [0.8 % of the time below 0.5x its 7-day average, 0.6 % below 0.3x]. demo: one
 *   watched coin at a time (10-minute slots, each coin at most every third) at 10-30 % of its depth.
 * - correlation_breakdown. normal: decoupled spells (loadings x0.2, ~10 trading days) 1.5 a year per
 *   stock, 1 per ETF, 2 per coin [7-day vs 90-day correlation of the default watched pairs apart by
 *   > 0.5 in 5-14 episodes a year]. demo: the second leg of each watched pair (the
 *   `correlationPairs` option, from WATCHDOG_CORRELATION_PAIRS) is anti-correlated 2 h in every 6 h,
 *   crypto pairs a quarter period (90 minutes) apart [30-minute vs 6-hour correlation of 1-minute
 *   returns apart by >= 0.77 at 120 random instants].
 * - exchange_outage. normal: 6 % of 2-hour blocks per venue hold a 2-12 minute incident, 2/3
 *   degraded (> 1 s), 1/3 down [0.25 % of venue-minutes]. demo: one venue at a time (5-minute slots).
 * - price_anomaly. normal: flash events (5.5-25 % within 2 minutes, 30-70 % recovered within 8-20)
 *   12 a year per coin, 1 per stock, 0.3 per ETF [~0.75 a day across the universe, ~10 % of them
 *   beyond 10 %]. demo: a 9-16 % flash move every 3 minutes (every ceil(17 / n) when n < 6 coins
 *   share the rotation, so one coin's moves never overlap) on a watched coin outside the watched
 *   pairs (any watched coin when all are in pairs; 10 coins outside the default pairs when none are
 *   watched): with default settings BNB, DOGE, LINK and LTC, every 5 minutes [> 5 % within 5
 *   minutes within 3 minutes of every start checked].
 *
 * Streams: one shared timer beats every `tickMs`; each subscription gets the live price at
 * clock.now(). Instruments with sessions (US listings, indices, fx, VIX, yields) emit nothing while
 * their market is shut and resume at the next open; crypto streams around the clock.
 */
import type { Clock } from '../../../platform/clock.ts';
import { searchUniverse } from '../../search/instrument-search.ts';
import {
  ASSET_CLASSES,
  type AssetClass,
  type Bar,
  type CryptoStats,
  type EarningsReport,
  type Instrument,
  type Profile,
  type Quote,
} from '../../types.ts';
import type {
  BarsCall,
  Capability,
  EarningsCall,
  InstrumentCall,
  MarketDataProvider,
  SearchCall,
  StreamSubscription,
} from '../provider.ts';
import { ProviderError, unsupported } from '../provider-errors.ts';
import { barSlots, MAX_BARS_PER_CALL, observationBars, pathBarsSliced, priceOf } from './bars.ts';
import type { WatchedPair } from './demo.ts';
import { SimulatedMarket } from './market.ts';
import { cryptoStatsOf, observedQuote, profileOf, quoteOf, snapshot, tradeSize } from './quotes.ts';
import { guard, ID, lookup, noData, validDate } from './requests.ts';
import { Ticker } from './ticker.ts';
import { capableOf, type Known, resolve, universeEntries } from './universe.ts';
import { SimulatedVenues } from './venue-calls.ts';
import { watchedAssets } from './watched.ts';

export interface SimulatedOptions {
  readonly seed: string;
  readonly activity: 'normal' | 'demo';
  readonly tickMs: number;
  readonly clock: Clock;
  /**
   * The pairs the correlation watchdog watches (WATCHDOG_CORRELATION_PAIRS): in demo activity the
   * second member of each turns against its factors in windows. Pairs with a symbol this market does
   * not list are ignored (see watchedPaths in demo.ts). None by default.
   */
  readonly correlationPairs?: readonly WatchedPair[];
  /**
   * The symbols the watchdogs watch (WATCHDOG_SYMBOLS, by default the scan universes): in demo
   * activity the rotating episodes (funding spikes, drained books, volume bursts, flash moves, demo
   * earnings, whale transfers) visit these, so every watchdog sees one within minutes. Symbols this
   * market does not list are ignored; with none it lists, episodes rotate over the whole universe.
   */
  readonly watchedSymbols?: readonly string[];
}

const CAPABILITIES: readonly Capability[] = [
  'quote',
  'bars',
  'profile',
  'cryptoStats',
  'orderBook',
  'funding',
  'earnings',
  'transfers',
  'venueStatus',
  'stream',
  'search',
];

/** What the calls of one simulated provider read: its market and its clock. */
interface Simulation {
  readonly market: SimulatedMarket;
  /** Milliseconds of `clock.now()`: the simulation answers with nothing after it. */
  readonly now: () => number;
}

export function createSimulatedProvider(options: SimulatedOptions): MarketDataProvider {
  if (!Number.isFinite(options.tickMs) || options.tickMs < 10) {
    throw new RangeError(`simulated tickMs must be at least 10 ms, got ${options.tickMs}`);
  }
  const { clock, tickMs } = options;
  const demo = options.activity === 'demo';
  const watched = watchedAssets(options.watchedSymbols ?? []);
  const market = new SimulatedMarket(options.seed, options.activity, options.correlationPairs, watched);
  const ticker = new Ticker(tickMs);
  const sim: Simulation = { market, now: () => clock.now().getTime() };
  const venues = new SimulatedVenues(market, demo, watched.coins, sim.now);

  // Plain functions over the simulation rather than methods: a test may copy the provider with some
  // calls replaced ({ ...simulated, bars }), and every call still reads the same market.
  return {
    id: ID,
    displayName: 'Simulated market',
    live: false,
    capabilities: new Set(CAPABILITIES),
    assetClasses: new Set<AssetClass>(ASSET_CLASSES),
    pastOrderBooks: true,
    supports: simulatedSupports,
    quote: (call) => simulatedQuote(sim, call),
    bars: (call) => simulatedBars(sim, call),
    profile: (call) => simulatedProfile(sim, call),
    cryptoStats: (call) => simulatedCryptoStats(sim, call),
    orderBook: (call) => venues.orderBook(call),
    funding: (call) => venues.funding(call),
    transfers: (call) => venues.transfers(call),
    venueStatus: (call) => venues.venueStatus(call),
    earnings: (call) => simulatedEarnings(sim, call),
    stream: (subscription) => simulatedStream(sim, ticker, tickMs, subscription),
    search: async ({ query, limit, signal }: SearchCall) => {
      guard(signal);
      return searchUniverse(universeEntries, query, limit);
    },
    universe: () => universeEntries,
    close: async () => ticker.close(),
  };
}

function simulatedSupports(capability: Capability, instrument?: Instrument): boolean {
  if (!CAPABILITIES.includes(capability)) return false;
  if (!instrument) return true;
  const known = resolve(instrument);
  return known !== undefined && capableOf(capability, known);
}

async function simulatedQuote(
  { market, now }: Simulation,
  { instrument, signal }: InstrumentCall,
): Promise<Quote> {
  guard(signal);
  const known = lookup('quote', instrument);
  const nowMs = now();
  if (known.observed) {
    const quote = observedQuote(known, market.macro.observations(known.observed, nowMs));
    if (!quote) throw noData(instrument.symbol, nowMs);
    return quote;
  }
  const s = snapshot(market, known, nowMs);
  if (!s) throw noData(instrument.symbol, nowMs);
  return quoteOf(known, s, nowMs);
}

async function simulatedBars({ market, now }: Simulation, call: BarsCall): Promise<Bar[]> {
  const { instrument, interval, start, end, signal } = call;
  guard(signal);
  const known = lookup('bars', instrument);
  const [startMs, endMs] = [validDate(start, 'start'), validDate(end, 'end')];
  if (!(startMs < endMs)) throw new ProviderError(ID, 'unsupported', 'bars need start before end');
  const slots = barSlots(interval, startMs, endMs);
  if (slots > MAX_BARS_PER_CALL) {
    throw new ProviderError(
      ID,
      'unsupported',
      `${Math.round(slots)} ${interval} bars asked for; at most ${MAX_BARS_PER_CALL} per call`,
    );
  }
  const nowMs = now();
  if (known.observed) {
    if (interval !== '1d')
      throw unsupported(ID, `${interval} bars of ${instrument.symbol} (published, not traded)`);
    return observationBars(market.macro.observations(known.observed, nowMs), startMs, Math.min(endMs, nowMs));
  }
  const view = known.view!;
  return pathBarsSliced(market, market.path(view.path), view, interval, startMs, endMs, nowMs, signal);
}

async function simulatedProfile(
  { market, now }: Simulation,
  { instrument, signal }: InstrumentCall,
): Promise<Profile> {
  guard(signal);
  const known = lookup('profile', instrument);
  const nowMs = now();
  const s = snapshot(market, known, nowMs);
  if (!s) throw noData(instrument.symbol, nowMs);
  return profileOf(market, known, s, nowMs);
}

async function simulatedCryptoStats(
  { market, now }: Simulation,
  { instrument, signal }: InstrumentCall,
): Promise<CryptoStats> {
  guard(signal);
  const known = lookup('cryptoStats', instrument);
  const nowMs = now();
  const s = snapshot(market, known, nowMs);
  if (!s) throw noData(instrument.symbol, nowMs);
  return cryptoStatsOf(market, known, s, nowMs);
}

async function simulatedEarnings(
  { market, now }: Simulation,
  { instrument, from, to, signal }: EarningsCall,
): Promise<EarningsReport[]> {
  guard(signal);
  const known = lookup('earnings', instrument);
  const [fromMs, toMs] = [validDate(from, 'from'), validDate(to, 'to')];
  if (fromMs > toMs) throw new ProviderError(ID, 'unsupported', 'earnings need from at or before to');
  const path = market.path(known.listed!.path);
  const priceAt = (ms: number) => {
    const p = market.priceAt(path, ms);
    return p ? Math.exp(p.log) : undefined;
  };
  return market.earnings.reports(known.listed!, fromMs, toMs, now(), priceAt);
}

/** The live price at every beat of the shared ticker while the instrument's market trades. */
function simulatedStream(
  { market, now }: Simulation,
  ticker: Ticker,
  tickMs: number,
  subscription: StreamSubscription,
): () => void {
  let known: Known;
  try {
    known = lookup('stream', subscription.instrument);
  } catch (error) {
    queueMicrotask(() => subscription.onError(error as Error));
    return () => {};
  }
  const view = known.view!;
  const path = market.path(view.path);
  let last = Number.NEGATIVE_INFINITY;
  const stop = ticker.add(() => {
    const nowMs = now();
    if (nowMs <= last) return;
    try {
      const point = market.priceAt(path, nowMs);
      if (!point?.live) return;
      last = nowMs;
      subscription.onTick({
        symbol: known.instrument.symbol,
        price: priceOf(view, point.log),
        size: tradeSize(market, path, view, nowMs, tickMs),
        asOf: new Date(nowMs),
      });
    } catch (error) {
      stop();
      subscription.onError(error as Error);
    }
  });
  return stop;
}

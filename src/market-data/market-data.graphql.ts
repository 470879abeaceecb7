import { builder } from '../builder.ts';
import { pushSource } from '../platform/graphql/direct-delivery.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { sharedResults } from '../platform/graphql/shared-subscriptions.ts';
import { checkIntervalMs, UPDATE_INTERVAL_MS } from '../platform/limits.ts';
import type { Lineage } from './arbitration/lineage.ts';
import type { PriceTick } from './hub/price-hub.ts';
import { resolveStreamable } from './hub/streamable.ts';
import { tickStream } from './hub/tick-stream.ts';
import { instrumentKey } from './instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from './limits.ts';
import { marketDataDeps } from './market-data.deps.ts';
import { MARKET_CODES } from './markets.ts';
import type { AssetClass, Bar, Instrument, Quote } from './types.ts';

/**
 * The market-data vocabulary of the schema: asset classes and market states, lineage, quotes, bars
 * and price ticks, with the `quote` query and the `prices` subscription. Entities are keyed by the
 * instrument key (`instrumentKey`: `equity:US:AAPL`, `crypto:BTC/USDT`, `fx:EUR/USD`, `index:^GSPC`,
 * `macro:US10Y`), so a client cache holds one latest quote per instrument whichever query brought it.
 */

const INSTRUMENT_KEY =
  'the instrument key: asset class, market code for listed instruments, and canonical symbol ' +
  '(`equity:US:AAPL`, `equity:UK:VOD`, `crypto:BTC/USDT`, `fx:EUR/USD`, `index:^GSPC`, `macro:US10Y`)';

export const ASSET_CLASS_DESCRIPTIONS: Readonly<Record<AssetClass, string>> = {
  equity: 'A listed share: AAPL, BRK.B, or VOD with market UK.',
  etf: 'An exchange-traded fund (SPY); symbols without a hint parse as equities.',
  index: 'A market index in caret notation: ^GSPC.',
  crypto: 'A crypto pair, BASE/QUOTE: BTC/USDT.',
  fx: 'A currency pair, BASE/QUOTE: EUR/USD (also written EURUSD=X).',
  macro: 'A macro-economic series: US10Y, US2Y, CPI, VIX, DXY, UNEMPLOYMENT, GDP, FED_RATE.',
};

export const AssetClassEnum = builder.enumType('AssetClass', {
  description: 'What kind of instrument a symbol names.',
  values: enumValues(ASSET_CLASS_DESCRIPTIONS),
});

export type MarketState = NonNullable<Quote['marketState']>;

export const MARKET_STATE_DESCRIPTIONS: Readonly<Record<MarketState, string>> = {
  pre: 'Pre-market trading, before the regular session.',
  regular: 'The regular session is open.',
  post: 'After-hours trading, after the regular session.',
  closed: 'The market is closed; the price is the last one of the previous session.',
  continuous: 'The instrument trades around the clock (crypto): there are no sessions.',
};

export const MarketStateEnum = builder.enumType('MarketState', {
  description: 'The trading session an instrument was in when its price was taken.',
  values: enumValues(MARKET_STATE_DESCRIPTIONS),
});

export const MARKET_ARGUMENT = `Market code of a listed instrument: ${MARKET_CODES.join(', ')} (default US).`;

export const LineageRef = builder.objectRef<Lineage>('Lineage').implement({
  description:
    'Where a value came from. Every market-data answer carries one. Value object: not normalised ' +
    '(it belongs to the answer that carries it).',
  fields: (t) => ({
    asked: t.exposeStringList('asked', { description: 'Provider ids asked, in the order they were asked.' }),
    used: t.exposeStringList('used', { description: 'Provider ids whose values make up the answer.' }),
    rejected: t.field({
      type: [RejectionRef],
      description: 'Providers whose answer was not used, and why (failed, outlier, stale).',
      resolve: (l) => [...l.rejected],
    }),
    agreement: t.exposeFloat('agreement', {
      description:
        'Fraction (0 to 1) of answering providers that agreed with the answer; 1 = unanimous or a single source.',
    }),
    conflictResolved: t.exposeBoolean('conflictResolved', {
      description: 'True when providers disagreed and some values were set aside (listed in `rejected`).',
    }),
    asOf: t.expose('asOf', {
      type: 'DateTime',
      description: 'Time the data describes (the quote time), not the fetch time.',
    }),
    retrievedAt: t.expose('retrievedAt', {
      type: 'DateTime',
      description: 'When Vigil obtained the data from the provider.',
    }),
    simulated: t.exposeBoolean('simulated', {
      description: 'True when the value comes from the simulated market (it describes no real market).',
    }),
    cacheHit: t.boolean({
      description: "True when the answer came from Vigil's cache.",
      resolve: (l) => l.cache.hit,
    }),
    cacheAgeMs: t.float({
      description: 'Age of the cached answer, in ms (0 for a fresh fetch).',
      resolve: (l) => l.cache.ageMs,
    }),
    cacheTtlMs: t.float({
      description: 'How long the answer stays in the cache, in ms.',
      resolve: (l) => l.cache.ttlMs,
    }),
  }),
});

const RejectionRef = builder.objectRef<{ provider: string; reason: string }>('ProviderRejection').implement({
  description: 'A provider whose answer was not used. Value object: not normalised.',
  fields: (t) => ({
    provider: t.exposeString('provider', { description: 'Provider id (`yahoo`, `binance`, ...).' }),
    reason: t.exposeString('reason', {
      description:
        'Why, in words, starting with the kind: `stale: ...`, `outlier: ...`, or the failure ' +
        '(`timeout: ...`, `rate_limited: ...`, `upstream: ...`).',
    }),
  }),
});

/** A quote with the instrument it prices (its id is the instrument key). */
export type InstrumentQuote = Quote & { readonly instrument: Instrument };

export const quoteOf = (instrument: Instrument, quote: Quote): InstrumentQuote => ({ ...quote, instrument });

export const QuoteRef = builder.objectRef<InstrumentQuote>('Quote').implement({
  description:
    'Latest price of an instrument. change/changePercent are against the previous regular close (listed ' +
    'instruments) or the price 24 hours earlier (crypto). Prices are in `currency`. Entity: one per ' +
    'instrument, its id the instrument key, so a client cache keeps the latest quote of each instrument.',
  fields: (t) => ({
    id: t.id({ description: `Stable id: ${INSTRUMENT_KEY}.`, resolve: (q) => instrumentKey(q.instrument) }),
    symbol: t.exposeString('symbol', {
      description: 'Canonical symbol: AAPL, BRK.B, BTC/USDT, EUR/USD, ^GSPC.',
    }),
    price: t.exposeFloat('price', { description: 'Last price, in `currency`.' }),
    change: t.exposeFloat('change', {
      nullable: true,
      description: 'Price minus the reference price, in `currency`; null when the reference is unknown.',
    }),
    changePercent: t.exposeFloat('changePercent', {
      nullable: true,
      description: 'Change in percent of the reference price: -2.43 means -2.43 %.',
    }),
    previousClose: t.exposeFloat('previousClose', {
      nullable: true,
      description:
        'The reference price, in `currency`: previous regular close, or the price 24 h ago (crypto).',
    }),
    open: t.exposeFloat('open', { nullable: true, description: 'Session open price, in `currency`.' }),
    dayHigh: t.exposeFloat('dayHigh', { nullable: true, description: 'Session high, in `currency`.' }),
    dayLow: t.exposeFloat('dayLow', { nullable: true, description: 'Session low, in `currency`.' }),
    volume: t.exposeFloat('volume', {
      nullable: true,
      description:
        'Traded volume of the session (listed) or the last 24 h (crypto), in units of the instrument ' +
        '(shares, coins); null when the provider reports none.',
    }),
    currency: t.exposeString('currency', {
      description: 'Currency of the prices: ISO 4217 code (USD) or, for crypto, the quote asset (USDT).',
    }),
    asOf: t.expose('asOf', {
      type: 'DateTime',
      description: 'Time of the last trade or quote update the price reflects.',
    }),
    marketState: t.field({
      type: MarketStateEnum,
      nullable: true,
      description:
        "The instrument's market when the quote was answered (pre-market, regular session, after hours, " +
        'closed, or continuous for crypto): the same state the price streams show at that moment.',
      resolve: (q) => q.marketState ?? null,
    }),
  }),
});

export const BarRef = builder.objectRef<Bar>('Bar').implement({
  description:
    'One OHLCV bar; prices in the currency of the instrument, adjusted for splits where the provider ' +
    'does. Value object: not normalised (a bar is identified by its series and `time`).',
  fields: (t) => ({
    time: t.expose('time', { type: 'DateTime', description: 'Bar open time (UTC).' }),
    open: t.exposeFloat('open', { description: 'First price of the bar.' }),
    high: t.exposeFloat('high', { description: 'Highest price of the bar.' }),
    low: t.exposeFloat('low', { description: 'Lowest price of the bar.' }),
    close: t.exposeFloat('close', { description: 'Last price of the bar.' }),
    volume: t.exposeFloat('volume', {
      nullable: true,
      description: 'Traded volume in units of the instrument; null where the provider publishes none.',
    }),
    adjClose: t.float({
      nullable: true,
      description: 'Close adjusted for splits and dividends, when the provider gives it.',
      resolve: (b) => b.adjClose ?? null,
    }),
  }),
});

export const PriceTickRef = builder.objectRef<PriceTick>('PriceTick').implement({
  description:
    'A live price update; seq increases by one per update of that symbol. Value object: not normalised ' +
    '(each tick is an event; keep the latest per symbol yourself).',
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'Canonical symbol of the instrument.' }),
    assetClass: t.field({
      type: AssetClassEnum,
      description: 'What kind of instrument it is.',
      resolve: (p) => p.instrument.assetClass,
    }),
    seq: t.exposeInt('seq', { description: 'Sequence number of the update, per symbol, from 1.' }),
    price: t.exposeFloat('price', { description: 'The price, in `currency`.' }),
    change: t.exposeFloat('change', {
      nullable: true,
      description:
        'Price minus the previous regular close (listed) or the price 24 h earlier (crypto), in `currency`.',
    }),
    changePercent: t.exposeFloat('changePercent', {
      nullable: true,
      description: 'Change in percent of the reference price: -2.43 means -2.43 %.',
    }),
    volume: t.exposeFloat('volume', {
      nullable: true,
      description: 'Session (listed) or 24 h (crypto) volume in units of the instrument, when known.',
    }),
    currency: t.exposeString('currency', { description: 'Currency of the price (ISO 4217 or quote asset).' }),
    asOf: t.expose('asOf', {
      type: 'DateTime',
      description: 'Time of the trade or quote the price reflects.',
    }),
    provider: t.exposeString('provider', { description: 'Id of the provider the price came from.' }),
    live: t.exposeBoolean('live', { description: 'False when the price comes from the simulated market.' }),
  }),
});

builder.subscriptionField('prices', (t) =>
  t.field({
    ...sharedResults(),
    type: PriceTickRef,
    description:
      `Live prices for up to ${MAX_SYMBOLS_PER_REQUEST} symbols (equities, crypto pairs such as BTC/USDT, fx, indices). ` +
      `Each symbol gets at most one update per intervalMs (${UPDATE_INTERVAL_MS.min} to ${UPDATE_INTERVAL_MS.max}), always its latest price. A ` +
      'subscription refused at start (an unknown symbol, the upstream budget spent: RATE_LIMITED) gets one ' +
      'result whose error names the reason in extensions.code, then completes.',
    args: {
      symbols: t.arg.stringList({
        required: true,
        description: `Symbols to follow, 1 to ${MAX_SYMBOLS_PER_REQUEST}: AAPL, BTC/USDT, EUR/USD, ^GSPC.`,
      }),
      intervalMs: t.arg.int({
        defaultValue: UPDATE_INTERVAL_MS.default,
        required: true,
        description: `Least time between two updates of one symbol, in ms (${UPDATE_INTERVAL_MS.min} to ${UPDATE_INTERVAL_MS.max}).`,
      }),
      market: t.arg.string({ description: MARKET_ARGUMENT }),
    },
    subscribe: async (_root, args, ctx) => {
      checkIntervalMs('intervalMs', args.intervalMs);
      const instruments = await resolveStreamable(
        marketDataDeps(ctx).marketData,
        args.symbols,
        args.market ?? undefined,
      );
      const stream = tickStream(marketDataDeps(ctx).priceHub, instruments, args.intervalMs);
      // Ticks can be pushed to a transport that delivers directly (see direct-delivery.ts).
      return pushSource(stream, (offer, batch) => stream.offerTo(offer, batch));
    },
    resolve: (tick) => tick,
  }),
);

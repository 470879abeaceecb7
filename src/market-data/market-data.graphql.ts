import { builder } from '../builder.ts';
import { checkIntervalMs, UPDATE_INTERVAL_MS } from '../platform/limits.ts';
import type { HealthSnapshot } from './arbitration/health.ts';
import type { Lineage } from './arbitration/lineage.ts';
import type { PriceTick } from './hub/price-hub.ts';
import { resolveStreamable } from './hub/streamable.ts';
import { tickStream } from './hub/tick-stream.ts';
import { parseInstrument } from './instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from './limits.ts';
import type { ProviderInfo } from './market-data.service.ts';
import { ASSET_CLASSES, type Bar, type Instrument, type Quote } from './types.ts';

export const AssetClassEnum = builder.enumType('AssetClass', {
  values: ASSET_CLASSES,
});

export const LineageRef = builder.objectRef<Lineage>('Lineage').implement({
  description: 'Where a value came from. Every market-data answer carries one.',
  fields: (t) => ({
    asked: t.exposeStringList('asked', { description: 'Providers asked, in order.' }),
    used: t.exposeStringList('used', { description: 'Providers whose values make up the answer.' }),
    rejected: t.field({
      type: [RejectionRef],
      description: 'Providers whose answer was not used, and why (failed, outlier, stale).',
      resolve: (l) => [...l.rejected],
    }),
    agreement: t.exposeFloat('agreement', {
      description:
        'Share of answering providers that agreed with the answer (1 = unanimous or single source).',
    }),
    conflictResolved: t.exposeBoolean('conflictResolved'),
    asOf: t.expose('asOf', {
      type: 'DateTime',
      description: 'Time the data describes (the quote time), not the fetch time.',
    }),
    retrievedAt: t.expose('retrievedAt', { type: 'DateTime' }),
    simulated: t.exposeBoolean('simulated', {
      description: 'True when the value comes from the simulated market.',
    }),
    cacheHit: t.boolean({ resolve: (l) => l.cache.hit }),
    cacheAgeMs: t.float({ resolve: (l) => l.cache.ageMs }),
    cacheTtlMs: t.float({ resolve: (l) => l.cache.ttlMs }),
  }),
});

const RejectionRef = builder.objectRef<{ provider: string; reason: string }>('ProviderRejection').implement({
  fields: (t) => ({ provider: t.exposeString('provider'), reason: t.exposeString('reason') }),
});

export const QuoteRef = builder.objectRef<Quote>('Quote').implement({
  description:
    'Latest price. change/changePercent are against the previous regular close (listed instruments) or the ' +
    'price 24 hours earlier (crypto). changePercent is in percent (1.5 = +1.5 %).',
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    price: t.exposeFloat('price'),
    change: t.exposeFloat('change', { nullable: true }),
    changePercent: t.exposeFloat('changePercent', { nullable: true }),
    previousClose: t.exposeFloat('previousClose', { nullable: true }),
    open: t.exposeFloat('open', { nullable: true }),
    dayHigh: t.exposeFloat('dayHigh', { nullable: true }),
    dayLow: t.exposeFloat('dayLow', { nullable: true }),
    volume: t.exposeFloat('volume', { nullable: true }),
    currency: t.exposeString('currency'),
    asOf: t.expose('asOf', { type: 'DateTime' }),
    marketState: t.string({ nullable: true, resolve: (q) => q.marketState ?? null }),
  }),
});

export const BarRef = builder.objectRef<Bar>('Bar').implement({
  description: 'One OHLCV bar; time is the bar open (UTC).',
  fields: (t) => ({
    time: t.expose('time', { type: 'DateTime' }),
    open: t.exposeFloat('open'),
    high: t.exposeFloat('high'),
    low: t.exposeFloat('low'),
    close: t.exposeFloat('close'),
    volume: t.exposeFloat('volume', { nullable: true }),
    adjClose: t.float({ nullable: true, resolve: (b) => b.adjClose ?? null }),
  }),
});

const SourcedQuoteRef = builder
  .objectRef<{ instrument: Instrument; quote: Quote; lineage: Lineage }>('SourcedQuote')
  .implement({
    fields: (t) => ({
      symbol: t.string({ resolve: (s) => s.instrument.symbol }),
      assetClass: t.field({ type: AssetClassEnum, resolve: (s) => s.instrument.assetClass }),
      quote: t.field({ type: QuoteRef, resolve: (s) => s.quote }),
      lineage: t.field({ type: LineageRef, resolve: (s) => s.lineage }),
    }),
  });

const ProviderHealthRef = builder.objectRef<HealthSnapshot>('ProviderHealth').implement({
  description: 'Measured health of one provider for one kind of data (time-decayed).',
  fields: (t) => ({
    capability: t.exposeString('capability'),
    calls: t.exposeInt('calls'),
    failures: t.exposeInt('failures'),
    errorRate: t.exposeFloat('errorRate'),
    latencyMs: t.exposeFloat('latencyMs', { nullable: true }),
    stalenessMs: t.exposeFloat('stalenessMs', { nullable: true }),
    lastSuccessAt: t.expose('lastSuccessAt', { type: 'DateTime', nullable: true }),
    lastFailureAt: t.expose('lastFailureAt', { type: 'DateTime', nullable: true }),
    lastError: t.exposeString('lastError', { nullable: true }),
    score: t.exposeFloat('score'),
  }),
});

const ProviderRef = builder.objectRef<ProviderInfo>('MarketDataProvider').implement({
  fields: (t) => ({
    id: t.exposeString('id'),
    displayName: t.exposeString('displayName'),
    live: t.exposeBoolean('live', { description: 'false for the simulated market.' }),
    capabilities: t.exposeStringList('capabilities'),
    health: t.field({
      type: [ProviderHealthRef],
      resolve: (p, _args, ctx) => ctx.deps.marketData.health().filter((h) => h.provider === p.id),
    }),
  }),
});

export const PriceTickRef = builder.objectRef<PriceTick>('PriceTick').implement({
  description: 'A live price update. seq increases by one per update of that symbol.',
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    assetClass: t.field({ type: AssetClassEnum, resolve: (p) => p.instrument.assetClass }),
    seq: t.exposeInt('seq'),
    price: t.exposeFloat('price'),
    change: t.exposeFloat('change', { nullable: true }),
    changePercent: t.exposeFloat('changePercent', { nullable: true }),
    volume: t.exposeFloat('volume', { nullable: true }),
    currency: t.exposeString('currency'),
    asOf: t.expose('asOf', { type: 'DateTime' }),
    provider: t.exposeString('provider'),
    live: t.exposeBoolean('live'),
  }),
});

builder.queryField('marketDataProviders', (t) =>
  t.field({
    type: [ProviderRef],
    description: 'The configured market-data providers, what they offer and how healthy they are.',
    resolve: (_root, _args, ctx) => ctx.deps.marketData.providersInfo(),
  }),
);

builder.queryField('quote', (t) =>
  t.field({
    type: SourcedQuoteRef,
    description: 'The arbitrated latest quote of any instrument (see searchBySymbol for the notations).',
    args: {
      symbol: t.arg.string({ required: true }),
      assetClass: t.arg({ type: AssetClassEnum, description: 'Say `crypto` for a bare coin like BTC.' }),
      market: t.arg.string({ description: 'Market code for listed instruments (default US).' }),
    },
    resolve: async (_root, args, ctx) => {
      const instrument = parseInstrument(args.symbol, {
        ...(args.assetClass ? { assetClass: args.assetClass } : {}),
        ...(args.market ? { market: args.market } : {}),
      });
      const { value, lineage } = await ctx.deps.marketData.quote(instrument);
      return { instrument, quote: value, lineage };
    },
  }),
);

builder.subscriptionField('prices', (t) =>
  t.field({
    type: PriceTickRef,
    description:
      `Live prices for up to ${MAX_SYMBOLS_PER_REQUEST} symbols (equities, crypto pairs such as BTC/USDT, fx, indices). ` +
      `Each symbol gets at most one update per intervalMs (${UPDATE_INTERVAL_MS.min} to ${UPDATE_INTERVAL_MS.max}), always its latest price. Unknown ` +
      'symbols fail the subscription at start.',
    args: {
      symbols: t.arg.stringList({ required: true }),
      intervalMs: t.arg.int({ defaultValue: UPDATE_INTERVAL_MS.default, required: true }),
      market: t.arg.string({ description: 'Market code for listed instruments (default US).' }),
    },
    subscribe: async (_root, args, ctx) => {
      checkIntervalMs('intervalMs', args.intervalMs);
      const instruments = await resolveStreamable(
        ctx.deps.marketData,
        args.symbols,
        args.market ?? undefined,
      );
      return tickStream(ctx.deps.priceHub, instruments, args.intervalMs);
    },
    resolve: (tick) => tick,
  }),
);

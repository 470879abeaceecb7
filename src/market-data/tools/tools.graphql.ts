import { builder } from '../../builder.ts';
import { AssetClassEnum, BarRef, LineageRef, QuoteRef } from '../market-data.graphql.ts';
import type { TechnicalSummary } from './analytics.ts';
import { type BookSummary, type CoinMarket, type CoinSearchResult, searchByCoin } from './search-by-coin.ts';
import { type Fundamentals, type SymbolSearchResult, searchBySymbol } from './search-by-symbol.ts';
import { DEPTH_DESCRIPTIONS, DEPTHS, LANGUAGES } from './tool-args.ts';

const DepthEnum = builder.enumType('SearchDepth', {
  description: 'How much a data tool gathers. The default is standard.',
  values: Object.fromEntries(DEPTHS.map((d) => [d, { description: DEPTH_DESCRIPTIONS[d] }])) as Record<
    (typeof DEPTHS)[number],
    { description: string }
  >,
});

const FundamentalsRef = builder.objectRef<Fundamentals>('Fundamentals').implement({
  description: 'Key statistics. Fields listed in `computed` were computed by Vigil from daily bars.',
  fields: (t) => ({
    marketCap: t.exposeFloat('marketCap', { nullable: true }),
    peRatio: t.exposeFloat('peRatio', { nullable: true }),
    beta: t.exposeFloat('beta', {
      nullable: true,
      description: 'Against the market benchmark (SPY for US) when computed.',
    }),
    averageVolume: t.exposeFloat('averageVolume', { nullable: true }),
    week52High: t.exposeFloat('week52High', { nullable: true }),
    week52Low: t.exposeFloat('week52Low', { nullable: true }),
    sector: t.exposeString('sector', { nullable: true }),
    industry: t.exposeString('industry', { nullable: true }),
    sharesOutstanding: t.exposeFloat('sharesOutstanding', { nullable: true }),
    computed: t.exposeStringList('computed'),
    lineage: t.field({ type: LineageRef, nullable: true, resolve: (f) => f.lineage }),
  }),
});

const MacdRef = builder.objectRef<NonNullable<TechnicalSummary['macd']>>('MacdValue').implement({
  fields: (t) => ({
    line: t.exposeFloat('line'),
    signal: t.exposeFloat('signal'),
    histogram: t.exposeFloat('histogram'),
  }),
});

const TechnicalsRef = builder.objectRef<TechnicalSummary>('TechnicalSummary').implement({
  description: 'Technical picture from daily closes; `conventions` states how each value is computed.',
  fields: (t) => ({
    asOf: t.expose('asOf', { type: 'DateTime' }),
    close: t.exposeFloat('close'),
    rsi14: t.exposeFloat('rsi14', { nullable: true }),
    sma20: t.exposeFloat('sma20', { nullable: true }),
    sma50: t.exposeFloat('sma50', { nullable: true }),
    sma200: t.exposeFloat('sma200', { nullable: true }),
    ema20: t.exposeFloat('ema20', { nullable: true }),
    macd: t.field({ type: MacdRef, nullable: true, resolve: (x) => x.macd }),
    volatility30d: t.exposeFloat('volatility30d', {
      nullable: true,
      description: 'Annualised, as a fraction (0.25 = 25 %).',
    }),
    rangePosition52w: t.exposeFloat('rangePosition52w', { nullable: true }),
    trend: t.exposeString('trend'),
    barsUsed: t.exposeInt('barsUsed'),
    conventions: t.exposeString('conventions'),
  }),
});

const SymbolSearchRef = builder.objectRef<SymbolSearchResult>('SymbolSearch').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol'),
    assetClass: t.field({ type: AssetClassEnum, resolve: (r) => r.assetClass }),
    name: t.exposeString('name', { nullable: true }),
    exchange: t.exposeString('exchange', { nullable: true }),
    market: t.exposeString('market', { nullable: true }),
    currency: t.exposeString('currency'),
    depth: t.field({ type: DepthEnum, resolve: (r) => r.depth }),
    language: t.exposeString('language'),
    quote: t.field({ type: QuoteRef, resolve: (r) => r.quote }),
    lineage: t.field({ type: LineageRef, description: 'Lineage of the quote.', resolve: (r) => r.lineage }),
    fundamentals: t.field({ type: FundamentalsRef, nullable: true, resolve: (r) => r.fundamentals }),
    technicals: t.field({ type: TechnicalsRef, nullable: true, resolve: (r) => r.technicals }),
    history: t.field({
      type: [BarRef],
      nullable: true,
      description: 'Last 30 daily bars (deep).',
      resolve: (r) => r.history && [...r.history],
    }),
    narrative: t.exposeString('narrative'),
    disclaimer: t.exposeString('disclaimer'),
    warnings: t.exposeStringList('warnings', { description: 'Parts that could not be filled, and why.' }),
    sessionId: t.exposeString('sessionId', { nullable: true }),
  }),
});

const CoinMarketRef = builder.objectRef<CoinMarket>('CoinMarket').implement({
  description: 'Rolling 24 h statistics of the pair.',
  fields: (t) => ({
    high24h: t.exposeFloat('high24h'),
    low24h: t.exposeFloat('low24h'),
    volume24h: t.exposeFloat('volume24h', {
      nullable: true,
      description: 'In units of the base asset; null when the provider reports only quote volume.',
    }),
    quoteVolume24h: t.exposeFloat('quoteVolume24h', { nullable: true }),
    marketCap: t.exposeFloat('marketCap', { nullable: true }),
    lineage: t.field({ type: LineageRef, resolve: (m) => m.lineage }),
  }),
});

const BookSummaryRef = builder.objectRef<BookSummary>('OrderBookSummary').implement({
  fields: (t) => ({
    bestBid: t.exposeFloat('bestBid'),
    bestAsk: t.exposeFloat('bestAsk'),
    spread: t.exposeFloat('spread'),
    spreadBps: t.exposeFloat('spreadBps'),
    bidDepth1Pct: t.exposeFloat('bidDepth1Pct', {
      description: 'Quote-currency value of bids within 1 % of mid.',
    }),
    askDepth1Pct: t.exposeFloat('askDepth1Pct'),
    levels: t.exposeInt('levels'),
    asOf: t.expose('asOf', { type: 'DateTime' }),
    lineage: t.field({ type: LineageRef, resolve: (b) => b.lineage }),
  }),
});

const FundingRef = builder.objectRef<NonNullable<CoinSearchResult['funding']>>('FundingRate').implement({
  fields: (t) => ({
    rate: t.exposeFloat('rate', { description: 'Per funding interval, as a fraction (0.0001 = 0.01 %).' }),
    intervalHours: t.exposeInt('intervalHours'),
    markPrice: t.exposeFloat('markPrice', { nullable: true }),
    nextFundingTime: t.expose('nextFundingTime', { type: 'DateTime', nullable: true }),
    asOf: t.expose('asOf', { type: 'DateTime' }),
    venue: t.exposeString('venue'),
    lineage: t.field({ type: LineageRef, resolve: (f) => f.lineage }),
  }),
});

const CoinSearchRef = builder.objectRef<CoinSearchResult>('CoinSearch').implement({
  fields: (t) => ({
    symbol: t.exposeString('symbol', { description: 'The pair, BASE/QUOTE.' }),
    base: t.exposeString('base'),
    pair: t.exposeString('pair', { description: 'The quote asset.' }),
    name: t.exposeString('name', { nullable: true }),
    exchange: t.exposeString('exchange', { description: 'The exchange asked for.' }),
    source: t.exposeString('source', { description: 'The provider the price came from.' }),
    depth: t.field({ type: DepthEnum, resolve: (r) => r.depth }),
    quote: t.field({ type: QuoteRef, resolve: (r) => r.quote }),
    lineage: t.field({ type: LineageRef, resolve: (r) => r.lineage }),
    market: t.field({ type: CoinMarketRef, nullable: true, resolve: (r) => r.market }),
    orderBook: t.field({ type: BookSummaryRef, nullable: true, resolve: (r) => r.orderBook }),
    funding: t.field({ type: FundingRef, nullable: true, resolve: (r) => r.funding }),
    technicals: t.field({ type: TechnicalsRef, nullable: true, resolve: (r) => r.technicals }),
    history: t.field({ type: [BarRef], nullable: true, resolve: (r) => r.history && [...r.history] }),
    narrative: t.exposeString('narrative'),
    disclaimer: t.exposeString('disclaimer'),
    warnings: t.exposeStringList('warnings'),
    sessionId: t.exposeString('sessionId', { nullable: true }),
  }),
});

builder.queryField('searchBySymbol', (t) =>
  t.field({
    type: SymbolSearchRef,
    description:
      'Equity (and any instrument) lookup: quote, and with depth standard/deep key statistics, technicals and ' +
      'history. Symbols: AAPL, BRK.B or BRK-B, VOD.L, ^GSPC, EURUSD=X, BTC-USD. The `search-by-symbol` tool.',
    args: {
      symbol: t.arg.string({ required: true }),
      market: t.arg.string({
        description: 'Market code (US, UK, DE, FR, NL, CH, JP, HK, CA, AU, IN); default US.',
      }),
      depth: t.arg({ type: DepthEnum, description: 'Default standard.' }),
      language: t.arg.string({
        description: `Narrative language; available: ${LANGUAGES.join(', ')} (default en).`,
      }),
      sessionId: t.arg.string({ description: 'Analysis session to record this query in.' }),
    },
    resolve: (_root, args, ctx) => searchBySymbol(ctx.deps, args),
  }),
);

builder.queryField('searchByCoin', (t) =>
  t.field({
    type: CoinSearchRef,
    description:
      'Crypto lookup by coin: BTC, ETH/USDC, sol-usdt. `exchange` (default binance) is asked alone when a provider ' +
      'for it is configured; otherwise the price is arbitrated and a warning says so. The `search-by-coin` tool.',
    args: {
      symbol: t.arg.string({ required: true }),
      exchange: t.arg.string({ description: 'Default binance.' }),
      pair: t.arg.string({ description: 'Quote asset, default USDT.' }),
      depth: t.arg({ type: DepthEnum, description: 'Default standard.' }),
      sessionId: t.arg.string({ description: 'Analysis session to record this query in.' }),
    },
    resolve: (_root, args, ctx) => searchByCoin(ctx.deps, args),
  }),
);

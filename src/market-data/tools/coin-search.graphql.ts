import { builder } from '../../builder.ts';
import { instrumentKey } from '../instruments.ts';
import { marketDataDeps } from '../market-data.deps.ts';
import { BarRef, LineageRef, QuoteRef, quoteOf } from '../market-data.graphql.ts';
import { type BookSummary, type CoinMarket, type CoinSearchResult, searchByCoin } from './search-by-coin.ts';
import { answerFields, DepthEnum, SEARCH_ID_NOTE, TechnicalsRef } from './tools.graphql.ts';

/** The `searchByCoin` data tool: a crypto pair on an exchange, with 24 h statistics, book and funding. */

const CoinMarketRef = builder.objectRef<CoinMarket>('CoinMarket').implement({
  description:
    'Rolling 24 h statistics of the pair; prices in the quote asset. Value object: not normalised ' +
    '(it belongs to its CoinSearch).',
  fields: (t) => ({
    high24h: t.exposeFloat('high24h', { description: 'Highest price of the last 24 h, in the quote asset.' }),
    low24h: t.exposeFloat('low24h', { description: 'Lowest price of the last 24 h, in the quote asset.' }),
    volume24h: t.exposeFloat('volume24h', {
      nullable: true,
      description: 'In units of the base asset; null when the provider reports only quote volume.',
    }),
    quoteVolume24h: t.exposeFloat('quoteVolume24h', {
      nullable: true,
      description: 'Volume of the last 24 h in units of the quote asset.',
    }),
    marketCap: t.exposeFloat('marketCap', {
      nullable: true,
      description: 'Market capitalisation of the base asset, in USD.',
    }),
    lineage: t.field({
      type: LineageRef,
      description: 'Where the statistics came from.',
      resolve: (m) => m.lineage,
    }),
  }),
});

const BookSummaryRef = builder.objectRef<BookSummary>('OrderBookSummary').implement({
  description:
    'Order-book depth of the pair on the exchange; prices in the quote asset. Value object: not normalised.',
  fields: (t) => ({
    bestBid: t.exposeFloat('bestBid', { description: 'Highest bid price.' }),
    bestAsk: t.exposeFloat('bestAsk', { description: 'Lowest ask price.' }),
    spread: t.exposeFloat('spread', { description: 'Best ask minus best bid, in the quote asset.' }),
    spreadBps: t.exposeFloat('spreadBps', {
      description: 'Spread in basis points of the mid price (1 bp = 0.01 %).',
    }),
    bidDepth1Pct: t.exposeFloat('bidDepth1Pct', {
      description: 'Value of the bids within 1 % below the mid price, in the quote asset.',
    }),
    askDepth1Pct: t.exposeFloat('askDepth1Pct', {
      description: 'Value of the asks within 1 % above the mid price, in the quote asset.',
    }),
    levels: t.exposeInt('levels', { description: 'Price levels read per side.' }),
    asOf: t.expose('asOf', { type: 'DateTime', description: 'Time of the book snapshot.' }),
    lineage: t.field({
      type: LineageRef,
      description: 'Where the book came from.',
      resolve: (b) => b.lineage,
    }),
  }),
});

const FundingRef = builder.objectRef<NonNullable<CoinSearchResult['funding']>>('FundingRate').implement({
  description: "Funding rate of the pair's perpetual contract. Value object: not normalised.",
  fields: (t) => ({
    rate: t.exposeFloat('rate', { description: 'Per funding interval, as a fraction (0.0001 = 0.01 %).' }),
    intervalHours: t.exposeInt('intervalHours', { description: 'Length of a funding interval, in hours.' }),
    markPrice: t.exposeFloat('markPrice', {
      nullable: true,
      description: 'Mark price of the contract, in the quote asset.',
    }),
    nextFundingTime: t.expose('nextFundingTime', {
      type: 'DateTime',
      nullable: true,
      description: 'When the next funding is settled.',
    }),
    asOf: t.expose('asOf', {
      type: 'DateTime',
      description: 'Time the rate applies to (the funding time, or the time of the estimate).',
    }),
    venue: t.exposeString('venue', { description: 'Exchange of the contract.' }),
    lineage: t.field({
      type: LineageRef,
      description: 'Where the rate came from.',
      resolve: (f) => f.lineage,
    }),
  }),
});

const CoinSearchRef = builder.objectRef<CoinSearchResult>('CoinSearch').implement({
  description:
    'What the `search-by-coin` tool gathers about a crypto pair on an exchange. Entity: id is the instrument ' +
    `key, the exchange and the depth (\`crypto:BTC/USDT:binance:deep\`), ${SEARCH_ID_NOTE}.`,
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: `<instrument key>:<exchange>:<depth>`, e.g. `crypto:BTC/USDT:binance:deep`.',
      resolve: (r) => `${instrumentKey(r.instrument)}:${r.exchange}:${r.depth}`,
    }),
    symbol: t.exposeString('symbol', { description: 'The pair, BASE/QUOTE.' }),
    base: t.exposeString('base', { description: 'The base asset (BTC).' }),
    pair: t.exposeString('pair', { description: 'The quote asset (USDT).' }),
    name: t.exposeString('name', { nullable: true, description: 'Name of the pair or coin, when known.' }),
    exchange: t.exposeString('exchange', { description: 'The exchange asked for.' }),
    source: t.exposeString('source', { description: 'Id of the provider the price came from.' }),
    depth: t.field({ type: DepthEnum, description: 'The depth answered.', resolve: (r) => r.depth }),
    quote: t.field({
      type: QuoteRef,
      description: 'The latest price, in the quote asset; change over 24 h.',
      resolve: (r) => quoteOf(r.instrument, r.quote),
    }),
    lineage: t.field({ type: LineageRef, description: 'Lineage of the quote.', resolve: (r) => r.lineage }),
    market: t.field({
      type: CoinMarketRef,
      nullable: true,
      description: 'Rolling 24 h statistics (STANDARD and DEEP).',
      resolve: (r) => r.market,
    }),
    orderBook: t.field({
      type: BookSummaryRef,
      nullable: true,
      description: 'Order-book depth (DEEP).',
      resolve: (r) => r.orderBook,
    }),
    funding: t.field({
      type: FundingRef,
      nullable: true,
      description: 'Perpetual funding rate (DEEP).',
      resolve: (r) => r.funding,
    }),
    technicals: t.field({
      type: TechnicalsRef,
      nullable: true,
      description: 'Technical summary (DEEP).',
      resolve: (r) => r.technicals,
    }),
    history: t.field({
      type: [BarRef],
      nullable: true,
      description: 'Last 30 daily bars (DEEP).',
      resolve: (r) => r.history && [...r.history],
    }),
    ...answerFields(t),
  }),
});

builder.queryField('searchByCoin', (t) =>
  t.field({
    type: CoinSearchRef,
    description:
      'Crypto lookup by coin: BTC, ETH/USDC, sol-usdt. `exchange` (default binance) is asked alone when a provider ' +
      'for it is configured; otherwise the price is arbitrated and a warning says so. The `search-by-coin` tool.',
    args: {
      symbol: t.arg.string({ required: true, description: 'Coin or pair: BTC, ETH/USDC, sol-usdt.' }),
      exchange: t.arg.string({ description: 'Exchange to ask (default binance).' }),
      pair: t.arg.string({ description: 'Quote asset (default USDT).' }),
      depth: t.arg({ type: DepthEnum, description: 'How much to gather (default STANDARD).' }),
      sessionId: t.arg.string({ description: 'Analysis session to record this query in.' }),
    },
    resolve: (_root, args, ctx) => searchByCoin(marketDataDeps(ctx), args, ctx.viewer.principal),
  }),
);

import { type BuilderTypes, builder } from '../../builder.ts';
import { enumValues } from '../../platform/graphql/enum-values.ts';
import { instrumentKey } from '../instruments.ts';
import { marketDataDeps } from '../market-data.deps.ts';
import {
  AssetClassEnum,
  BarRef,
  LineageRef,
  MARKET_ARGUMENT,
  QuoteRef,
  quoteOf,
} from '../market-data.graphql.ts';
import type { TechnicalSummary } from './analytics.ts';
import {
  type ComputedFundamental,
  type Fundamentals,
  type SymbolSearchResult,
  searchBySymbol,
} from './search-by-symbol.ts';
import { DEPTH_DESCRIPTIONS, LANGUAGES } from './tool-args.ts';

/** The `searchBySymbol` data tool and the types it shares with `searchByCoin` (coin-search.graphql.ts). */

export const DepthEnum = builder.enumType('SearchDepth', {
  description: 'How much a data tool gathers. The default is STANDARD.',
  values: enumValues(DEPTH_DESCRIPTIONS),
});

export type Trend = TechnicalSummary['trend'];

export const TREND_DESCRIPTIONS: Readonly<Record<Trend, string>> = {
  uptrend: 'Close above SMA 50 and SMA 50 above SMA 200.',
  downtrend: 'Close below SMA 50 and SMA 50 below SMA 200.',
  sideways: 'Neither up nor down by that rule.',
  unknown: 'Too few daily bars for SMA 200.',
};

const TrendEnum = builder.enumType('Trend', {
  description: 'Direction of the price by its moving averages (see TechnicalSummary.conventions).',
  values: enumValues(TREND_DESCRIPTIONS),
});

export const COMPUTED_FUNDAMENTAL_DESCRIPTIONS: Readonly<Record<ComputedFundamental, string>> = {
  averageVolume: '`averageVolume`, from the last 63 daily bars.',
  week52High: '`week52High`, from a year of daily bars.',
  week52Low: '`week52Low`, from a year of daily bars.',
  beta: '`beta`, from a year of daily log returns against the market benchmark.',
};

const ComputedFundamentalEnum = builder.enumType('ComputedFundamental', {
  description: 'A key statistic Vigil computed from daily bars because the profile provider had none.',
  values: enumValues(COMPUTED_FUNDAMENTAL_DESCRIPTIONS),
});

const FundamentalsRef = builder.objectRef<Fundamentals>('Fundamentals').implement({
  description:
    'Key statistics; prices in the currency of the quote. Fields listed in `computed` were computed by ' +
    'Vigil from daily bars. Value object: not normalised (it belongs to its SymbolSearch).',
  fields: (t) => ({
    marketCap: t.exposeFloat('marketCap', {
      nullable: true,
      description: 'Market capitalisation, in the currency of the quote.',
    }),
    peRatio: t.exposeFloat('peRatio', { nullable: true, description: 'Price / earnings ratio (trailing).' }),
    beta: t.exposeFloat('beta', {
      nullable: true,
      description: 'Beta of daily returns against the market benchmark (SPY for US) when computed.',
    }),
    averageVolume: t.exposeFloat('averageVolume', {
      nullable: true,
      description: 'Average daily volume, in units of the instrument (shares).',
    }),
    week52High: t.exposeFloat('week52High', {
      nullable: true,
      description: 'Highest price of the last 52 weeks.',
    }),
    week52Low: t.exposeFloat('week52Low', {
      nullable: true,
      description: 'Lowest price of the last 52 weeks.',
    }),
    sector: t.exposeString('sector', { nullable: true, description: 'Sector, as the provider names it.' }),
    industry: t.exposeString('industry', {
      nullable: true,
      description: 'Industry, as the provider names it.',
    }),
    sharesOutstanding: t.exposeFloat('sharesOutstanding', {
      nullable: true,
      description: 'Shares outstanding (count).',
    }),
    computed: t.field({
      type: [ComputedFundamentalEnum],
      description: 'Fields Vigil computed from daily bars.',
      resolve: (f) => [...f.computed],
    }),
    lineage: t.field({
      type: LineageRef,
      nullable: true,
      description: 'Lineage of the profile; null when every present field was computed.',
      resolve: (f) => f.lineage,
    }),
  }),
});

const MacdRef = builder.objectRef<NonNullable<TechnicalSummary['macd']>>('MacdValue').implement({
  description: 'MACD 12/26/9 of daily closes, in price units. Value object: not normalised.',
  fields: (t) => ({
    line: t.exposeFloat('line', { description: 'EMA 12 minus EMA 26 of the closes.' }),
    signal: t.exposeFloat('signal', { description: 'EMA 9 of the MACD line.' }),
    histogram: t.exposeFloat('histogram', { description: 'Line minus signal.' }),
  }),
});

export const TechnicalsRef = builder.objectRef<TechnicalSummary>('TechnicalSummary').implement({
  description:
    'Technical picture from daily closes; `conventions` states how each value is computed. Moving ' +
    'averages are in price units. Value object: not normalised.',
  fields: (t) => ({
    asOf: t.expose('asOf', { type: 'DateTime', description: 'Open time of the last daily bar used.' }),
    close: t.exposeFloat('close', { description: 'Close of the last daily bar.' }),
    rsi14: t.exposeFloat('rsi14', { nullable: true, description: 'RSI 14 (Wilder), 0 to 100.' }),
    sma20: t.exposeFloat('sma20', { nullable: true, description: 'Simple moving average of 20 closes.' }),
    sma50: t.exposeFloat('sma50', { nullable: true, description: 'Simple moving average of 50 closes.' }),
    sma200: t.exposeFloat('sma200', { nullable: true, description: 'Simple moving average of 200 closes.' }),
    ema20: t.exposeFloat('ema20', {
      nullable: true,
      description: 'Exponential moving average of 20 closes.',
    }),
    macd: t.field({
      type: MacdRef,
      nullable: true,
      description: 'MACD 12/26/9; null with too few bars.',
      resolve: (x) => x.macd,
    }),
    volatility30d: t.exposeFloat('volatility30d', {
      nullable: true,
      description: 'Annualised volatility of the last 30 daily log returns, as a fraction (0.25 = 25 %).',
    }),
    rangePosition52w: t.exposeFloat('rangePosition52w', {
      nullable: true,
      description:
        'Where the close sits in its 52-week range, as a fraction: 0 = at the low, 1 = at the high.',
    }),
    trend: t.field({
      type: TrendEnum,
      description: 'Direction by moving averages.',
      resolve: (x) => x.trend,
    }),
    barsUsed: t.exposeInt('barsUsed', { description: 'Daily bars the summary was computed from.' }),
    conventions: t.exposeString('conventions', { description: 'How each value is computed, in words.' }),
  }),
});

/** What every search tool's answer ends with: the prose, its caveats, and the session it was recorded in. */
interface SearchAnswer {
  readonly narrative: string;
  readonly disclaimer: string;
  readonly warnings: readonly string[];
  readonly sessionId: string | null;
}

/** The fields of `SearchAnswer`, shared by the symbol and coin search types. */
export function answerFields<Shape extends SearchAnswer>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Shape>,
) {
  return {
    narrative: t.string({ description: 'The answer in a few sentences.', resolve: (r) => r.narrative }),
    disclaimer: t.string({
      description: 'What the data is and is not (not advice).',
      resolve: (r) => r.disclaimer,
    }),
    warnings: t.stringList({
      description: 'Parts that could not be filled, and why.',
      resolve: (r) => [...r.warnings],
    }),
    sessionId: t.string({
      nullable: true,
      description: 'The analysis session the query was recorded in, if one was given.',
      resolve: (r) => r.sessionId,
    }),
  };
}

export const SEARCH_ID_NOTE =
  'so a client cache keeps one answer per instrument and depth; the quote inside is the shared Quote entity';

const SymbolSearchRef = builder.objectRef<SymbolSearchResult>('SymbolSearch').implement({
  description:
    'What the `search-by-symbol` tool gathers about one instrument. Entity: id is the instrument key, the ' +
    `depth and the language (\`equity:US:AAPL:deep:en\`), ${SEARCH_ID_NOTE}.`,
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: `<instrument key>:<depth>:<language>`, e.g. `equity:US:AAPL:deep:en`.',
      resolve: (r) => `${instrumentKey(r.instrument)}:${r.depth}:${r.language}`,
    }),
    symbol: t.exposeString('symbol', { description: 'Canonical symbol: AAPL, BRK.B, ^GSPC, EUR/USD.' }),
    assetClass: t.field({
      type: AssetClassEnum,
      description: 'What kind of instrument the symbol was read as.',
      resolve: (r) => r.assetClass,
    }),
    name: t.exposeString('name', { nullable: true, description: 'Name of the instrument, when known.' }),
    exchange: t.exposeString('exchange', {
      nullable: true,
      description: 'Exchange it is listed on, as the provider names it.',
    }),
    market: t.exposeString('market', {
      nullable: true,
      description: 'Market code of a listed instrument (US, UK, ...); null for others.',
    }),
    currency: t.exposeString('currency', { description: 'Currency of the prices (ISO 4217).' }),
    depth: t.field({ type: DepthEnum, description: 'The depth answered.', resolve: (r) => r.depth }),
    language: t.exposeString('language', { description: 'Language code of the narrative (`en`).' }),
    quote: t.field({
      type: QuoteRef,
      description: 'The latest quote.',
      resolve: (r) => quoteOf(r.instrument, r.quote),
    }),
    lineage: t.field({ type: LineageRef, description: 'Lineage of the quote.', resolve: (r) => r.lineage }),
    fundamentals: t.field({
      type: FundamentalsRef,
      nullable: true,
      description: 'Key statistics (STANDARD and DEEP); null at QUICK.',
      resolve: (r) => r.fundamentals,
    }),
    technicals: t.field({
      type: TechnicalsRef,
      nullable: true,
      description: 'Technical summary (DEEP); null otherwise or without daily bars.',
      resolve: (r) => r.technicals,
    }),
    history: t.field({
      type: [BarRef],
      nullable: true,
      description: 'Last 30 daily bars (DEEP); null otherwise.',
      resolve: (r) => r.history && [...r.history],
    }),
    ...answerFields(t),
  }),
});

builder.queryField('searchBySymbol', (t) =>
  t.field({
    type: SymbolSearchRef,
    description:
      'Equity (and any instrument) lookup: quote, and with depth STANDARD/DEEP key statistics, technicals and ' +
      'history. Symbols: AAPL, BRK.B or BRK-B, VOD.L, ^GSPC, EURUSD=X, BTC-USD. The `search-by-symbol` tool.',
    args: {
      symbol: t.arg.string({
        required: true,
        description: 'Ticker or symbol: AAPL, BRK.B (or BRK-B), VOD.L, ^GSPC, EURUSD=X.',
      }),
      market: t.arg.string({ description: MARKET_ARGUMENT }),
      depth: t.arg({ type: DepthEnum, description: 'How much to gather (default STANDARD).' }),
      language: t.arg.string({
        description: `Narrative language; available: ${LANGUAGES.join(', ')} (default en).`,
      }),
      sessionId: t.arg.string({ description: 'Analysis session to record this query in.' }),
    },
    resolve: (_root, args, ctx) => searchBySymbol(marketDataDeps(ctx), args, ctx.viewer.principal),
  }),
);

import { z } from 'zod';
import { enumName, fromEnumName } from '../../platform/graphql/enum-values.ts';
import { MARKET_STATE_DESCRIPTIONS, type MarketState } from '../market-data.graphql.ts';
import { ASSET_CLASSES } from '../types.ts';
import type { ComputedFundamental } from './search-by-symbol.ts';
import { DEPTH_DESCRIPTIONS, DEPTHS, type Depth } from './tool-args.ts';
import type { CommonData } from './tool-data.ts';
import { COMPUTED_FUNDAMENTAL_DESCRIPTIONS, TREND_DESCRIPTIONS, type Trend } from './tools.graphql.ts';

/**
 * The wire shapes of the data tools, filled from the GraphQL data they select (tool-data.ts). The
 * wire shape is the one existing clients know (`cached`, `structural_data`, `data_lineage`, ...),
 * filled only from what the GraphQL operation returns: a value GraphQL does not have is null, never
 * made up. Richer parts (technicals, history, order book, funding, warnings) are added in snake_case.
 */

// Wire values of enums are the domain's own (lower-case, as the spec spells them); GraphQL spells
// enum values in UPPER_CASE. Both directions go through enum-values.ts, which names them.
export const DEPTH_TO_GRAPHQL: Readonly<Record<Depth, string>> = Object.fromEntries(
  DEPTHS.map((d) => [d, enumName(d)]),
) as Record<Depth, string>;
const DEPTH_FROM_GRAPHQL = fromEnumName(DEPTHS);
export const ASSET_CLASS_FROM_GRAPHQL = fromEnumName(ASSET_CLASSES);
const MARKET_STATES = Object.keys(MARKET_STATE_DESCRIPTIONS) as [MarketState, ...MarketState[]];
const MARKET_STATE_FROM_GRAPHQL = fromEnumName(MARKET_STATES);
const TRENDS = Object.keys(TREND_DESCRIPTIONS) as [Trend, ...Trend[]];
const TREND_FROM_GRAPHQL = fromEnumName(TRENDS);
export const COMPUTED_FROM_GRAPHQL = fromEnumName(
  Object.keys(COMPUTED_FUNDAMENTAL_DESCRIPTIONS) as ComputedFundamental[],
);

// ---- wire shape ----------------------------------------------------------------------------------

const isoTime = z.string().describe('ISO 8601 time, UTC');
const source = z.string().describe('Providers the value came from, comma-separated');

const cachedSchema = z.object({
  price: z.number(),
  change: z.number().nullable().describe('Against the previous close (listed) or 24 hours earlier (crypto)'),
  change_percent: z.number().nullable().describe('In percent: 1.5 means +1.5 %'),
  previous_close: z.number().nullable(),
  open: z.number().nullable(),
  day_high: z.number().nullable(),
  day_low: z.number().nullable(),
  volume: z.number().nullable(),
  market_state: z.enum(MARKET_STATES).nullable().describe('Session the price was taken in'),
  as_of: isoTime.describe('Time the quote describes (the quote time), not the response time'),
  last_updated: isoTime.describe('When Vigil obtained the quote from the provider'),
  source,
  ttl: z.number().describe('Cache lifetime of the quote, in seconds'),
  cache_hit: z.boolean(),
  cache_age_seconds: z.number(),
  confidence: z
    .number()
    .describe('Share of answering providers that agreed (1 = unanimous or single source)'),
});

const dataLineageSchema = z.object({
  providers: z.array(z.string()).describe('Providers whose values make up the quote'),
  asked: z.array(z.string()),
  rejected: z.array(z.object({ provider: z.string(), reason: z.string() })),
  arbitration_score: z.number().describe('Share of answering providers that agreed, 0 to 1'),
  conflict_resolved: z.boolean(),
  source_count: z.number().int().describe('Number of providers used'),
  as_of: isoTime,
  timestamp: isoTime.describe('When Vigil obtained the data'),
  simulated: z.boolean(),
});

const technicalsSchema = z
  .object({
    as_of: isoTime,
    close: z.number(),
    rsi_14: z.number().nullable(),
    sma_20: z.number().nullable(),
    sma_50: z.number().nullable(),
    sma_200: z.number().nullable(),
    ema_20: z.number().nullable(),
    macd: z.object({ line: z.number(), signal: z.number(), histogram: z.number() }).nullable(),
    volatility_30d: z.number().nullable().describe('Annualised, as a fraction (0.25 = 25 %)'),
    range_position_52w: z.number().nullable(),
    trend: z.enum(TRENDS).describe('Close vs SMA 50 and SMA 50 vs SMA 200'),
    bars_used: z.number().int(),
    conventions: z.string(),
  })
  .nullable()
  .describe('Depth deep only');

const historySchema = z
  .array(
    z.object({
      time: isoTime,
      open: z.number(),
      high: z.number(),
      low: z.number(),
      close: z.number(),
      volume: z.number().nullable(),
      adj_close: z.number().nullable(),
    }),
  )
  .nullable()
  .describe('The last 30 daily bars (depth deep only)');

const commonWire = {
  symbol: z.string(),
  name: z.string().nullable(),
  currency: z.string(),
  depth: z.enum(DEPTHS),
  cached: cachedSchema,
  technicals: technicalsSchema,
  history: historySchema,
  task: z.string().describe('What the call gathered: tool name, depth and what that depth includes'),
  narrative: z.string(),
  disclaimer: z.string(),
  data_lineage: dataLineageSchema,
  warnings: z.array(z.string()).describe('Parts that could not be filled, and why'),
  simulated: z.boolean().describe('True when the data comes from the simulated market, not a real one'),
  session_id: z.string().nullable(),
};

export const symbolOutput = z.object({
  ...commonWire,
  exchange: z.string().nullable(),
  market: z.string().nullable().describe('Market code (US, UK, ...)'),
  asset_class: z.enum(ASSET_CLASSES),
  language: z.string(),
  structural_data: z
    .object({
      market_cap: z.number().nullable(),
      pe_ratio: z.number().nullable(),
      beta: z.number().nullable(),
      avg_volume: z.number().nullable(),
      week_52_high: z.number().nullable(),
      week_52_low: z.number().nullable(),
      sector: z.string().nullable(),
      industry: z.string().nullable(),
      shares_outstanding: z.number().nullable(),
      computed_fields: z.array(z.string()).describe('Fields Vigil computed from daily bars'),
      source: source.nullable().describe('Providers of the profile (null when every field was computed)'),
    })
    .nullable()
    .describe('Depth standard and deep'),
});

export const coinOutput = z.object({
  ...commonWire,
  symbol: z.string().describe('The pair, BASE/QUOTE'),
  base: z.string(),
  pair: z.string().describe('The quote asset'),
  exchange: z.string().describe('The exchange asked for'),
  market: z
    .object({
      high_24h: z.number(),
      low_24h: z.number(),
      volume_24h: z.number().nullable().describe('In units of the base asset'),
      quote_volume_24h: z.number().nullable().describe('In units of the quote asset'),
      market_cap: z.number().nullable().describe('USD'),
      source,
    })
    .nullable()
    .describe('Rolling 24 h statistics (depth standard and deep)'),
  order_book: z
    .object({
      best_bid: z.number(),
      best_ask: z.number(),
      spread: z.number(),
      spread_bps: z.number(),
      bid_depth_1pct: z.number().describe('Quote-currency value of bids within 1 % of mid'),
      ask_depth_1pct: z.number(),
      levels: z.number().int(),
      as_of: isoTime,
      source,
    })
    .nullable()
    .describe('Depth deep only'),
  funding: z
    .object({
      rate: z.number().describe('Per funding interval, as a fraction (0.0001 = 0.01 %)'),
      interval_hours: z.number().int(),
      mark_price: z.number().nullable(),
      next_funding_time: isoTime.nullable(),
      as_of: isoTime,
      venue: z.string(),
      source,
    })
    .nullable()
    .describe('Perpetual funding rate (depth deep only)'),
});

export type SymbolWire = z.infer<typeof symbolOutput>;
export type CoinWire = z.infer<typeof coinOutput>;

export const joined = (used: readonly string[]) => used.join(', ');

export function common(tool: string, data: CommonData) {
  const { quote: q, lineage: l } = data;
  const depth = DEPTH_FROM_GRAPHQL(data.depth);
  return {
    symbol: data.symbol,
    name: data.name,
    currency: q.currency,
    depth,
    cached: {
      price: q.price,
      change: q.change,
      change_percent: q.changePercent,
      previous_close: q.previousClose,
      open: q.open,
      day_high: q.dayHigh,
      day_low: q.dayLow,
      volume: q.volume,
      market_state: q.marketState === null ? null : MARKET_STATE_FROM_GRAPHQL(q.marketState),
      as_of: q.asOf,
      last_updated: l.retrievedAt,
      source: joined(l.used),
      ttl: l.cacheTtlMs / 1000,
      cache_hit: l.cacheHit,
      cache_age_seconds: l.cacheAgeMs / 1000,
      confidence: l.agreement,
    },
    technicals: data.technicals && {
      as_of: data.technicals.asOf,
      close: data.technicals.close,
      rsi_14: data.technicals.rsi14,
      sma_20: data.technicals.sma20,
      sma_50: data.technicals.sma50,
      sma_200: data.technicals.sma200,
      ema_20: data.technicals.ema20,
      macd: data.technicals.macd && { ...data.technicals.macd },
      volatility_30d: data.technicals.volatility30d,
      range_position_52w: data.technicals.rangePosition52w,
      trend: TREND_FROM_GRAPHQL(data.technicals.trend),
      bars_used: data.technicals.barsUsed,
      conventions: data.technicals.conventions,
    },
    history:
      data.history?.map((b) => ({
        time: b.time,
        open: b.open,
        high: b.high,
        low: b.low,
        close: b.close,
        volume: b.volume,
        adj_close: b.adjClose,
      })) ?? null,
    task: `${tool} at depth ${depth}: ${DEPTH_DESCRIPTIONS[depth]}`,
    narrative: data.narrative,
    disclaimer: data.disclaimer,
    data_lineage: {
      providers: l.used,
      asked: l.asked,
      rejected: l.rejected,
      arbitration_score: l.agreement,
      conflict_resolved: l.conflictResolved,
      source_count: l.used.length,
      as_of: l.asOf,
      timestamp: l.retrievedAt,
      simulated: l.simulated,
    },
    warnings: data.warnings,
    simulated: l.simulated,
    session_id: data.sessionId,
  };
}

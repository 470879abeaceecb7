import { z } from 'zod';
import { enumName, fromEnumName } from '../../platform/graphql/enum-values.ts';
import { MARKET_STATE_DESCRIPTIONS, type MarketState } from '../market-data.graphql.ts';
import { ASSET_CLASSES, type BarInterval } from '../types.ts';
import type { LineageData, QuoteData } from './tool-data.ts';

/**
 * The wire shapes of the lookup tools (`get-price-history`, `get-quotes`, `search-instruments`),
 * filled from the GraphQL data their documents select: snake_case, enums in the domain's own
 * lower-case spelling, and a short lineage (providers, cache, simulated) beside every value.
 */

export const BAR_INTERVALS = ['1m', '5m', '15m', '30m', '1h', '1d'] as const satisfies readonly BarInterval[];
/** GraphQL's names of the intervals (`1d` is ONE_DAY): declared in history.graphql.ts. */
export const INTERVAL_TO_GRAPHQL: Readonly<Record<BarInterval, string>> = {
  '1m': 'ONE_MINUTE',
  '5m': 'FIVE_MINUTES',
  '15m': 'FIFTEEN_MINUTES',
  '30m': 'THIRTY_MINUTES',
  '1h': 'ONE_HOUR',
  '1d': 'ONE_DAY',
};
const INTERVAL_FROM_GRAPHQL = (name: string): BarInterval => {
  const found = BAR_INTERVALS.find((i) => INTERVAL_TO_GRAPHQL[i] === name);
  if (!found) throw new Error(`unmapped GraphQL enum value ${name}`);
  return found;
};
export const assetClassToGraphql = (value: unknown) =>
  typeof value === 'string' ? enumName(value) : undefined;
const ASSET_CLASS = fromEnumName(ASSET_CLASSES);
const MARKET_STATES = Object.keys(MARKET_STATE_DESCRIPTIONS) as [MarketState, ...MarketState[]];
const MARKET_STATE = fromEnumName(MARKET_STATES);

// ---- GraphQL data ------------------------------------------------------------------------------

/** The fragments every lookup document uses (GraphQL refuses a document with an unused one). */
export const LOOKUP_FRAGMENTS = /* GraphQL */ `
  fragment LookupInstrument on Instrument { symbol assetClass market name exchange }
  fragment LookupLineage on Lineage { used rejected { provider reason } cacheHit simulated retrievedAt }
`;
export const QUOTE_FIELDS =
  'price change changePercent previousClose open dayHigh dayLow volume currency asOf marketState';

interface InstrumentData {
  symbol: string;
  assetClass: string;
  market: string | null;
  name: string | null;
  exchange: string | null;
}
type ShortLineage = Pick<LineageData, 'used' | 'rejected' | 'cacheHit' | 'simulated' | 'retrievedAt'>;

export interface HistoryData {
  bars: {
    instrument: InstrumentData;
    interval: string;
    from: string;
    to: string;
    totalCount: number;
    nodes: { time: string; open: number; high: number; low: number; close: number; volume: number | null }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
    lineage: ShortLineage;
  };
}

export interface QuotesData {
  quotes: {
    requested: string;
    instrument: InstrumentData | null;
    quote: QuoteData | null;
    lineage: ShortLineage | null;
    error: { code: string; message: string } | null;
  }[];
}

export interface InstrumentsData {
  instruments: { query: string; instruments: InstrumentData[]; lineage: ShortLineage };
}

// ---- wire shapes -------------------------------------------------------------------------------

const isoTime = z.string().describe('ISO 8601 time, UTC');

const instrumentSchema = z.object({
  symbol: z.string().describe('Canonical symbol: AAPL, BTC/USDT, EUR/USD, ^GSPC'),
  asset_class: z.enum(ASSET_CLASSES),
  market: z.string().nullable().describe('Market code of a listing (US, UK...); null otherwise'),
  name: z.string().nullable(),
  exchange: z.string().nullable(),
});

const lineageSchema = z.object({
  provider: z.string().describe('Providers the values came from, comma-separated'),
  rejected: z
    .array(z.object({ provider: z.string(), reason: z.string() }))
    .describe('Providers set aside, and why'),
  cache_hit: z.boolean(),
  simulated: z.boolean().describe('True when the values come from the simulated market'),
  retrieved_at: isoTime.describe('When Vigil obtained the values'),
});

function instrument(i: InstrumentData): z.infer<typeof instrumentSchema> {
  return {
    symbol: i.symbol,
    asset_class: ASSET_CLASS(i.assetClass),
    market: i.market,
    name: i.name,
    exchange: i.exchange,
  };
}

function lineage(l: ShortLineage): z.infer<typeof lineageSchema> {
  return {
    provider: l.used.join(', '),
    rejected: l.rejected,
    cache_hit: l.cacheHit,
    simulated: l.simulated,
    retrieved_at: l.retrievedAt,
  };
}

export const historyOutput = z.object({
  instrument: instrumentSchema,
  interval: z.enum(BAR_INTERVALS),
  from: isoTime.describe('Start of the range (bar open times at or after it)'),
  to: isoTime.describe('End of the range, exclusive'),
  total_count: z.number().int().describe('Bars in the whole range, all pages together'),
  bars: z
    .array(
      z.object({
        time: isoTime.describe('Bar open time'),
        open: z.number(),
        high: z.number(),
        low: z.number(),
        close: z.number(),
        volume: z
          .number()
          .nullable()
          .describe('Units traded (shares, coins); null when the provider gives none'),
      }),
    )
    .describe('This page, oldest first; prices in the quote currency'),
  next_cursor: z.string().nullable().describe('Pass as `after` for the next page; null on the last page'),
  lineage: lineageSchema,
});

export function historyWire({ bars: p }: HistoryData): z.infer<typeof historyOutput> {
  return {
    instrument: instrument(p.instrument),
    interval: INTERVAL_FROM_GRAPHQL(p.interval),
    from: p.from,
    to: p.to,
    total_count: p.totalCount,
    bars: p.nodes.map((b) => ({
      time: b.time,
      open: b.open,
      high: b.high,
      low: b.low,
      close: b.close,
      volume: b.volume,
    })),
    next_cursor: p.pageInfo.hasNextPage ? p.pageInfo.endCursor : null,
    lineage: lineage(p.lineage),
  };
}

const quoteSchema = z.object({
  price: z.number(),
  change: z.number().nullable().describe('Against the previous close (listed) or 24 hours earlier (crypto)'),
  change_percent: z.number().nullable().describe('In percent: 1.5 means +1.5 %'),
  previous_close: z.number().nullable(),
  open: z.number().nullable(),
  day_high: z.number().nullable(),
  day_low: z.number().nullable(),
  volume: z.number().nullable(),
  currency: z.string(),
  market_state: z.enum(MARKET_STATES).nullable(),
  as_of: isoTime.describe('Time the quote describes'),
});

export const quotesOutput = z.object({
  quotes: z
    .array(
      z.object({
        requested: z.string().describe('The symbol as written in `symbols`'),
        instrument: instrumentSchema
          .nullable()
          .describe('What it was read as; null when it could not be read'),
        quote: quoteSchema.nullable().describe('Null with `error`'),
        lineage: lineageSchema.nullable(),
        error: z
          .object({ code: z.string(), message: z.string() })
          .nullable()
          .describe('Why this symbol has no quote (UNKNOWN_SYMBOL...); the others keep theirs'),
      }),
    )
    .describe('One per symbol, in the order asked'),
  failed: z.number().int().describe('Symbols without a quote'),
});

export function quotesWire({ quotes }: QuotesData): z.infer<typeof quotesOutput> {
  return {
    quotes: quotes.map((r) => ({
      requested: r.requested,
      instrument: r.instrument && instrument(r.instrument),
      quote: r.quote && {
        price: r.quote.price,
        change: r.quote.change,
        change_percent: r.quote.changePercent,
        previous_close: r.quote.previousClose,
        open: r.quote.open,
        day_high: r.quote.dayHigh,
        day_low: r.quote.dayLow,
        volume: r.quote.volume,
        currency: r.quote.currency,
        market_state: r.quote.marketState === null ? null : MARKET_STATE(r.quote.marketState),
        as_of: r.quote.asOf,
      },
      lineage: r.lineage && lineage(r.lineage),
      error: r.error,
    })),
    failed: quotes.filter((r) => r.error).length,
  };
}

export const instrumentsOutput = z.object({
  query: z.string().describe('The search text as used (trimmed)'),
  instruments: z.array(instrumentSchema).describe('Matches, best first'),
  lineage: lineageSchema.describe('Providers searched, and any that failed (`rejected`)'),
});

export function instrumentsWire({ instruments: s }: InstrumentsData): z.infer<typeof instrumentsOutput> {
  return { query: s.query, instruments: s.instruments.map(instrument), lineage: lineage(s.lineage) };
}

import { z } from 'zod';
import type { ToolArgs, ToolDefinition } from '../platform/operations/tool.ts';
import { MAX_BARS_PER_PAGE } from './history/bar-pages.ts';
import { MAX_SYMBOLS_PER_REQUEST } from './limits.ts';
import { MAX_SEARCH_RESULTS } from './search/instrument-search.ts';
import {
  assetClassToGraphql,
  BAR_INTERVALS,
  type HistoryData,
  historyOutput,
  historyWire,
  INTERVAL_TO_GRAPHQL,
  type InstrumentsData,
  instrumentsOutput,
  instrumentsWire,
  LOOKUP_FRAGMENTS,
  QUOTE_FIELDS,
  type QuotesData,
  quotesOutput,
  quotesWire,
} from './tools/lookup-wire.ts';
import { ASSET_CLASSES, type BarInterval, MAX_BARS_PER_REQUEST } from './types.ts';

/**
 * The lookup tools agents expect beside the search tools: price history in pages, a batch of
 * quotes, and the instrument search. Each runs one GraphQL query (`bars`, `quotes`, `instruments`).
 */

const assetClassArgument = {
  schema: z.enum(ASSET_CLASSES),
  description: 'Read the symbol(s) as this asset class: equity, etf, index, crypto, fx or macro (optional).',
};

/** The validated arguments as variables, enums spelled as GraphQL spells them. */
function lookupVariables(args: ToolArgs): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) if (value !== undefined) variables[name] = value;
  if (args.interval !== undefined) variables.interval = INTERVAL_TO_GRAPHQL[args.interval as BarInterval];
  if (args.assetClass !== undefined) variables.assetClass = assetClassToGraphql(args.assetClass);
  return variables;
}

const getPriceHistory: ToolDefinition<HistoryData, z.infer<typeof historyOutput>> = {
  name: 'get-price-history',
  title: 'Price history (OHLCV bars)',
  description:
    'OHLCV bars of one instrument, oldest first, in pages: {instrument, interval, from, to, total_count, bars: ' +
    '[{time, open, high, low, close, volume}], next_cursor, lineage: {provider, cache_hit, simulated}}. Prices are ' +
    'in the quote currency; volume in shares or coins. Range: from/to (ISO 8601) or lookback (`90d`, `6h`, `2w`, ' +
    '`1y`; ends now unless `to` is given); by default the interval default range (420 days of 1d bars, 30 days of ' +
    `1h, 7 days of 5m/15m/30m, one day of 1m). A range holds at most ${MAX_BARS_PER_REQUEST} bars; a page at most ` +
    `${MAX_BARS_PER_PAGE} (first, default 100). Pass next_cursor back as after for the next page. Example: ` +
    '{symbol: "AAPL", interval: "1d", lookback: "90d"}.',
  document: /* GraphQL */ `
    query PriceHistory($symbol: String!, $interval: BarInterval!, $from: DateTime, $to: DateTime, $lookback: String,
        $first: Int, $after: String, $assetClass: AssetClass, $market: String) {
      bars(symbol: $symbol, interval: $interval, from: $from, to: $to, lookback: $lookback, first: $first,
          after: $after, assetClass: $assetClass, market: $market) {
        instrument { ...LookupInstrument }
        interval from to totalCount
        nodes { time open high low close volume }
        pageInfo { hasNextPage endCursor }
        lineage { ...LookupLineage }
      }
    }
    ${LOOKUP_FRAGMENTS}`,
  arguments: {
    symbol: { description: 'AAPL, BRK.B, VOD.L, ^GSPC, EUR/USD, BTC/USDT; a bare coin (BTC) is BTC/USDT.' },
    interval: {
      schema: z.enum(BAR_INTERVALS),
      default: '1d',
      description: 'Bar length: 1m, 5m, 15m, 30m, 1h or 1d.',
    },
    from: { description: 'Start of the range (ISO 8601); leave out with lookback.' },
    to: { description: 'End of the range, exclusive (ISO 8601); default now.' },
    lookback: {
      description: 'Instead of from: how far back from `to`, a number and m, h, d, w or y: 90d, 6h, 1y.',
    },
    first: {
      schema: z.number().int().min(1).max(MAX_BARS_PER_PAGE),
      description: `Bars per page, 1 to ${MAX_BARS_PER_PAGE} (default 100).`,
    },
    after: { description: 'The next_cursor of the previous page.' },
    assetClass: assetClassArgument,
    market: { description: 'Market code of a listing: US (default), UK, DE, FR, JP, HK...' },
  },
  variables: lookupVariables,
  result: historyWire,
  outputSchema: historyOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
};

const getQuotes: ToolDefinition<QuotesData, z.infer<typeof quotesOutput>> = {
  name: 'get-quotes',
  title: 'Quotes of several symbols',
  description:
    `Latest quotes of 1 to ${MAX_SYMBOLS_PER_REQUEST} symbols in one call, in the order asked: {quotes: [{requested, ` +
    'instrument, quote: {price, change, change_percent (percent), previous_close, open, day_high, day_low, volume, ' +
    'currency, market_state, as_of}, lineage, error}], failed}. Each symbol stands alone: an unknown one carries ' +
    'its error {code, message} and a null quote, the others their quotes. Example: {symbols: ["AAPL", "BTC", ' +
    '"EUR/USD"]}.',
  document: /* GraphQL */ `
    query Quotes($symbols: [String!]!, $assetClass: AssetClass, $market: String) {
      quotes(symbols: $symbols, assetClass: $assetClass, market: $market) {
        requested
        instrument { ...LookupInstrument }
        quote { ${QUOTE_FIELDS} }
        lineage { ...LookupLineage }
        error { code message }
      }
    }
    ${LOOKUP_FRAGMENTS}`,
  arguments: {
    symbols: {
      schema: z.array(z.string()).min(1).max(MAX_SYMBOLS_PER_REQUEST),
      description: `1 to ${MAX_SYMBOLS_PER_REQUEST} symbols: AAPL, BRK.B, BTC, BTC/USDT, EUR/USD, ^GSPC.`,
    },
    assetClass: assetClassArgument,
    market: { description: 'Market code of the listings: US (default), UK, DE, FR, JP, HK...' },
  },
  variables: lookupVariables,
  result: quotesWire,
  outputSchema: quotesOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
};

const searchInstruments: ToolDefinition<InstrumentsData, z.infer<typeof instrumentsOutput>> = {
  name: 'search-instruments',
  title: 'Search instruments',
  description:
    'Finds instruments by name or symbol prefix (`apple` finds AAPL, `bitcoin` the BTC pairs, `vod` VOD.L) in the ' +
    'search endpoints of the configured providers: {query, instruments: [{symbol, asset_class, market, name, ' +
    'exchange}], lineage}. Best first: the symbol itself, then symbol prefixes, then names. Only instruments a ' +
    'configured provider can quote; pass a symbol to get-quotes or get-price-history. Example: {query: "apple"}.',
  document: /* GraphQL */ `
    query SearchInstruments($query: String!, $first: Int) {
      instruments(query: $query, first: $first) {
        query
        instruments { ...LookupInstrument }
        lineage { ...LookupLineage }
      }
    }
    ${LOOKUP_FRAGMENTS}`,
  arguments: {
    query: { description: 'Part of a name or a symbol, 1 to 64 characters: apple, BTC, vodafone.' },
    first: {
      schema: z.number().int().min(1).max(MAX_SEARCH_RESULTS),
      description: `Most matches, 1 to ${MAX_SEARCH_RESULTS} (default 10).`,
    },
  },
  result: instrumentsWire,
  outputSchema: instrumentsOutput,
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
};

export const lookupTools: readonly ToolDefinition<never>[] = [getPriceHistory, getQuotes, searchInstruments];

import { z } from 'zod';
import type { ToolArgs, ToolDefinition } from '../platform/operations/tool.ts';
import type { ComputedFundamental } from './tools/search-by-symbol.ts';
import { DEPTH_DESCRIPTIONS, DEPTHS, type Depth } from './tools/tool-args.ts';
import { type CoinData, FRAGMENTS, type SymbolData } from './tools/tool-data.ts';
import {
  ASSET_CLASS_FROM_GRAPHQL,
  COMPUTED_FROM_GRAPHQL,
  type CoinWire,
  coinOutput,
  common,
  DEPTH_TO_GRAPHQL,
  joined,
  type SymbolWire,
  symbolOutput,
} from './tools/tool-wire.ts';

/**
 * The data tools (`search-by-symbol`, `search-by-coin`) as GraphQL documents with their wire shapes
 * (tools/tool-wire.ts).
 */

/** Fundamentals field names as the wire spells them (for `computed_fields`). */
const WIRE_FIELD: Readonly<Record<ComputedFundamental, string>> = {
  averageVolume: 'avg_volume',
  week52High: 'week_52_high',
  week52Low: 'week_52_low',
  beta: 'beta',
};

const depthArgument = {
  schema: z.enum(DEPTHS),
  default: 'standard',
  description: `How much to gather (default standard). ${DEPTHS.map((d) => `${d}: ${DEPTH_DESCRIPTIONS[d]}`).join('. ')}.`,
};
const sessionArgument = {
  description: 'Analysis session to record this query in (optional).',
};

/** The validated arguments as variables, with the depth spelled as the GraphQL enum spells it. */
function searchVariables(args: ToolArgs): Record<string, unknown> {
  const variables: Record<string, unknown> = { depth: DEPTH_TO_GRAPHQL[args.depth as Depth] };
  for (const [name, value] of Object.entries(args))
    if (name !== 'depth' && value !== undefined) variables[name] = value;
  return variables;
}

const searchBySymbol: ToolDefinition<{ searchBySymbol: SymbolData }, SymbolWire> = {
  name: 'search-by-symbol',
  title: 'Search by symbol',
  description:
    'Market data for one instrument (equities, ETFs, indices, fx; e.g. AAPL, BRK.B, VOD.L, ^GSPC, EURUSD=X): ' +
    'name, exchange, the latest quote (`cached`: price, change, change_percent in percent, as_of = quote time), ' +
    '`structural_data` (market cap, P/E, beta, average volume, 52-week range, sector), a narrative, and where every ' +
    'value came from (`data_lineage`). Depth: quick = quote only; standard (default) = + key statistics; deep = + ' +
    'technicals (RSI, SMAs, MACD, volatility, trend) and the last 30 daily bars. Unknown values are null; ' +
    '`warnings` says which parts could not be filled. `task` names the tool, the depth and what it covers.',
  document: /* GraphQL */ `
    query SearchBySymbol($symbol: String!, $market: String, $depth: SearchDepth, $language: String, $sessionId: String) {
      searchBySymbol(symbol: $symbol, market: $market, depth: $depth, language: $language, sessionId: $sessionId) {
        symbol assetClass name exchange market currency depth language
        quote { ...ToolQuote }
        lineage { ...ToolLineage }
        fundamentals {
          marketCap peRatio beta averageVolume week52High week52Low sector industry sharesOutstanding computed
          lineage { used }
        }
        technicals { ...ToolTechnicals }
        history { ...ToolBar }
        narrative disclaimer warnings sessionId
      }
    }
    ${FRAGMENTS}`,
  arguments: {
    symbol: { description: 'Ticker or symbol: AAPL, BRK.B (or BRK-B), VOD.L, ^GSPC, EURUSD=X.' },
    market: { default: 'US' },
    depth: depthArgument,
    language: { default: 'en' },
    sessionId: sessionArgument,
  },
  variables: searchVariables,
  result: ({ searchBySymbol: d }) => {
    const f = d.fundamentals;
    return {
      ...common('search-by-symbol', d),
      currency: d.currency,
      exchange: d.exchange,
      market: d.market,
      asset_class: ASSET_CLASS_FROM_GRAPHQL(d.assetClass),
      language: d.language,
      structural_data: f && {
        market_cap: f.marketCap,
        pe_ratio: f.peRatio,
        beta: f.beta,
        avg_volume: f.averageVolume,
        week_52_high: f.week52High,
        week_52_low: f.week52Low,
        sector: f.sector,
        industry: f.industry,
        shares_outstanding: f.sharesOutstanding,
        computed_fields: f.computed.map((name) => WIRE_FIELD[COMPUTED_FROM_GRAPHQL(name)]),
        source: f.lineage ? joined(f.lineage.used) : null,
      },
    };
  },
  outputSchema: symbolOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
};

const searchByCoin: ToolDefinition<{ searchByCoin: CoinData }, CoinWire> = {
  name: 'search-by-coin',
  title: 'Search by coin',
  description:
    'Crypto market data for a coin on an exchange (BTC, ETH/USDC, sol-usdt): the latest price (`cached`: price, ' +
    'change and change_percent (in percent) over 24 hours, as_of = quote time) with its lineage and a narrative. ' +
    'Depth: quick = price only; standard (default) = + 24 h high/low/volume and market cap (`market`); deep = + ' +
    'order-book depth, perpetual funding rate, technicals and the last 30 daily bars. When no configured provider ' +
    'represents the exchange, the price is arbitrated across providers and `warnings` says so. Unknown values are ' +
    'null. `task` names the tool, the depth and what it covers.',
  document: /* GraphQL */ `
    query SearchByCoin($symbol: String!, $exchange: String, $pair: String, $depth: SearchDepth, $sessionId: String) {
      searchByCoin(symbol: $symbol, exchange: $exchange, pair: $pair, depth: $depth, sessionId: $sessionId) {
        symbol base pair name exchange depth
        quote { ...ToolQuote }
        lineage { ...ToolLineage }
        market { high24h low24h volume24h quoteVolume24h marketCap lineage { used } }
        orderBook { bestBid bestAsk spread spreadBps bidDepth1Pct askDepth1Pct levels asOf lineage { used } }
        funding { rate intervalHours markPrice nextFundingTime asOf venue lineage { used } }
        technicals { ...ToolTechnicals }
        history { ...ToolBar }
        narrative disclaimer warnings sessionId
      }
    }
    ${FRAGMENTS}`,
  arguments: {
    symbol: { description: 'Coin or pair: BTC, ETH/USDC, sol-usdt.' },
    exchange: { default: 'binance', description: 'Exchange to ask (default binance).' },
    pair: { default: 'USDT', description: 'Quote asset (default USDT).' },
    depth: depthArgument,
    sessionId: sessionArgument,
  },
  variables: searchVariables,
  result: ({ searchByCoin: d }) => ({
    ...common('search-by-coin', d),
    base: d.base,
    pair: d.pair,
    exchange: d.exchange,
    market: d.market && {
      high_24h: d.market.high24h,
      low_24h: d.market.low24h,
      volume_24h: d.market.volume24h,
      quote_volume_24h: d.market.quoteVolume24h,
      market_cap: d.market.marketCap,
      source: joined(d.market.lineage.used),
    },
    order_book: d.orderBook && {
      best_bid: d.orderBook.bestBid,
      best_ask: d.orderBook.bestAsk,
      spread: d.orderBook.spread,
      spread_bps: d.orderBook.spreadBps,
      bid_depth_1pct: d.orderBook.bidDepth1Pct,
      ask_depth_1pct: d.orderBook.askDepth1Pct,
      levels: d.orderBook.levels,
      as_of: d.orderBook.asOf,
      source: joined(d.orderBook.lineage.used),
    },
    funding: d.funding && {
      rate: d.funding.rate,
      interval_hours: d.funding.intervalHours,
      mark_price: d.funding.markPrice,
      next_funding_time: d.funding.nextFundingTime,
      as_of: d.funding.asOf,
      venue: d.funding.venue,
      source: joined(d.funding.lineage.used),
    },
  }),
  outputSchema: coinOutput,
  annotations: { readOnlyHint: true, openWorldHint: true },
};

export const marketDataTools: readonly ToolDefinition<never>[] = [searchBySymbol, searchByCoin];

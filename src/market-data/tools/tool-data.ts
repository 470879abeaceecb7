/**
 * The GraphQL data the data tools' documents select (`FRAGMENTS`), as the tools read it before
 * turning it into their wire shapes (tool-wire.ts).
 */

export interface LineageData {
  asked: string[];
  used: string[];
  rejected: { provider: string; reason: string }[];
  agreement: number;
  conflictResolved: boolean;
  asOf: string;
  retrievedAt: string;
  simulated: boolean;
  cacheHit: boolean;
  cacheAgeMs: number;
  cacheTtlMs: number;
}

export interface QuoteData {
  price: number;
  change: number | null;
  changePercent: number | null;
  previousClose: number | null;
  open: number | null;
  dayHigh: number | null;
  dayLow: number | null;
  volume: number | null;
  currency: string;
  asOf: string;
  marketState: string | null;
}

export interface TechnicalsData {
  asOf: string;
  close: number;
  rsi14: number | null;
  sma20: number | null;
  sma50: number | null;
  sma200: number | null;
  ema20: number | null;
  macd: { line: number; signal: number; histogram: number } | null;
  volatility30d: number | null;
  rangePosition52w: number | null;
  trend: string;
  barsUsed: number;
  conventions: string;
}

export interface BarData {
  time: string;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number | null;
  adjClose: number | null;
}

export interface CommonData {
  symbol: string;
  name: string | null;
  currency?: string;
  depth: string;
  quote: QuoteData;
  lineage: LineageData;
  technicals: TechnicalsData | null;
  history: BarData[] | null;
  narrative: string;
  disclaimer: string;
  warnings: string[];
  sessionId: string | null;
}

export interface SymbolData extends CommonData {
  assetClass: string;
  exchange: string | null;
  market: string | null;
  currency: string;
  language: string;
  fundamentals: {
    marketCap: number | null;
    peRatio: number | null;
    beta: number | null;
    averageVolume: number | null;
    week52High: number | null;
    week52Low: number | null;
    sector: string | null;
    industry: string | null;
    sharesOutstanding: number | null;
    computed: string[];
    lineage: { used: string[] } | null;
  } | null;
}

export interface CoinData extends CommonData {
  base: string;
  pair: string;
  exchange: string;
  market: {
    high24h: number;
    low24h: number;
    volume24h: number | null;
    quoteVolume24h: number | null;
    marketCap: number | null;
    lineage: { used: string[] };
  } | null;
  orderBook: {
    bestBid: number;
    bestAsk: number;
    spread: number;
    spreadBps: number;
    bidDepth1Pct: number;
    askDepth1Pct: number;
    levels: number;
    asOf: string;
    lineage: { used: string[] };
  } | null;
  funding: {
    rate: number;
    intervalHours: number;
    markPrice: number | null;
    nextFundingTime: string | null;
    asOf: string;
    venue: string;
    lineage: { used: string[] };
  } | null;
}

export const FRAGMENTS = /* GraphQL */ `
  fragment ToolQuote on Quote {
    price change changePercent previousClose open dayHigh dayLow volume currency asOf marketState
  }
  fragment ToolLineage on Lineage {
    asked used rejected { provider reason } agreement conflictResolved asOf retrievedAt simulated
    cacheHit cacheAgeMs cacheTtlMs
  }
  fragment ToolTechnicals on TechnicalSummary {
    asOf close rsi14 sma20 sma50 sma200 ema20 macd { line signal histogram } volatility30d
    rangePosition52w trend barsUsed conventions
  }
  fragment ToolBar on Bar { time open high low close volume adjClose }
`;

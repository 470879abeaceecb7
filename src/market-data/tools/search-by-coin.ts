import type { Principal } from '../../platform/access/principal.ts';
import { ValidationError } from '../../platform/errors.ts';
import { roundFloat } from '../../quant/round.ts';
import type { Lineage } from '../arbitration/lineage.ts';
import { parseInstrument } from '../instruments.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { Bar, FundingRate, Instrument, OrderBook, Quote } from '../types.ts';
import { type TechnicalSummary, technicalSummary } from './analytics.ts';
import {
  disclaimer,
  formatLarge,
  formatPrice,
  narrativeOf,
  quoteSentence,
  sourceSentence,
  subjectLabel,
  technicalSentence,
} from './narrative.ts';
import { reportToolCall } from './report-tool-call.ts';
import { allCached, attempt, type ToolContext, universeName } from './search-parts.ts';
import { type Depth, parseDepth, parseSessionId, parseVenue } from './tool-args.ts';

export interface SearchByCoinArgs {
  readonly symbol?: string | null;
  readonly exchange?: string | null;
  readonly pair?: string | null;
  readonly depth?: string | null;
  readonly sessionId?: string | null;
}

export interface CoinMarket {
  readonly high24h: number;
  readonly low24h: number;
  readonly volume24h: number | null;
  readonly quoteVolume24h: number | null;
  readonly marketCap: number | null;
  readonly lineage: Lineage;
}

export interface BookSummary {
  readonly bestBid: number;
  readonly bestAsk: number;
  readonly spread: number;
  /** Spread as basis points of the mid price. */
  readonly spreadBps: number;
  /** Quote-currency value of bids within 1 % below the mid price. */
  readonly bidDepth1Pct: number;
  readonly askDepth1Pct: number;
  readonly levels: number;
  readonly asOf: Date;
  readonly lineage: Lineage;
}

export interface CoinSearchResult {
  readonly tool: 'search-by-coin';
  /** The pair the symbol was read as. */
  readonly instrument: Instrument;
  readonly symbol: string;
  readonly base: string;
  readonly pair: string;
  readonly name: string | null;
  /** The exchange that was asked for. */
  readonly exchange: string;
  /** The provider the price actually came from. */
  readonly source: string;
  readonly depth: Depth;
  readonly quote: Quote;
  readonly lineage: Lineage;
  readonly market: CoinMarket | null;
  readonly orderBook: BookSummary | null;
  readonly funding: (FundingRate & { readonly lineage: Lineage }) | null;
  readonly technicals: TechnicalSummary | null;
  readonly history: readonly Bar[] | null;
  readonly narrative: string;
  readonly disclaimer: string;
  readonly warnings: readonly string[];
  readonly sessionId: string | null;
}

const DAY = 86_400_000;
const BOOK_LEVELS = 50;

export async function searchByCoin(
  ctx: ToolContext,
  args: SearchByCoinArgs,
  caller?: Principal,
): Promise<CoinSearchResult> {
  const started = performance.now();
  const { symbol, depth, exchange, sessionId, instrument } = parseCoinArgs(args);
  const { marketData } = ctx;
  const warnings: string[] = [];
  const prefer = preferredProvider(marketData, exchange, instrument, warnings);

  const quoted = await marketData.quote(instrument, prefer);
  const quote = quoted.value;
  const listedName = universeName(marketData, instrument);
  const stats =
    depth === 'quick' ? undefined : await loadStatistics(marketData, instrument, prefer, warnings);
  const deep = depth === 'deep' ? await loadDeep(ctx, instrument, prefer, warnings) : undefined;
  const name = stats?.profileName ?? listedName;
  const details: CoinDetails = {
    market: stats?.market ?? null,
    orderBook: deep?.orderBook ?? null,
    funding: deep?.funding ?? null,
    technicals: deep?.technicals ?? null,
  };
  const narrative = coinNarrative(name, instrument, quote, details, quoted.lineage);

  const result: CoinSearchResult = {
    tool: 'search-by-coin',
    instrument,
    symbol: instrument.symbol,
    base: instrument.base!,
    pair: instrument.quote!,
    name,
    exchange,
    source: quoted.lineage.used[0] ?? 'unknown',
    depth,
    quote,
    lineage: quoted.lineage,
    ...details,
    history: deep?.history ?? null,
    narrative,
    disclaimer: disclaimer(quoted.lineage),
    warnings,
    sessionId: sessionId ?? null,
  };
  await reportToolCall(ctx.toolCalls, sessionId, caller, {
    tool: 'search-by-coin',
    parameters: { symbol, exchange, pair: instrument.quote, depth },
    resultSummary: `${instrument.symbol} ${quote.price} (${depth}, ${result.source})`,
    symbols: [instrument.symbol],
    cacheHit: quoted.lineage.cache.hit && (stats?.cacheHit ?? true) && (deep?.cacheHit ?? true),
    startedAt: started,
    at: ctx.clock.now(),
  });

  return result;
}

/** Checks the arguments in the order their errors are reported; the symbol is read as a pair. */
function parseCoinArgs(args: SearchByCoinArgs) {
  if (typeof args.symbol !== 'string') throw new ValidationError('symbol', 'is required');
  const depth = parseDepth(args.depth);
  const exchange = parseVenue(args.exchange, 'binance');
  const sessionId = parseSessionId(args.sessionId);
  const pair = (args.pair ?? 'USDT').trim().toUpperCase();
  if (!/^[A-Z0-9]{2,6}$/.test(pair))
    throw new ValidationError('pair', `must be a quote asset like USDT, got ${JSON.stringify(args.pair)}`);
  const instrument = parseInstrument(args.symbol, { assetClass: 'crypto', quote: pair });
  if (args.pair && instrument.quote !== pair) {
    throw new ValidationError(
      'pair',
      `${args.symbol} names the quote asset ${instrument.quote}, but pair ${pair} was given`,
    );
  }
  return { symbol: args.symbol, depth, exchange, sessionId, instrument };
}

/**
 * The provider to prefer: the exchange asked for when a configured provider represents it.
 * Otherwise none is preferred (the answer is arbitrated) and the warning says so.
 */
function preferredProvider(
  marketData: MarketDataService,
  exchange: string,
  instrument: Instrument,
  warnings: string[],
): string | undefined {
  if (marketData.offers(exchange, 'quote', instrument)) return exchange;
  warnings.push(
    `exchange ${exchange}: no configured provider represents it (providers: ${marketData.providers
      .map((p) => p.id)
      .join(', ')}); the price is the arbitrated one across the configured providers`,
  );
  return undefined;
}

/** The parts of the answer the narrative speaks of, besides the quote. */
type CoinDetails = Pick<CoinSearchResult, 'market' | 'orderBook' | 'funding' | 'technicals'>;

/** Depth `standard`: 24 h statistics, and the coin's name from its profile. */
async function loadStatistics(
  marketData: MarketDataService,
  instrument: Instrument,
  prefer: string | undefined,
  warnings: string[],
): Promise<{ market: CoinMarket | null; profileName: string | undefined; cacheHit: boolean }> {
  const [stats, profile] = await Promise.all([
    attempt(
      warnings,
      '24h statistics',
      () => marketData.venues.cryptoStats(instrument, prefer),
      marketData.supports('cryptoStats', instrument),
    ),
    marketData.supports('profile', instrument)
      ? attempt(warnings, 'profile', () => marketData.profile(instrument))
      : undefined,
  ]);
  const market: CoinMarket | null = stats
    ? {
        high24h: stats.value.high,
        low24h: stats.value.low,
        volume24h: stats.value.volume,
        quoteVolume24h: stats.value.quoteVolume,
        marketCap: stats.value.marketCap ?? profile?.value.marketCap ?? null,
        lineage: stats.lineage,
      }
    : null;
  // Only the statistics count for the cache hit: the profile is an extra, as its name.
  return { market, profileName: profile?.value.name, cacheHit: allCached(stats) };
}

/** Depth `deep`: the order book, the funding rate, and technicals from the daily history. */
async function loadDeep(
  ctx: ToolContext,
  instrument: Instrument,
  prefer: string | undefined,
  warnings: string[],
): Promise<Omit<CoinDetails, 'market'> & { history: Bar[] | null; cacheHit: boolean }> {
  const { marketData } = ctx;
  const now = ctx.clock.now();
  const [book, rate, bars] = await Promise.all([
    attempt(
      warnings,
      'order book',
      () => marketData.venues.orderBook(instrument, BOOK_LEVELS, prefer),
      marketData.supports('orderBook', instrument),
    ),
    attempt(
      warnings,
      'funding rate',
      () => marketData.venues.funding(instrument, prefer),
      marketData.supports('funding', instrument),
    ),
    attempt(
      warnings,
      'daily history',
      () => marketData.bars(instrument, '1d', new Date(now.getTime() - 420 * DAY), now),
      marketData.supports('bars', instrument),
    ),
  ]);
  return {
    orderBook: book ? summarizeBook(book.value, book.lineage) : null,
    funding: rate ? { ...rate.value, lineage: rate.lineage } : null,
    technicals: bars ? technicalSummary(bars.value, 'crypto') : null,
    history: bars ? bars.value.slice(-30) : null,
    cacheHit: allCached(book, rate, bars),
  };
}

function coinNarrative(
  name: string | null,
  instrument: Instrument,
  quote: Quote,
  { market, orderBook, funding, technicals }: CoinDetails,
  lineage: Lineage,
): string {
  const sentences = [quoteSentence(subjectLabel(name, instrument.symbol), quote, '24 hours earlier')];
  if (market) {
    sentences.push(
      `24 h range ${formatPrice(market.low24h)}-${formatPrice(market.high24h)}, ${market.volume24h !== null ? `volume ${formatLarge(market.volume24h)} ${instrument.base}` : ''}` +
        `${market.marketCap !== null ? `, market cap ${formatLarge(market.marketCap)} USD` : ''}.`,
    );
  }
  if (orderBook)
    sentences.push(
      `Spread ${orderBook.spreadBps.toFixed(1)} bps; ${formatLarge(orderBook.bidDepth1Pct)} bid / ${formatLarge(orderBook.askDepth1Pct)} ask within 1%.`,
    );
  if (funding)
    sentences.push(`Perpetual funding ${(funding.rate * 100).toFixed(4)}% per ${funding.intervalHours} h.`);
  if (technicals) sentences.push(technicalSentence(technicals));
  sentences.push(sourceSentence(lineage));
  return narrativeOf(sentences);
}

export function summarizeBook(book: OrderBook, lineage: Lineage): BookSummary | null {
  const bid = book.bids[0];
  const ask = book.asks[0];
  if (!bid || !ask) return null;
  const mid = (bid.price + ask.price) / 2;
  const within = (levels: OrderBook['bids'], inside: (price: number) => boolean) =>
    levels.filter((l) => inside(l.price)).reduce((sum, l) => sum + l.price * l.size, 0);
  return {
    bestBid: bid.price,
    bestAsk: ask.price,
    spread: roundFloat(ask.price - bid.price),
    spreadBps: roundFloat(((ask.price - bid.price) / mid) * 10_000),
    bidDepth1Pct: roundFloat(within(book.bids, (p) => p >= mid * 0.99)),
    askDepth1Pct: roundFloat(within(book.asks, (p) => p <= mid * 1.01)),
    levels: Math.min(book.bids.length, book.asks.length),
    asOf: book.asOf,
    lineage,
  };
}

import type { Principal } from '../../platform/access/principal.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { Lineage, Sourced } from '../arbitration/lineage.ts';
import { parseInstrument } from '../instruments.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { AssetClass, Bar, Instrument, Profile, Quote } from '../types.ts';
import { betaAgainst, rangeAndVolume, type TechnicalSummary, technicalSummary } from './analytics.ts';
import {
  disclaimer,
  formatLarge,
  narrativeOf,
  quoteSentence,
  sourceSentence,
  subjectLabel,
  technicalSentence,
} from './narrative.ts';
import { reportToolCall } from './report-tool-call.ts';
import { allCached, attempt, type ToolContext, universeName } from './search-parts.ts';
import { type Depth, parseDepth, parseLanguage, parseMarket, parseSessionId } from './tool-args.ts';

export interface SearchBySymbolArgs {
  readonly symbol?: string | null;
  readonly market?: string | null;
  readonly depth?: string | null;
  readonly language?: string | null;
  readonly sessionId?: string | null;
}

/** Fundamentals Vigil can compute from daily bars when the profile provider has none. */
export type ComputedFundamental = 'averageVolume' | 'week52High' | 'week52Low' | 'beta';

export interface Fundamentals {
  readonly marketCap: number | null;
  readonly peRatio: number | null;
  readonly beta: number | null;
  readonly averageVolume: number | null;
  readonly week52High: number | null;
  readonly week52Low: number | null;
  readonly sector: string | null;
  readonly industry: string | null;
  readonly sharesOutstanding: number | null;
  /** Fields Vigil computed from daily bars because the profile provider had none. */
  readonly computed: readonly ComputedFundamental[];
  /** Lineage of the profile (null when only computed fields are present). */
  readonly lineage: Lineage | null;
}

export interface SymbolSearchResult {
  readonly tool: 'search-by-symbol';
  /** The instrument the symbol was read as. */
  readonly instrument: Instrument;
  readonly symbol: string;
  readonly assetClass: AssetClass;
  readonly name: string | null;
  readonly exchange: string | null;
  readonly market: string | null;
  readonly currency: string;
  readonly depth: Depth;
  readonly language: string;
  readonly quote: Quote;
  /** Lineage of the quote. */
  readonly lineage: Lineage;
  readonly fundamentals: Fundamentals | null;
  readonly technicals: TechnicalSummary | null;
  /** The last 30 daily bars (depth `deep`). */
  readonly history: readonly Bar[] | null;
  readonly narrative: string;
  readonly disclaimer: string;
  /** Parts that could not be filled (a provider failed); the rest of the answer stands. */
  readonly warnings: readonly string[];
  readonly sessionId: string | null;
}

const DAY = 86_400_000;
const HISTORY_BARS = 30;

/** Benchmark for beta, per market (broad index ETF the providers quote). */
const BENCHMARK: Record<string, string> = { US: 'SPY' };

export async function searchBySymbol(
  ctx: ToolContext,
  args: SearchBySymbolArgs,
  caller?: Principal,
): Promise<SymbolSearchResult> {
  const started = performance.now();
  const { symbol, market, depth, language, sessionId, instrument } = parseSymbolArgs(args);
  const { marketData } = ctx;
  const warnings: string[] = [];

  const quoted = await marketData.quote(instrument);
  const quote = quoted.value;
  const detail = depth === 'quick' ? undefined : await loadDetail(ctx, instrument, depth, warnings);
  const name = detail?.profile?.name ?? quote.name ?? universeName(marketData, instrument);
  const fundamentals = detail?.fundamentals ?? null;
  const technicals = detail?.technicals ?? null;
  const narrative = symbolNarrative(name, instrument, quote, fundamentals, technicals, quoted.lineage);

  const result: SymbolSearchResult = {
    tool: 'search-by-symbol',
    instrument,
    symbol: instrument.symbol,
    assetClass: instrument.assetClass,
    name,
    exchange: detail?.profile?.exchange ?? quote.exchange ?? null,
    market: instrument.market ?? null,
    currency: quote.currency,
    depth,
    language,
    quote,
    lineage: quoted.lineage,
    fundamentals,
    technicals,
    history: detail?.history ?? null,
    narrative,
    disclaimer: disclaimer(quoted.lineage),
    warnings,
    sessionId: sessionId ?? null,
  };
  await reportToolCall(ctx.toolCalls, sessionId, caller, {
    tool: 'search-by-symbol',
    parameters: { symbol, market, depth, language },
    resultSummary: `${instrument.symbol} ${quote.price} ${quote.currency} (${depth})`,
    symbols: [instrument.symbol],
    cacheHit: quoted.lineage.cache.hit && (detail?.cacheHit ?? true),
    startedAt: started,
    at: ctx.clock.now(),
  });

  return result;
}

/** Checks the arguments in the order their errors are reported. */
function parseSymbolArgs(args: SearchBySymbolArgs) {
  if (typeof args.symbol !== 'string') throw new ValidationError('symbol', 'is required');
  const market = parseMarket(args.market);
  const depth = parseDepth(args.depth);
  const language = parseLanguage(args.language);
  const sessionId = parseSessionId(args.sessionId);
  const instrument = parseInstrument(args.symbol, { market });
  return { symbol: args.symbol, market, depth, language, sessionId, instrument };
}

/** What depths `standard` and `deep` add to the quote. */
interface SymbolDetail {
  readonly profile: Profile | undefined;
  readonly fundamentals: Fundamentals;
  /** Depth `deep`, when the daily history could be read. */
  readonly technicals: TechnicalSummary | null;
  readonly history: Bar[] | null;
  readonly cacheHit: boolean;
}

/** The profile and the daily history, read together; the history fills what the profile lacks. */
async function loadDetail(
  ctx: ToolContext,
  instrument: Instrument,
  depth: Depth,
  warnings: string[],
): Promise<SymbolDetail> {
  const { marketData } = ctx;
  const now = ctx.clock.now();
  const lookbackDays = depth === 'deep' ? 420 : 380;
  const [profile, bars] = await Promise.all([
    attempt(
      warnings,
      'profile',
      () => marketData.profile(instrument),
      marketData.supports('profile', instrument),
    ),
    attempt(
      warnings,
      'daily history',
      () => marketData.bars(instrument, '1d', new Date(now.getTime() - lookbackDays * DAY), now),
      marketData.supports('bars', instrument),
    ),
  ]);
  // The benchmark's history is only read when the profile has no beta of its own.
  const computedBeta =
    profile?.value.beta == null && bars
      ? await betaFromBenchmark(marketData, instrument, bars.value, now, warnings)
      : null;
  const deepBars = depth === 'deep' ? bars?.value : undefined;
  return {
    profile: profile?.value,
    fundamentals: fundamentalsOf(profile, bars?.value, instrument.assetClass, computedBeta),
    technicals: deepBars ? technicalSummary(deepBars, instrument.assetClass) : null,
    history: deepBars?.slice(-HISTORY_BARS) ?? null,
    cacheHit: allCached(profile, bars),
  };
}

/**
 * Beta against the benchmark of the instrument's market, from a year of daily bars; null for
 * what is not an equity, a market without a benchmark, the benchmark itself, or too short a history.
 */
async function betaFromBenchmark(
  marketData: MarketDataService,
  instrument: Instrument,
  bars: readonly Bar[],
  now: Date,
  warnings: string[],
): Promise<number | null> {
  const benchmark = instrument.market ? BENCHMARK[instrument.market] : undefined;
  if (!benchmark || instrument.symbol === benchmark || instrument.assetClass !== 'equity') return null;
  const bench = await attempt(warnings, `benchmark ${benchmark} history (for beta)`, () =>
    marketData.bars(
      { symbol: benchmark, assetClass: 'equity', market: instrument.market },
      '1d',
      bars[0]!.time,
      now,
    ),
  );
  return bench ? betaAgainst(bars.slice(-253), bench.value) : null;
}

/** The profile's fundamentals; those it lacks come from the daily bars and are listed as computed. */
function fundamentalsOf(
  profile: Sourced<Profile> | undefined,
  bars: readonly Bar[] | undefined,
  assetClass: AssetClass,
  computedBeta: number | null,
): Fundamentals {
  const p = profile?.value;
  const computed: ComputedFundamental[] = computedBeta !== null ? ['beta'] : [];
  const fromBars = bars ? rangeAndVolume(bars, assetClass) : undefined;
  const pick = <K extends 'week52High' | 'week52Low' | 'averageVolume'>(key: K): number | null => {
    if (p?.[key] != null) return p[key];
    const v = fromBars?.[key] ?? null;
    if (v !== null) computed.push(key);
    return v;
  };
  return {
    marketCap: p?.marketCap ?? null,
    peRatio: p?.peRatio ?? null,
    beta: p?.beta ?? computedBeta,
    averageVolume: pick('averageVolume'),
    week52High: pick('week52High'),
    week52Low: pick('week52Low'),
    sector: p?.sector ?? null,
    industry: p?.industry ?? null,
    sharesOutstanding: p?.sharesOutstanding ?? null,
    computed,
    lineage: profile?.lineage ?? null,
  };
}

function symbolNarrative(
  name: string | null,
  instrument: Instrument,
  quote: Quote,
  fundamentals: Fundamentals | null,
  technicals: TechnicalSummary | null,
  lineage: Lineage,
): string {
  const reference = instrument.assetClass === 'crypto' ? '24 hours earlier' : 'the previous close';
  const sentences = [quoteSentence(subjectLabel(name, instrument.symbol), quote, reference)];
  if (fundamentals) sentences.push(fundamentalsSentence(fundamentals, quote.currency));
  if (technicals) sentences.push(technicalSentence(technicals));
  sentences.push(sourceSentence(lineage));
  return narrativeOf(sentences);
}

/** Market cap, P/E and the 52-week range, those known; empty when none is. */
function fundamentalsSentence(fundamentals: Fundamentals, currency: string): string {
  const bits: string[] = [];
  if (fundamentals.marketCap !== null)
    bits.push(`market cap ${formatLarge(fundamentals.marketCap)} ${currency}`);
  if (fundamentals.peRatio !== null) bits.push(`P/E ${fundamentals.peRatio.toFixed(1)}`);
  if (fundamentals.week52Low !== null && fundamentals.week52High !== null) {
    bits.push(`52-week range ${fundamentals.week52Low.toFixed(2)}-${fundamentals.week52High.toFixed(2)}`);
  }
  return bits.length ? `${bits.join(', ').replace(/^./, (c) => c.toUpperCase())}.` : '';
}

import type { Principal } from '../../platform/access/principal.ts';
import type { Clock } from '../../platform/clock.ts';
import { ValidationError } from '../../platform/errors.ts';
import type { ToolCallRecorder } from '../../sessions/tool-calls.port.ts';
import type { Lineage } from '../arbitration/lineage.ts';
import { parseInstrument } from '../instruments.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { AssetClass, Bar, Instrument, Quote } from '../types.ts';
import { betaAgainst, rangeAndVolume, type TechnicalSummary, technicalSummary } from './analytics.ts';
import { disclaimer, formatLarge, quoteSentence, sourceSentence, technicalSentence } from './narrative.ts';
import { reportToolCall } from './report-tool-call.ts';
import { type Depth, parseDepth, parseLanguage, parseMarket, parseSessionId } from './tool-args.ts';

export interface ToolContext {
  readonly marketData: MarketDataService;
  readonly clock: Clock;
  readonly toolCalls?: ToolCallRecorder;
}

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
  if (typeof args.symbol !== 'string') throw new ValidationError('symbol', 'is required');
  const market = parseMarket(args.market);
  const depth = parseDepth(args.depth);
  const language = parseLanguage(args.language);
  const sessionId = parseSessionId(args.sessionId);
  const instrument = parseInstrument(args.symbol, { market });
  const { marketData } = ctx;
  const warnings: string[] = [];

  const quoted = await marketData.quote(instrument);
  const quote = quoted.value;
  let cacheHit = quoted.lineage.cache.hit;

  let fundamentals: Fundamentals | null = null;
  let technicals: TechnicalSummary | null = null;
  let history: Bar[] | null = null;
  let name = quote.name ?? null;
  let exchange = quote.exchange ?? null;

  if (depth !== 'quick') {
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
    cacheHit &&= (profile?.lineage.cache.hit ?? true) && (bars?.lineage.cache.hit ?? true);
    const p = profile?.value;
    name = p?.name ?? name;
    exchange = p?.exchange ?? exchange;
    const computed: ComputedFundamental[] = [];
    const fromBars = bars ? rangeAndVolume(bars.value, instrument.assetClass) : undefined;
    const pick = <K extends 'week52High' | 'week52Low' | 'averageVolume'>(key: K): number | null => {
      if (p?.[key] != null) return p[key];
      const v = fromBars?.[key] ?? null;
      if (v !== null) computed.push(key);
      return v;
    };
    let beta = p?.beta ?? null;
    const benchmark = instrument.market ? BENCHMARK[instrument.market] : undefined;
    if (
      beta === null &&
      bars &&
      benchmark &&
      instrument.symbol !== benchmark &&
      instrument.assetClass === 'equity'
    ) {
      const bench = await attempt(warnings, `benchmark ${benchmark} history (for beta)`, () =>
        marketData.bars(
          { symbol: benchmark, assetClass: 'equity', market: instrument.market },
          '1d',
          bars.value[0]!.time,
          now,
        ),
      );
      beta = bench ? betaAgainst(bars.value.slice(-253), bench.value) : null;
      if (beta !== null) computed.push('beta');
    }
    fundamentals = {
      marketCap: p?.marketCap ?? null,
      peRatio: p?.peRatio ?? null,
      beta,
      averageVolume: pick('averageVolume'),
      week52High: pick('week52High'),
      week52Low: pick('week52Low'),
      sector: p?.sector ?? null,
      industry: p?.industry ?? null,
      sharesOutstanding: p?.sharesOutstanding ?? null,
      computed,
      lineage: profile?.lineage ?? null,
    };
    if (depth === 'deep' && bars) {
      technicals = technicalSummary(bars.value, instrument.assetClass);
      history = bars.value.slice(-HISTORY_BARS);
    }
  }
  name ??= universeName(marketData, instrument);

  const label = name ? `${name} (${instrument.symbol})` : instrument.symbol;
  const sentences = [
    quoteSentence(
      label,
      quote,
      instrument.assetClass === 'crypto' ? '24 hours earlier' : 'the previous close',
    ),
  ];
  if (fundamentals) {
    const bits: string[] = [];
    if (fundamentals.marketCap !== null)
      bits.push(`market cap ${formatLarge(fundamentals.marketCap)} ${quote.currency}`);
    if (fundamentals.peRatio !== null) bits.push(`P/E ${fundamentals.peRatio.toFixed(1)}`);
    if (fundamentals.week52Low !== null && fundamentals.week52High !== null) {
      bits.push(`52-week range ${fundamentals.week52Low.toFixed(2)}-${fundamentals.week52High.toFixed(2)}`);
    }
    if (bits.length) sentences.push(`${bits.join(', ').replace(/^./, (c) => c.toUpperCase())}.`);
  }
  if (technicals) sentences.push(technicalSentence(technicals));
  sentences.push(sourceSentence(quoted.lineage));

  const result: SymbolSearchResult = {
    tool: 'search-by-symbol',
    instrument,
    symbol: instrument.symbol,
    assetClass: instrument.assetClass,
    name,
    exchange,
    market: instrument.market ?? null,
    currency: quote.currency,
    depth,
    language,
    quote,
    lineage: quoted.lineage,
    fundamentals,
    technicals,
    history,
    narrative: sentences.filter(Boolean).join(' '),
    disclaimer: disclaimer(quoted.lineage),
    warnings,
    sessionId: sessionId ?? null,
  };
  await reportToolCall(ctx.toolCalls, sessionId, caller, {
    tool: 'search-by-symbol',
    parameters: { symbol: args.symbol, market, depth, language },
    resultSummary: `${instrument.symbol} ${quote.price} ${quote.currency} (${depth})`,
    symbols: [instrument.symbol],
    cacheHit,
    startedAt: started,
    at: ctx.clock.now(),
  });

  return result;
}

/** Runs an optional part of an answer; a failure becomes a warning instead of failing the call. */
export async function attempt<T>(
  warnings: string[],
  what: string,
  run: () => Promise<T>,
  supported = true,
): Promise<T | undefined> {
  if (!supported) {
    warnings.push(`${what}: no configured provider offers it`);
    return undefined;
  }
  try {
    return await run();
  } catch (error) {
    warnings.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

export function universeName(marketData: MarketDataService, instrument: Instrument): string | null {
  const entry = marketData
    .universe()
    .find(
      (e) => e.instrument.symbol === instrument.symbol && e.instrument.assetClass === instrument.assetClass,
    );
  return entry?.name ?? null;
}

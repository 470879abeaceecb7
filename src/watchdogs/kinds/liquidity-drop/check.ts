/**
 * liquidity_drop: each watched book's depth (within the detector's band around mid) against its
 * trailing average, from samples this check records every cycle (one per spacing step, see
 * depth-samples.sql.ts).
 *
 * A cold start has no history. Where a provider can recompute a past book (the simulated market:
 * its book is a function of seed and time), the missing baseline is filled with spaced samples
 * over the window. Live venues serve only the current book, so with real providers the watchdog
 * judges a book once `minSamples` cycles have been recorded for it (minSamples x spacing after the
 * first look).
 */
import type { MarketDataService } from '../../../market-data/market-data.service.ts';
import { outcomeOf, split } from '../../checks/outcome.ts';
import { charged, FETCH_CONCURRENCY, mapLimited, type Subject, subjectsFor } from '../../checks/shared.ts';
import {
  deleteDepthSamplesBefore,
  depthKey,
  type RecordedDepth,
  readDepthSamples,
  recordDepthSamples,
} from '../../depth-samples.repository.ts';
import type { Check, CheckDeps, CheckGap, CheckSetup } from '../../watchdog.ts';
import {
  type DepthSample,
  depthWithinBand,
  type LiquidityDropFinding,
  type LiquidityDropInput,
  type LiquidityDropSettings,
} from './detector.ts';

/** Levels per side read: the same every time, so samples compare like with like. */
export const BOOK_LEVELS = 100;
/** Samples kept per book over the window at most (7 days at 5 minutes). */
export const MAX_SAMPLES_PER_BOOK = 2_016;
/** Past books read to fill a missing baseline, spread evenly over the window. */
export const BACKFILL_SAMPLES = 24;

/** How samples are spaced and what they measure, from the thresholds and the check's interval. */
interface Sampling {
  readonly band: number;
  readonly window: number;
  /** The spacing step a time falls in (one sample per book and step). */
  readonly step: (ms: number) => Date;
}

interface CurrentDepth {
  readonly subject: Subject;
  readonly venue: string;
  readonly depth: number;
}

export function liquidityDropCheck(
  { marketData, database, describe }: CheckDeps,
  setup: CheckSetup<LiquidityDropSettings, LiquidityDropInput, LiquidityDropFinding>,
): Check<LiquidityDropFinding> {
  const { band, minSamples, averageWindowMs: window } = setup.thresholds;
  const spacing = Math.max(setup.intervalMs, Math.ceil(window / MAX_SAMPLES_PER_BOOK));
  const sampling: Sampling = { band, window, step: (ms) => new Date(Math.floor(ms / spacing) * spacing) };

  return async ({ now, signal }) => {
    const watched = subjectsFor(setup.symbols, marketData, 'orderBook');
    const { current, gaps } = await readDepths(marketData, watched.subjects, band, signal);
    const nowMs = now.getTime();
    const since = new Date(nowMs - window);
    const recorded = await readDepthSamples(
      database.db,
      current.map((c) => c.subject.symbol),
      since,
    );
    const sampled: RecordedDepth[] = current.map((c) => ({
      symbol: c.subject.symbol,
      venue: c.venue,
      sampledAt: sampling.step(nowMs),
      depth: c.depth,
    }));
    const { books, filled } = await withHistory(
      marketData,
      sampling,
      current,
      recorded,
      minSamples,
      nowMs,
      signal,
    );
    await recordDepthSamples(database.db, [...sampled, ...filled]);
    await deleteDepthSamplesBefore(database.db, since);
    const findings = setup.detect({ now, books });
    return outcomeOf(watched, gaps, findings, describe);
  };
}

/** Each subject's current book depth within the band, or a gap when it cannot be read. */
async function readDepths(
  marketData: MarketDataService,
  subjects: readonly Subject[],
  band: number,
  signal: AbortSignal,
): Promise<{ current: CurrentDepth[]; gaps: CheckGap[] }> {
  const results = await mapLimited(subjects, FETCH_CONCURRENCY, signal, (s) =>
    charged(marketData, async () => {
      const book = (await marketData.venues.orderBook(s.instrument, BOOK_LEVELS)).value;
      const depth = depthWithinBand(book, band);
      if (depth === null) throw new Error(`the ${book.venue} order book of ${book.symbol} has an empty side`);
      return { venue: book.venue, depth };
    }),
  );
  const { fetched, gaps } = split(subjects, results);
  return { current: fetched.map(({ subject, value }) => ({ subject, ...value })), gaps };
}

/**
 * Each book with its recorded history; a history shorter than `minSamples` is filled from past
 * books where the provider has them. `filled`: the samples read that way, to be recorded.
 */
async function withHistory(
  marketData: MarketDataService,
  sampling: Sampling,
  current: readonly CurrentDepth[],
  recorded: ReadonlyMap<string, DepthSample[]>,
  minSamples: number,
  nowMs: number,
  signal: AbortSignal,
) {
  const books = [];
  const filled: RecordedDepth[] = [];
  for (const c of current) {
    let history = recorded.get(depthKey(c.subject.symbol, c.venue)) ?? [];
    if (history.length < minSamples && marketData.venues.offersPastOrderBooks(c.subject.instrument)) {
      const past = (await backfill(marketData, sampling, c.subject, history, nowMs, signal)).filter(
        (s) => s.venue === c.venue,
      );
      filled.push(...past);
      history = [...history, ...past.map((s) => ({ time: s.sampledAt, depth: s.depth }))];
    }
    books.push({ symbol: c.subject.symbol, venue: c.venue, depth: c.depth, history });
  }
  return { books, filled };
}

/** Past samples at spaced steps of the window that `history` lacks, from a provider that has them. */
async function backfill(
  marketData: MarketDataService,
  { band, window, step }: Sampling,
  subject: Subject,
  history: readonly DepthSample[],
  now: number,
  signal: AbortSignal,
) {
  const have = new Set(history.map((s) => s.time.getTime()));
  const times: Date[] = [];
  for (let i = 1; i <= BACKFILL_SAMPLES; i++) {
    const at = step(now - (i * window) / (BACKFILL_SAMPLES + 1));
    if (!have.has(at.getTime())) times.push(at);
  }
  const books = await mapLimited(times, FETCH_CONCURRENCY, signal, (at) =>
    charged(marketData, () => marketData.venues.pastOrderBook(subject.instrument, BOOK_LEVELS, at)),
  );
  const out: RecordedDepth[] = [];
  books.forEach((b, i) => {
    if (!b.ok) return;
    const depth = depthWithinBand(b.value.value, band);
    if (depth !== null)
      out.push({ symbol: subject.symbol, venue: b.value.value.venue, sampledAt: times[i]!, depth });
  });
  return out;
}

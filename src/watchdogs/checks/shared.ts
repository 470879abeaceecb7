/**
 * What every check shares: reading the watched symbols once, fetching per subject with bounded
 * concurrency inside the watchdogs' upstream budget, and turning a subject's failure into a gap.
 */
import { deferredForBudget } from '../../market-data/budget/call-priority.ts';
import { resolveInstrument } from '../../market-data/instruments.ts';
import type { MarketDataService } from '../../market-data/market-data.service.ts';
import type { Capability } from '../../market-data/providers/provider.ts';
import type { Instrument } from '../../market-data/types.ts';
import type { CheckGap } from '../watchdog.ts';

/**
 * The client the watchdogs' upstream calls are charged to, as FK-DSL tasks charge their submitter:
 * checks share live providers' rate limits with everyone, so they get a bucket of their own.
 */
export const WATCHDOG_CLIENT_ID = 'watchdogs';
/** Subjects fetched at once: 1,000 watched symbols must not open 1,000 requests together. */
export const FETCH_CONCURRENCY = 8;
const MAX_ERROR_CHARS = 300;

export interface Subject {
  /** Canonical symbol (`BTC/USDT`, `BRK.B`): what findings and gaps name. */
  readonly symbol: string;
  readonly instrument: Instrument;
}

export interface Subjects {
  readonly subjects: readonly Subject[];
  /** Watched symbols that are not symbols at all (a configuration typo). */
  readonly gaps: readonly CheckGap[];
}

/**
 * The watched symbols a capability can serve, read the way every surface reads them. Symbols no
 * configured provider can serve for it (funding of AAPL) are not subjects of the check at all.
 */
export function subjectsFor(
  symbols: readonly string[],
  marketData: Pick<MarketDataService, 'supports'>,
  capability: Capability,
): Subjects {
  const subjects: Subject[] = [];
  const gaps: CheckGap[] = [];
  const seen = new Set<string>();
  for (const written of symbols) {
    let instrument: Instrument;
    try {
      instrument = resolveInstrument(written);
    } catch (error) {
      gaps.push({ subject: written, error: messageOf(error) });
      continue;
    }
    if (seen.has(instrument.symbol) || !marketData.supports(capability, instrument)) continue;
    seen.add(instrument.symbol);
    subjects.push({ symbol: instrument.symbol, instrument });
  }
  return { subjects, gaps };
}

export type Settled<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: string; readonly deferred?: true };

/**
 * Runs `run` for every item, at most `limit` at a time, in input order of results. Stops starting
 * new work once `signal` is aborted and then throws its reason: a check past its deadline is over.
 */
export async function mapLimited<I, T>(
  items: readonly I[],
  limit: number,
  signal: AbortSignal,
  run: (item: I) => Promise<T>,
): Promise<Settled<T>[]> {
  const out: Settled<T>[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) {
      const i = next++;
      try {
        out[i] = { ok: true, value: await run(items[i]!) };
      } catch (error) {
        const { error: message, deferred } = gapOf('', error);
        out[i] = { ok: false, error: message, ...(deferred ? { deferred } : {}) };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  throwIfAborted(signal);
  return out;
}

export function throwIfAborted(signal: AbortSignal): void {
  if (!signal.aborted) return;
  throw signal.reason instanceof Error ? signal.reason : new Error('the check was aborted');
}

/**
 * Market data asked for on the watchdogs' behalf, charged to their client's upstream budget, as
 * background work: a provider serves clients first and a check only from its spare budget, and
 * skips the call (a `deferred` gap) when none comes in time.
 */
export function charged<T>(marketData: Pick<MarketDataService, 'withinOperation'>, run: () => Promise<T>) {
  // One operation per subject: the per-operation symbol cap is for one client request, not for a
  // check over every watched symbol.
  return marketData.withinOperation(WATCHDOG_CLIENT_ID, run, 'background');
}

/** A subject that could not be had, marked when it was only skipped for want of provider budget. */
export function gapOf(subject: string, error: unknown): CheckGap {
  return { subject, error: messageOf(error), ...(deferredForBudget(error) ? { deferred: true } : {}) };
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}

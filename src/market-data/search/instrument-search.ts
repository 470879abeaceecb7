import { ValidationError } from '../../platform/errors.ts';
import { instrumentKey, parseInstrument } from '../instruments.ts';
import type { InstrumentMatch, UniverseEntry } from '../providers/provider.ts';
import type { AssetClass, Instrument } from '../types.ts';

/** Longest search text accepted (a company name, not a document). */
export const MAX_QUERY_LENGTH = 64;
/** Most matches one search returns. */
export const MAX_SEARCH_RESULTS = 50;
export const DEFAULT_SEARCH_RESULTS = 10;

/** The query as providers and the cache see it: trimmed, inner spaces collapsed, length-checked. */
export function normaliseQuery(query: string): string {
  const q = query.trim().replace(/\s+/g, ' ');
  if (q.length === 0) throw new ValidationError('query', 'must not be empty');
  if (q.length > MAX_QUERY_LENGTH) {
    throw new ValidationError('query', `must be at most ${MAX_QUERY_LENGTH} characters, got ${q.length}`);
  }
  return q;
}

export function checkSearchLimit(first: number): number {
  if (!Number.isInteger(first) || first < 1 || first > MAX_SEARCH_RESULTS) {
    throw new ValidationError('first', `must be between 1 and ${MAX_SEARCH_RESULTS}, got ${first}`);
  }
  return first;
}

/**
 * How well an instrument answers a query, 0 for not at all: the symbol itself (or a coin's base),
 * then symbol prefixes (shorter symbols first), then names starting with the query, then a word of
 * the name starting with it, then names containing it. `apple` finds Apple Inc. (AAPL), `aap` finds
 * AAPL, `btc` finds the BTC pairs, `bitcoin` finds them by name.
 */
export function matchScore(query: string, instrument: Instrument, name: string): number {
  const q = query.toUpperCase();
  const symbol = instrument.symbol.toUpperCase();
  const written = [symbol, instrument.base ?? '', symbol.replace('/', '')].filter(Boolean);
  if (written.includes(q)) return 100;
  const prefixed = written.filter((w) => w.startsWith(q));
  if (prefixed.length > 0) return 90 - Math.min(...prefixed.map((w) => w.length - q.length));
  const n = name.toUpperCase();
  if (n.startsWith(q)) return 60;
  if (n.split(/[^A-Z0-9]+/).some((word) => word.startsWith(q))) return 50;
  return n.includes(q) ? 30 : 0;
}

/** A provider's own instrument list searched in memory, best first (stable within a score). */
export function searchUniverse(
  entries: readonly UniverseEntry[],
  query: string,
  limit: number,
): InstrumentMatch[] {
  return entries
    .map((entry, order) => ({ entry, order, score: matchScore(query, entry.instrument, entry.name) }))
    .filter((m) => m.score > 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, limit)
    .map(({ entry }) => ({ instrument: entry.instrument, name: entry.name, exchange: entry.exchange }));
}

/**
 * The matches of several providers as one list: in the providers' order (healthiest first), each
 * instrument once (the first provider's name wins), only those `quotable` accepts, at most `limit`.
 */
export function mergeMatches(
  answers: ReadonlyArray<readonly InstrumentMatch[]>,
  quotable: (instrument: Instrument) => boolean,
  limit: number,
): InstrumentMatch[] {
  const seen = new Set<string>();
  const merged: InstrumentMatch[] = [];
  for (const match of answers.flat()) {
    const key = instrumentKey(match.instrument);
    if (seen.has(key) || !quotable(match.instrument)) continue;
    seen.add(key);
    merged.push(match);
    if (merged.length === limit) break;
  }
  return merged;
}

/**
 * An instrument from a provider's Yahoo-style ticker (`AAPL`, `VOD.L`, `BRK-B`, `BTC-USD`,
 * `EURUSD=X`, `^GSPC`) and the asset class the provider says it is; undefined for what Vigil cannot
 * write (a listing on a market it does not know, an option, a future).
 */
export function instrumentFromTicker(ticker: string, assetClass: AssetClass): Instrument | undefined {
  try {
    const instrument =
      assetClass === 'crypto' ? parseInstrument(ticker, { assetClass }) : parseInstrument(ticker);
    // A share class is one letter (BRK.B); a longer suffix is an exchange Vigil does not know (AAPL.SN).
    if (/\.[A-Z]{2,}$/.test(instrument.symbol)) return undefined;
    if (assetClass === 'etf' && instrument.assetClass === 'equity') return { ...instrument, assetClass };
    return instrument.assetClass === assetClass ? instrument : undefined;
  } catch (error) {
    if (error instanceof ValidationError) return undefined;
    throw error;
  }
}

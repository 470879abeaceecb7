import { isAppError, ValidationError } from '../platform/errors.ts';
import type { Sourced } from './arbitration/lineage.ts';
import { type ResolveHint, resolveInstrument } from './instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from './limits.ts';
import type { MarketDataService } from './market-data.service.ts';
import type { InstrumentMatch } from './providers/provider.ts';
import { checkSearchLimit, DEFAULT_SEARCH_RESULTS } from './search/instrument-search.ts';
import type { Instrument, Quote } from './types.ts';

/** An instrument as a client sees it: what Vigil read, and what it is called where known. */
export interface InstrumentInfo {
  readonly instrument: Instrument;
  readonly name: string | null;
  readonly exchange: string | null;
}

/** A failure of one symbol of a batch, as `extensions.code` and the message would carry it. */
export interface SymbolFailure {
  readonly code: string;
  readonly message: string;
}

/** One symbol's quote as `quote` and each symbol of `quotes` answer it: what was asked, what was read, the quote and its lineage. */
export interface AnsweredQuote {
  /** The symbol as the caller wrote it. */
  readonly requested: string;
  readonly instrument: InstrumentInfo;
  readonly quote: Sourced<Quote>;
}

/** One symbol of a batch: a quote, or why there is none. */
export interface BatchQuote {
  /** The symbol as the caller wrote it. */
  readonly requested: string;
  readonly instrument: InstrumentInfo | null;
  readonly quote: Sourced<Quote> | null;
  readonly error: SymbolFailure | null;
}

/** What a configured provider's own list says an instrument is called (the simulated universe). */
export function knownName(marketData: MarketDataService, instrument: Instrument): string | null {
  return (
    marketData
      .universe()
      .find(
        (e) => e.instrument.symbol === instrument.symbol && e.instrument.assetClass === instrument.assetClass,
      )?.name ?? null
  );
}

/** The quote of one symbol, with the instrument it was read as (its name where known). */
export async function quoteOne(
  marketData: MarketDataService,
  requested: string,
  hint: ResolveHint = {},
): Promise<AnsweredQuote> {
  const instrument = resolveInstrument(requested, hint);
  const quote = await marketData.quote(instrument);
  const name = quote.value.name ?? knownName(marketData, instrument);
  return { requested, instrument: { instrument, name, exchange: quote.value.exchange ?? null }, quote };
}

/**
 * Quotes of several symbols in one round trip, in the order asked. Each symbol stands alone: one
 * that cannot be read or priced gets its error (code and message) and the others their quotes.
 * Bounded like a price subscription (MAX_SYMBOLS_PER_REQUEST); the operation's symbol cap and the
 * client's upstream budget apply per symbol.
 */
export async function quoteBatch(
  marketData: MarketDataService,
  symbols: readonly string[],
  hint: Omit<ResolveHint, 'field'> = {},
): Promise<BatchQuote[]> {
  if (symbols.length === 0) throw new ValidationError('symbols', 'must name at least one symbol');
  if (symbols.length > MAX_SYMBOLS_PER_REQUEST) {
    throw new ValidationError(
      'symbols',
      `at most ${MAX_SYMBOLS_PER_REQUEST} per request, got ${symbols.length}`,
    );
  }
  return Promise.all(
    symbols.map(async (requested): Promise<BatchQuote> => {
      let instrument: Instrument | undefined;
      try {
        instrument = resolveInstrument(requested, hint);
        return { ...(await quoteOne(marketData, requested, hint)), error: null };
      } catch (error) {
        if (!isAppError(error)) throw error;
        return {
          requested,
          instrument: instrument
            ? { instrument, name: knownName(marketData, instrument), exchange: null }
            : null,
          quote: null,
          error: { code: error.code, message: error.message },
        };
      }
    }),
  );
}

/** Instrument search by name or symbol prefix (`apple` finds AAPL), best first. */
export function findInstruments(
  marketData: MarketDataService,
  query: string,
  first?: number | null,
): Promise<Sourced<InstrumentMatch[]>> {
  return marketData.searchInstruments(query, checkSearchLimit(first ?? DEFAULT_SEARCH_RESULTS));
}

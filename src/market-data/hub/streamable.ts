import { ValidationError } from '../../platform/errors.ts';
import { instrumentKey, resolveInstrument } from '../instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from '../limits.ts';
import { knownName } from '../lookup.service.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { AssetClass, Instrument } from '../types.ts';

/** A symbol of a subscription as Vigil read it. */
export interface ResolvedSymbol {
  readonly instrument: Instrument;
  /** What the client wrote for it (`BTC`, `btcusdt`: several spellings may name one instrument). */
  readonly requested: readonly string[];
  /** Its name and exchange, where a provider says. */
  readonly name: string | null;
  readonly exchange: string | null;
}

/**
 * Reads the symbols of a price subscription the way every surface reads them (resolveInstrument:
 * `BTC`, `BTCUSDT`, `BTC-USD` and `btc/usdt` are crypto pairs) and proves each has a price (one
 * quote), so an unknown symbol is refused up front instead of producing a silent stream.
 * `assetClass` is the one the client named, if any.
 *
 * The proof is the last quote this instance kept, however old, and only a symbol without one is
 * quoted. The subscriber's prices come from the hub, so the check needs a name and a price that
 * existed, not the price now; and a quote read is charged to the client's upstream budget when it
 * misses the cache. A crowd of subscribers behind one address (a proxy, a NAT) is one client: each
 * that checked a followed symbol in the moment its cached quote had expired, before the feed's
 * next poll, cost an upstream call, and once the client's share was spent, subscribers of feeds
 * that run anyway were refused with RATE_LIMITED.
 */
export async function resolveStreamable(
  marketData: MarketDataService,
  symbols: readonly string[],
  market?: string,
  assetClass?: AssetClass,
): Promise<ResolvedSymbol[]> {
  if (symbols.length === 0) throw new ValidationError('symbols', 'must name at least one symbol');
  if (symbols.length > MAX_SYMBOLS_PER_REQUEST) {
    throw new ValidationError(
      'symbols',
      `at most ${MAX_SYMBOLS_PER_REQUEST} per subscription, got ${symbols.length}`,
    );
  }
  const hint = { ...(market ? { market } : {}), ...(assetClass ? { assetClass } : {}) };
  const byKey = new Map<string, { instrument: Instrument; requested: string[] }>();
  for (const written of symbols) {
    const instrument = resolveInstrument(written, hint);
    const key = instrumentKey(instrument);
    const entry = byKey.get(key);
    if (entry) entry.requested.push(written);
    else byKey.set(key, { instrument, requested: [written] });
  }
  // Every check ends before the answer (allSettled, not all): a check still waiting on the cache
  // when another is refused would otherwise outlive the client's operation and go upstream uncharged.
  const checked = await Promise.allSettled(
    [...byKey.values()].map(async ({ instrument, requested }) => {
      const quote = marketData.lastKnownQuote(instrument) ?? (await marketData.quote(instrument)).value;
      return {
        instrument,
        requested,
        name: quote.name ?? knownName(marketData, instrument),
        exchange: quote.exchange ?? null,
      };
    }),
  );
  const failed = checked.find((c) => c.status === 'rejected');
  if (failed) throw failed.reason;
  return checked.map((c) => (c as PromiseFulfilledResult<ResolvedSymbol>).value);
}

/** Does what a client wrote (`btc`, `BTC-USDT`, `BTC/USDT`, `aapl`) name this instrument? */
export function namesInstrument(instrument: Instrument, written: string): boolean {
  const w = written.trim().toUpperCase();
  if (w === instrument.symbol) return true;
  if (instrument.assetClass === 'crypto' || instrument.assetClass === 'fx') {
    const { base, quote } = instrument;
    return w === base || w === `${base}${quote}` || w === `${base}-${quote}` || w === `${base}_${quote}`;
  }
  return w.replace('-', '.') === instrument.symbol;
}

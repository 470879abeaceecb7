import { ValidationError } from '../../platform/errors.ts';
import { parseInstrument } from '../instruments.ts';
import { MAX_SYMBOLS_PER_REQUEST } from '../limits.ts';
import type { MarketDataService } from '../market-data.service.ts';
import type { AssetClass, Instrument } from '../types.ts';

/**
 * Parses the symbols of a price subscription and proves each has a price now (one cached quote),
 * so an unknown symbol is refused up front instead of producing a silent stream.
 */
export async function resolveStreamable(
  marketData: MarketDataService,
  symbols: readonly string[],
  market?: string,
  assetClass?: AssetClass,
): Promise<Instrument[]> {
  if (symbols.length === 0) throw new ValidationError('symbols', 'must name at least one symbol');
  if (symbols.length > MAX_SYMBOLS_PER_REQUEST) {
    throw new ValidationError(
      'symbols',
      `at most ${MAX_SYMBOLS_PER_REQUEST} per subscription, got ${symbols.length}`,
    );
  }
  // A listed-market hint must not turn BTC/USDT into an equity: only crypto is a parsing hint.
  const hint = { ...(market ? { market } : {}), ...(assetClass === 'crypto' ? { assetClass } : {}) };
  const instruments = symbols.map((s) => parseInstrument(s, hint));
  const unique = [
    ...new Map(instruments.map((i) => [`${i.assetClass}:${i.market ?? ''}:${i.symbol}`, i])).values(),
  ];
  await Promise.all(unique.map((i) => marketData.quote(i)));
  return unique;
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

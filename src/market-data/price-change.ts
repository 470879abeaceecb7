import { roundFloat, roundNullable } from '../quant/round.ts';
import type { Quote } from './types.ts';

/** A price's change against its reference price (previous close, or the price 24 h earlier). */
export interface PriceChange {
  readonly change: number | null;
  readonly changePercent: number | null;
}

/**
 * THE change and change percent of a price, rounded the one way every surface shows them (quotes,
 * price snapshots, streamed ticks, the data tools): the difference and the percent are each
 * computed from the unrounded difference and rounded to 12 significant digits (`roundFloat`), so
 * the same price against the same reference is the same number wherever it is read. Null when the
 * reference is unknown or zero (no percent of nothing).
 */
export function priceChange(price: number, reference: number | null): PriceChange {
  if (reference === null || reference === 0 || !Number.isFinite(reference) || !Number.isFinite(price)) {
    return { change: null, changePercent: null };
  }
  const difference = price - reference;
  return { change: roundFloat(difference), changePercent: roundFloat((difference / reference) * 100) };
}

/**
 * A provider's quote with its change worked out by `priceChange` from its own price and reference
 * (providers round their percent to 2 to 5 decimals, each its own way). Without a reference the
 * provider's figures stay, rounded alike.
 */
export function withPriceChange(quote: Quote): Quote {
  const own =
    quote.previousClose === null
      ? { change: roundNullable(quote.change), changePercent: roundNullable(quote.changePercent) }
      : priceChange(quote.price, quote.previousClose);
  if (own.change === quote.change && own.changePercent === quote.changePercent) return quote;
  return { ...quote, ...own };
}

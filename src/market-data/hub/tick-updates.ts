import type { Lineage } from '../arbitration/lineage.ts';
import { priceChange } from '../price-change.ts';
import type { Instrument, Quote, StreamTick } from '../types.ts';

/** What a feed publishes; the hub adds the instrument, the sequence number and the market state. */
export interface PriceUpdate {
  readonly price: number;
  readonly change: number | null;
  readonly changePercent: number | null;
  /** Session volume (listed) or rolling 24 h volume (crypto) as of the last quote. */
  readonly volume: number | null;
  readonly currency: string;
  /** Size of the trade behind this update, when a stream reported one. */
  readonly size: number | null;
  /** Time of the price itself. */
  readonly asOf: Date;
  readonly provider: string;
  /** Provider agreement behind the price (1 for a single streaming source). */
  readonly confidence: number;
  /** false when the price comes from the simulated market. */
  readonly live: boolean;
}

/** A polled quote (or a streamed symbol's reference quote) as an update. */
export function fromQuote(quote: Quote, lineage: Lineage): PriceUpdate {
  return {
    price: quote.price,
    change: quote.change,
    changePercent: quote.changePercent,
    volume: quote.volume,
    currency: quote.currency,
    size: null,
    asOf: quote.asOf,
    provider: lineage.used[0] ?? lineage.asked[0] ?? 'unknown',
    confidence: lineage.agreement,
    live: !lineage.simulated,
  };
}

/** A streamed trade as an update, its change measured against the reference quote's previous close. */
export function fromStream(
  reference: Quote | undefined,
  instrument: Instrument,
  tick: StreamTick,
  providerId: string,
  live: boolean,
): PriceUpdate {
  return {
    price: tick.price,
    // The function quotes (and so snapshots) are settled with: the same price reads the same.
    ...priceChange(tick.price, reference?.previousClose ?? null),
    volume: reference?.volume ?? null,
    currency: reference?.currency ?? instrument.quote ?? 'USD',
    size: tick.size,
    asOf: tick.asOf,
    provider: providerId,
    confidence: 1,
    live,
  };
}

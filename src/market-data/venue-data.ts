import type { Arbiter } from './arbitration/arbiter.ts';
import type { Sourced } from './arbitration/lineage.ts';
import { type CachedReads, ownAsOf } from './cache/cached-reads.ts';
import { alignDown, cut } from './cache/ranges.ts';
import type { MarketDataProvider } from './providers/provider.ts';
import type {
  CryptoStats,
  FundingRate,
  Instrument,
  OrderBook,
  Trade,
  Transfer,
  VenueStatus,
} from './types.ts';

/**
 * What trading venues and chains tell about crypto markets, beyond a quote and bars: 24-hour
 * statistics, order books (now, and in the past where a provider can recompute them), funding
 * rates, large trades and transfers, and the venues' own status. Part of the market-data service
 * (`marketData.venues`), with its arbitration, cache and upstream budget.
 */
export class VenueData {
  constructor(
    private readonly arbiter: Arbiter,
    private readonly reads: CachedReads,
    /** The error for data no configured provider offers. */
    private readonly unsupported: (what: string, symbol?: string) => Error,
  ) {}

  cryptoStats(instrument: Instrument, prefer?: string): Promise<Sourced<CryptoStats>> {
    const load = (p: MarketDataProvider, signal: AbortSignal) => p.cryptoStats!({ instrument, signal });
    return this.reads.first('cryptoStats', '24h statistics', instrument, prefer ?? '', load, ownAsOf, {
      prefer,
    });
  }

  orderBook(instrument: Instrument, depth: number, prefer?: string): Promise<Sourced<OrderBook>> {
    const load = (p: MarketDataProvider, signal: AbortSignal) => p.orderBook!({ instrument, depth, signal });
    return this.reads.first(
      'orderBook',
      'order books',
      instrument,
      `${depth}:${prefer ?? ''}`,
      load,
      ownAsOf,
      {
        prefer,
      },
    );
  }

  /** Whether a configured provider can answer this instrument's order book at a past time. */
  offersPastOrderBooks(instrument: Instrument): boolean {
    return this.pastBookProvider(instrument) !== undefined;
  }

  /**
   * The order book as it stood at `at`, from a provider that can recompute its past
   * (`pastOrderBooks`; live venues cannot). Not cached: each past instant is asked for once.
   */
  async pastOrderBook(instrument: Instrument, depth: number, at: Date): Promise<Sourced<OrderBook>> {
    const provider = this.pastBookProvider(instrument);
    if (!provider) throw this.unsupported('past order books', instrument.symbol);
    this.reads.admit(instrument);
    const answer = await this.arbiter.first(
      'past order books',
      'orderBook',
      instrument,
      (p, signal) => p.orderBook!({ instrument, depth, at, signal }),
      ownAsOf,
      provider.id,
    );
    return { ...answer, lineage: { ...answer.lineage, cache: { hit: false, ageMs: 0, ttlMs: 0 } } };
  }

  private pastBookProvider(instrument: Instrument): MarketDataProvider | undefined {
    return this.arbiter
      .eligible('orderBook', instrument)
      .find((p) => p.pastOrderBooks === true && p.orderBook !== undefined);
  }

  funding(instrument: Instrument, prefer?: string): Promise<Sourced<FundingRate>> {
    const load = (p: MarketDataProvider, signal: AbortSignal) => p.funding!({ instrument, signal });
    return this.reads.first('funding', 'funding rates', instrument, prefer ?? '', load, ownAsOf, { prefer });
  }

  async transfers(since: Date, minUsd: number, assets?: readonly string[]): Promise<Sourced<Transfer[]>> {
    const from = alignDown(since, TRANSFERS_STEP_MS);
    const all = await this.reads.first(
      'transfers',
      'large transfers',
      undefined,
      `${from.toISOString()}:${minUsd}:${assets?.join(',') ?? '*'}`,
      (p, signal) => p.transfers!({ since: from, minUsd, ...(assets ? { assets } : {}), signal }),
      (list) => list.at(-1)?.time ?? from,
    );
    return { ...all, value: cut(all.value, (t) => t.time, since, FAR_FUTURE) };
  }

  /**
   * The instrument's exchange trades worth at least `minUsd` since `since`, from the healthiest
   * provider that reports them. Polls a moment apart share an entry (`since` is aligned down to a
   * step), and the answer is cut back to `since`.
   */
  async largeTrades(instrument: Instrument, since: Date, minUsd: number): Promise<Sourced<Trade[]>> {
    const from = alignDown(since, TRANSFERS_STEP_MS);
    const all = await this.reads.first(
      'largeTrades',
      'large trades',
      instrument,
      `${from.toISOString()}:${minUsd}`,
      (p, signal) => p.largeTrades!({ instrument, since: from, minUsd, signal }),
      (list) => list.at(-1)?.time ?? from,
    );
    return { ...all, value: cut(all.value, (t) => t.time, since, FAR_FUTURE) };
  }

  /** Status of every venue every provider can see (each provider asked once; failures are omitted). */
  async venueStatus(): Promise<Sourced<VenueStatus[]>> {
    if (this.arbiter.eligible('venueStatus').length === 0) throw this.unsupported('venue status');
    return this.reads.first(
      'venueStatus',
      'venue status',
      undefined,
      '',
      (p, signal) => p.venueStatus!({ signal }),
      (list) => list.reduce((latest, v) => (v.checkedAt > latest ? v.checkedAt : latest), new Date(0)),
    );
  }
}

/** Transfer and trade polls ("since a moment ago") share entries within this step. */
const TRANSFERS_STEP_MS = 60_000;
const FAR_FUTURE = new Date(8.64e15);

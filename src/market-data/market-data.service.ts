import type { Clock } from '../platform/clock.ts';
import { ValidationError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { Arbiter, type ArbiterOptions } from './arbitration/arbiter.ts';
import { HealthBoard, type HealthSnapshot } from './arbitration/health.ts';
import type { Sourced } from './arbitration/lineage.ts';
import type { CallPriority } from './budget/call-priority.ts';
import { CachedReads, type MarketDataLimits, ownAsOf } from './cache/cached-reads.ts';
import { alignBarRange, alignDays, cut } from './cache/ranges.ts';
import { barsCodec, quoteCodec } from './cache/shared-cache.codec.ts';
import type { SharedMarketDataCache } from './cache/shared-cache.ts';
import { instrumentKey } from './instruments.ts';
import { NotSupportedError } from './market-data.errors.ts';
import { marketStateAt } from './market-state.ts';
import { type MarketDataObserver, UNOBSERVED } from './observer.ts';
import { withPriceChange } from './price-change.ts';
import type { CircuitState } from './providers/http/circuit-breaker.ts';
import type {
  Capability,
  InstrumentMatch,
  MarketDataProvider,
  ProviderInfo,
  UniverseEntry,
} from './providers/provider.ts';
import { mergeMatches, normaliseQuery } from './search/instrument-search.ts';
import {
  BAR_INTERVAL_MS,
  type Bar,
  type BarInterval,
  type EarningsReport,
  type Instrument,
  MAX_BARS_PER_REQUEST,
  type Profile,
  type Quote,
  type StreamTick,
} from './types.ts';
import { VenueData } from './venue-data.ts';

export type { MarketDataLimits } from './cache/cached-reads.ts';

/** A live stream of one instrument, as the service hands it out: who streams it, and the way to open it. */
export interface LiveStream {
  /** Id of the provider that streams. */
  readonly provider: string;
  /** false for the simulated market. */
  readonly live: boolean;
  /** Opens the stream; returns the function that stops it. `onError`: it failed (open another). */
  open(listener: { onTick(tick: StreamTick): void; onError(error: Error): void }): () => void;
}

/**
 * The one door to market data: arbitration across providers, caching with market-hours-aware
 * lifetimes, coalescing of identical concurrent requests, and lineage on every answer.
 */
export class MarketDataService {
  readonly #arbiter: Arbiter;
  readonly #health: HealthBoard;
  readonly #reads: CachedReads;
  /** Order books, funding, 24-hour statistics, large trades and transfers, venue status. */
  readonly venues: VenueData;

  constructor(
    readonly providers: readonly MarketDataProvider[],
    private readonly clock: Clock,
    logger: Logger,
    options: Partial<ArbiterOptions> = {},
    limits: Partial<MarketDataLimits> = {},
    observer: MarketDataObserver = UNOBSERVED,
    /** Quotes and bars shared with the other instances on the same Postgres database (shared-cache.ts). */
    readonly sharedCache?: SharedMarketDataCache,
  ) {
    if (providers.length === 0) throw new Error('market data needs at least one provider');
    this.#health = new HealthBoard(() => clock.now().getTime());
    this.#arbiter = new Arbiter(
      providers,
      this.#health,
      clock,
      logger.child({ component: 'market-data' }),
      { timeoutMs: 8_000, tolerance: 0.01, fanout: 2, maxLagMs: 15 * 60_000, ...options },
      observer,
    );
    this.#reads = new CachedReads(clock, this.#arbiter, limits, observer, sharedCache);
    this.venues = new VenueData(this.#arbiter, this.#reads, (what, symbol) =>
      this.#unsupported(what, symbol),
    );
  }

  /** The circuit breaker state of every provider that calls out over HTTP. */
  circuits(): Array<{ provider: string; state: CircuitState }> {
    return this.providers.flatMap((p) => (p.circuit ? [{ provider: p.id, state: p.circuit() }] : []));
  }

  providersInfo(): ProviderInfo[] {
    return this.providers.map((p) => ({
      id: p.id,
      displayName: p.displayName,
      live: p.live,
      capabilities: [...p.capabilities],
    }));
  }

  health(): HealthSnapshot[] {
    return this.#health.snapshot();
  }

  cacheStats() {
    return this.#reads.stats();
  }

  /**
   * Runs one client operation (a GraphQL execution): the distinct instruments it asks for are
   * capped, and its upstream calls are charged to `clientId`. Anything outside is the server's own
   * work. `background`: nobody waits for it (the watchdogs' checks), so the providers' rate limits
   * serve it only from what interactive callers leave spare, and skip it (`deferred`) otherwise.
   */
  withinOperation<T>(clientId: string, run: () => T, priority?: CallPriority): T {
    return this.#reads.withinOperation(clientId, run, priority);
  }

  /**
   * Runs `run` as the server's own work even when a client operation started it (a price feed the
   * first subscriber opened serves every subscriber after): not capped, not charged to the client.
   */
  outsideOperation<T>(run: () => T): T {
    return this.#reads.outsideOperation(run);
  }

  /** Can any configured provider answer `capability` for this instrument? */
  supports(capability: Capability, instrument?: Instrument): boolean {
    return this.#arbiter.eligible(capability, instrument).length > 0;
  }

  /** Instruments the providers know by themselves (the simulated universe), first provider wins. */
  universe(): UniverseEntry[] {
    const seen = new Map<string, UniverseEntry>();
    for (const p of this.providers) {
      for (const entry of p.universe?.() ?? []) {
        const key = instrumentKey(entry.instrument);
        if (!seen.has(key)) seen.set(key, entry);
      }
    }
    return [...seen.values()];
  }

  /**
   * Live updates for this instrument from the healthiest provider able to stream it, or undefined
   * when none can (the price hub then polls `quote`). Chosen here like every other read, so that
   * the hub never reaches a provider around the service.
   */
  liveStream(instrument: Instrument): LiveStream | undefined {
    const provider = this.#arbiter.eligible('stream', instrument)[0];
    const stream = provider?.stream?.bind(provider);
    if (!provider || !stream) return undefined;
    return {
      provider: provider.id,
      live: provider.live,
      open: (listener) =>
        stream({
          instrument,
          onTick: (tick) => listener.onTick(tick),
          onError: (error) => listener.onError(error),
        }),
    };
  }

  /**
   * `prefer`: a provider id (venue) to ask alone when it can answer, e.g. the exchange a user named.
   * The answer is settled as every surface shows it: its change by `priceChange`, its market state
   * by `marketStateAt` at the moment it is read (not when it was cached, nor as the provider put it).
   */
  async quote(instrument: Instrument, prefer?: string): Promise<Sourced<Quote>> {
    const sourced = await this.#reads.read(
      'quote',
      instrument,
      prefer ?? '',
      () => this.#arbiter.consensusQuote(instrument, (p, signal) => p.quote!({ instrument, signal }), prefer),
      {},
      quoteCodec,
    );
    const marketState = marketStateAt(instrument, this.clock.now());
    return { ...sourced, value: { ...withPriceChange(sourced.value), marketState } };
  }

  /**
   * The last quote of `instrument` this instance kept, even one whose lifetime has passed, or
   * undefined: no provider is asked and nothing is charged. For a check that needs to know the
   * instrument has a price and what it is called, not the price now (a price subscription's symbols:
   * their prices come from the price hub).
   */
  lastKnownQuote(instrument: Instrument): Quote | undefined {
    return this.#reads.lastKnown<Quote>('quote', instrument, '');
  }

  /** Whether a provider with this id is configured and can answer `capability` for the instrument. */
  offers(providerId: string, capability: Capability, instrument?: Instrument): boolean {
    return this.#arbiter.eligible(capability, instrument).some((p) => p.id === providerId);
  }

  async bars(instrument: Instrument, interval: BarInterval, start: Date, end: Date): Promise<Sourced<Bar[]>> {
    if (!(start.getTime() < end.getTime())) throw new ValidationError('start', 'must be before end');
    const count = (end.getTime() - start.getTime()) / BAR_INTERVAL_MS[interval];
    if (count > MAX_BARS_PER_REQUEST) {
      throw new ValidationError(
        'range',
        `asks for about ${Math.round(count)} ${interval} bars; at most ${MAX_BARS_PER_REQUEST} per request`,
      );
    }
    // Fetched and keyed by whole bars, so the same query repeated a moment later is a hit.
    const range = alignBarRange(interval, start, end, this.clock.now());
    const all = await this.#reads.first(
      'bars',
      `${interval} bars`,
      instrument,
      `${interval}:${range.start.toISOString()}:${range.until.toISOString()}`,
      (p, signal) => p.bars!({ instrument, interval, start: range.start, end: range.fetchEnd, signal }),
      (bars) => bars.at(-1)?.time ?? range.start,
      { ttl: { interval, end: range.until }, codec: barsCodec },
    );
    const value = cut(all.value, (b) => b.time, start, end);
    if (value === all.value) return all;
    return { value, lineage: { ...all.lineage, asOf: value.at(-1)?.time ?? start } };
  }

  profile(instrument: Instrument): Promise<Sourced<Profile>> {
    return this.#reads.first(
      'profile',
      'profiles',
      instrument,
      '',
      (p, signal) => p.profile!({ instrument, signal }),
      ownAsOf,
    );
  }

  async earnings(instrument: Instrument, from: Date, to: Date): Promise<Sourced<EarningsReport[]>> {
    const days = alignDays(from, to);
    const all = await this.#reads.first(
      'earnings',
      'earnings',
      instrument,
      `${days.from.toISOString()}:${days.to.toISOString()}`,
      (p, signal) => p.earnings!({ instrument, from: days.from, to: days.to, signal }),
      (reports) => reports.at(-1)?.reportDate ?? days.to,
    );
    return { ...all, value: cut(all.value, (r) => r.reportDate, from, to, true) };
  }

  /**
   * Instruments whose name or symbol matches `query` (at most `limit`), from every provider that
   * searches (search endpoints, the simulated universe) merged in health order without duplicates,
   * keeping only instruments a configured provider can quote.
   */
  searchInstruments(query: string, limit: number): Promise<Sourced<InstrumentMatch[]>> {
    const q = normaliseQuery(query);
    return this.#reads.read('search', undefined, `${limit}:${q.toLowerCase()}`, async () => {
      const found = await this.#arbiter.all('instrument search', 'search', (p, signal) =>
        p.search!({ query: q, limit, signal }),
      );
      const answers = found.value.map((answer) => answer.value);
      return {
        value: mergeMatches(answers, (i) => this.supports('quote', i), limit),
        lineage: found.lineage,
      };
    });
  }

  #unsupported(what: string, symbol?: string): NotSupportedError {
    return new NotSupportedError(
      what,
      symbol,
      this.providers.map((p) => p.id),
    );
  }
}

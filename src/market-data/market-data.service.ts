import type { Clock } from '../platform/clock.ts';
import { ValidationError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { Arbiter, type ArbiterOptions, type Uncached } from './arbitration/arbiter.ts';
import { HealthBoard, type HealthSnapshot } from './arbitration/health.ts';
import type { Sourced } from './arbitration/lineage.ts';
import {
  DEFAULT_MAX_SYMBOLS_PER_OPERATION,
  DEFAULT_UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE,
  UpstreamBudget,
} from './budget/upstream-budget.ts';
import { DEFAULT_CACHE_MAX_BYTES, MarketDataCache } from './cache/market-data-cache.ts';
import { alignBarRange, alignDays, alignDown, cut } from './cache/ranges.ts';
import { type CachedKind, ttlFor } from './cache/ttl.ts';
import { instrumentKey } from './instruments.ts';
import { NotSupportedError } from './market-data.errors.ts';
import { type MarketDataObserver, UNOBSERVED } from './observer.ts';
import type { CircuitState } from './providers/http/circuit-breaker.ts';
import type { Capability, InstrumentMatch, MarketDataProvider, UniverseEntry } from './providers/provider.ts';
import { mergeMatches, normaliseQuery } from './search/instrument-search.ts';
import {
  BAR_INTERVAL_MS,
  type Bar,
  type BarInterval,
  type CryptoStats,
  type EarningsReport,
  type FundingRate,
  type Instrument,
  type OrderBook,
  type Profile,
  type Quote,
  type Trade,
  type Transfer,
  type VenueStatus,
} from './types.ts';

export interface ProviderInfo {
  readonly id: string;
  readonly displayName: string;
  readonly live: boolean;
  readonly capabilities: readonly Capability[];
}

/** Most bars one request may ask for (a decade of daily bars is ~2,520). */
export const MAX_BARS_PER_REQUEST = 50_000;

/** Bounds on what clients can make the service hold or spend (see README, configuration). */
export interface MarketDataLimits {
  /** Estimated bytes the answer cache may hold. */
  readonly cacheMaxBytes: number;
  /** Distinct instruments one client operation may ask for. */
  readonly maxSymbolsPerOperation: number;
  /** Cache-missing calls to live providers one client may cause per minute. */
  readonly upstreamCallsPerClientPerMinute: number;
}

/**
 * The one door to market data: arbitration across providers, caching with market-hours-aware
 * lifetimes, coalescing of identical concurrent requests, and lineage on every answer.
 */
export class MarketDataService {
  readonly #arbiter: Arbiter;
  readonly #health: HealthBoard;
  readonly #cache: MarketDataCache;
  readonly #budget: UpstreamBudget;

  constructor(
    readonly providers: readonly MarketDataProvider[],
    private readonly clock: Clock,
    logger: Logger,
    options: Partial<ArbiterOptions> = {},
    limits: Partial<MarketDataLimits> = {},
    private readonly observer: MarketDataObserver = UNOBSERVED,
  ) {
    if (providers.length === 0) throw new Error('market data needs at least one provider');
    const now = () => clock.now().getTime();
    this.#health = new HealthBoard(now);
    this.#cache = new MarketDataCache(now, { maxBytes: limits.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES });
    this.#budget = new UpstreamBudget(
      {
        maxSymbolsPerOperation: limits.maxSymbolsPerOperation ?? DEFAULT_MAX_SYMBOLS_PER_OPERATION,
        callsPerClientPerMinute:
          limits.upstreamCallsPerClientPerMinute ?? DEFAULT_UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE,
      },
      now,
    );
    this.#arbiter = new Arbiter(
      providers,
      this.#health,
      clock,
      logger.child({ component: 'market-data' }),
      { timeoutMs: 8_000, tolerance: 0.01, fanout: 2, maxLagMs: 15 * 60_000, ...options },
      observer,
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
    return this.#cache.stats();
  }

  /**
   * Runs one client operation (a GraphQL execution): the distinct instruments it asks for are
   * capped, and its upstream calls are charged to `clientId`. Anything outside is background work.
   */
  withinOperation<T>(clientId: string, run: () => T): T {
    return this.#budget.runOperation(clientId, run);
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

  /** The provider that will stream live updates for this instrument (healthiest able one). */
  streamProvider(instrument: Instrument): MarketDataProvider | undefined {
    return this.#arbiter.eligible('stream', instrument)[0];
  }

  /** `prefer`: a provider id (venue) to ask alone when it can answer, e.g. the exchange a user named. */
  quote(instrument: Instrument, prefer?: string): Promise<Sourced<Quote>> {
    return this.#cached('quote', instrument, prefer ?? '', () =>
      this.#arbiter.consensusQuote(instrument, (p, signal) => p.quote!({ instrument, signal }), prefer),
    );
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
    const key = `${interval}:${range.start.toISOString()}:${range.until.toISOString()}`;
    const all = await this.#cached(
      'bars',
      instrument,
      key,
      () =>
        this.#arbiter.first(
          `${interval} bars`,
          'bars',
          instrument,
          (p, signal) => p.bars!({ instrument, interval, start: range.start, end: range.fetchEnd, signal }),
          (bars) => bars.at(-1)?.time ?? range.start,
        ),
      { interval, end: range.until },
    );
    const value = cut(all.value, (b) => b.time, start, end);
    if (value === all.value) return all;
    return { value, lineage: { ...all.lineage, asOf: value.at(-1)?.time ?? start } };
  }

  profile(instrument: Instrument): Promise<Sourced<Profile>> {
    return this.#cached('profile', instrument, '', () =>
      this.#arbiter.first(
        'profiles',
        'profile',
        instrument,
        (p, signal) => p.profile!({ instrument, signal }),
        (v) => v.asOf,
      ),
    );
  }

  cryptoStats(instrument: Instrument, prefer?: string): Promise<Sourced<CryptoStats>> {
    return this.#cached('cryptoStats', instrument, prefer ?? '', () =>
      this.#arbiter.first(
        '24h statistics',
        'cryptoStats',
        instrument,
        (p, signal) => p.cryptoStats!({ instrument, signal }),
        (v) => v.asOf,
        prefer,
      ),
    );
  }

  orderBook(instrument: Instrument, depth: number, prefer?: string): Promise<Sourced<OrderBook>> {
    return this.#cached('orderBook', instrument, `${depth}:${prefer ?? ''}`, () =>
      this.#arbiter.first(
        'order books',
        'orderBook',
        instrument,
        (p, signal) => p.orderBook!({ instrument, depth, signal }),
        (v) => v.asOf,
        prefer,
      ),
    );
  }

  /** Whether a configured provider can answer this instrument's order book at a past time. */
  offersPastOrderBooks(instrument: Instrument): boolean {
    return this.#pastBookProvider(instrument) !== undefined;
  }

  /**
   * The order book as it stood at `at`, from a provider that can recompute its past
   * (`pastOrderBooks`; live venues cannot). Not cached: each past instant is asked for once.
   */
  async pastOrderBook(instrument: Instrument, depth: number, at: Date): Promise<Sourced<OrderBook>> {
    const provider = this.#pastBookProvider(instrument);
    if (!provider)
      throw new NotSupportedError(
        'past order books',
        instrument.symbol,
        this.providers.map((p) => p.id),
      );
    this.#budget.admit(instrumentKey(instrument));
    const answer = await this.#arbiter.first(
      'past order books',
      'orderBook',
      instrument,
      (p, signal) => p.orderBook!({ instrument, depth, at, signal }),
      (v) => v.asOf,
      provider.id,
    );
    return { ...answer, lineage: { ...answer.lineage, cache: { hit: false, ageMs: 0, ttlMs: 0 } } };
  }

  #pastBookProvider(instrument: Instrument): MarketDataProvider | undefined {
    return this.#arbiter
      .eligible('orderBook', instrument)
      .find((p) => p.pastOrderBooks === true && p.orderBook !== undefined);
  }

  funding(instrument: Instrument, prefer?: string): Promise<Sourced<FundingRate>> {
    return this.#cached('funding', instrument, prefer ?? '', () =>
      this.#arbiter.first(
        'funding rates',
        'funding',
        instrument,
        (p, signal) => p.funding!({ instrument, signal }),
        (v) => v.asOf,
        prefer,
      ),
    );
  }

  async earnings(instrument: Instrument, from: Date, to: Date): Promise<Sourced<EarningsReport[]>> {
    const days = alignDays(from, to);
    const all = await this.#cached(
      'earnings',
      instrument,
      `${days.from.toISOString()}:${days.to.toISOString()}`,
      () =>
        this.#arbiter.first(
          'earnings',
          'earnings',
          instrument,
          (p, signal) => p.earnings!({ instrument, from: days.from, to: days.to, signal }),
          (reports) => reports.at(-1)?.reportDate ?? days.to,
        ),
    );
    return { ...all, value: cut(all.value, (r) => r.reportDate, from, to, true) };
  }

  async transfers(since: Date, minUsd: number, assets?: readonly string[]): Promise<Sourced<Transfer[]>> {
    const from = alignDown(since, TRANSFERS_STEP_MS);
    const key = `${from.toISOString()}:${minUsd}:${assets?.join(',') ?? '*'}`;
    const all = await this.#cached('transfers', undefined, key, () =>
      this.#arbiter.first(
        'large transfers',
        'transfers',
        undefined,
        (p, signal) => p.transfers!({ since: from, minUsd, ...(assets ? { assets } : {}), signal }),
        (list) => list.at(-1)?.time ?? from,
      ),
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
    const all = await this.#cached('largeTrades', instrument, `${from.toISOString()}:${minUsd}`, () =>
      this.#arbiter.first(
        'large trades',
        'largeTrades',
        instrument,
        (p, signal) => p.largeTrades!({ instrument, since: from, minUsd, signal }),
        (list) => list.at(-1)?.time ?? from,
      ),
    );
    return { ...all, value: cut(all.value, (t) => t.time, since, FAR_FUTURE) };
  }

  /**
   * Instruments whose name or symbol matches `query` (at most `limit`), from every provider that
   * searches (search endpoints, the simulated universe) merged in health order without duplicates,
   * keeping only instruments a configured provider can quote.
   */
  searchInstruments(query: string, limit: number): Promise<Sourced<InstrumentMatch[]>> {
    const q = normaliseQuery(query);
    return this.#cached('search', undefined, `${limit}:${q.toLowerCase()}`, async () => {
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

  /** Status of every venue every provider can see (each provider asked once; failures are omitted). */
  async venueStatus(): Promise<Sourced<VenueStatus[]>> {
    const able = this.#arbiter.eligible('venueStatus');
    if (able.length === 0)
      throw new NotSupportedError(
        'venue status',
        undefined,
        this.providers.map((p) => p.id),
      );
    return this.#cached('venueStatus', undefined, '', () =>
      this.#arbiter.first(
        'venue status',
        'venueStatus',
        undefined,
        (p, signal) => p.venueStatus!({ signal }),
        (list) => list.reduce((latest, v) => (v.checkedAt > latest ? v.checkedAt : latest), new Date(0)),
      ),
    );
  }

  async #cached<T>(
    kind: CachedKind,
    instrument: Instrument | undefined,
    params: string,
    load: () => Promise<Uncached<T>>,
    ttlExtra: { interval?: BarInterval; end?: Date } = {},
  ): Promise<Sourced<T>> {
    const id = instrument ? instrumentKey(instrument) : '*';
    if (instrument) this.#budget.admit(id);
    const key = `${kind}|${id}|${params}`;
    const cached = await this.#cache
      .getOrLoad(key, load, () => ttlFor(kind, instrument, this.clock.now(), ttlExtra), {
        // Only calls that reach a live provider spend its shared rate limit; the simulated market is free.
        beforeLoad: () => {
          if (this.#arbiter.eligible(kind, instrument).some((p) => p.live)) this.#budget.charge();
        },
      })
      .catch((error: unknown) => {
        // Nothing usable was in the cache: a failed load is a miss.
        this.observer.cacheLookup(kind, false);
        throw error;
      });
    this.observer.cacheLookup(kind, cached.hit);
    return {
      value: cached.value.value,
      lineage: {
        ...cached.value.lineage,
        cache: { hit: cached.hit, ageMs: cached.ageMs, ttlMs: cached.ttlMs },
      },
    };
  }
}

/** Transfer polls ("since a moment ago") share entries within this step. */
const TRANSFERS_STEP_MS = 60_000;
const FAR_FUTURE = new Date(8.64e15);

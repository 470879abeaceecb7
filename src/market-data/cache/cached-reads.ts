import type { Clock } from '../../platform/clock.ts';
import type { Arbiter, Uncached } from '../arbitration/arbiter.ts';
import type { Sourced } from '../arbitration/lineage.ts';
import type { CallPriority } from '../budget/call-priority.ts';
import {
  DEFAULT_MAX_SYMBOLS_PER_OPERATION,
  DEFAULT_UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE,
  UpstreamBudget,
} from '../budget/upstream-budget.ts';
import { instrumentKey } from '../instruments.ts';
import type { MarketDataObserver } from '../observer.ts';
import type { MarketDataProvider } from '../providers/provider.ts';
import type { BarInterval, Instrument } from '../types.ts';
import { DEFAULT_CACHE_MAX_BYTES, MarketDataCache } from './market-data-cache.ts';
import type { SharedCodec } from './shared-cache.codec.ts';
import type { SharedMarketDataCache } from './shared-cache.ts';
import { type CachedKind, ttlFor } from './ttl.ts';

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
 * Reads through the answer cache, within the client operation's budget: each read admits its
 * instrument to the operation's cap, is answered from the cache when fresh (identical concurrent
 * loads coalesce), and a load that reaches a live provider is charged to the client. The answer's
 * lineage tells whether it was a hit, its age and its lifetime.
 *
 * With a shared cache (several instances on one Postgres database, shared-cache.ts), a read that
 * names a codec and misses here asks the shared table before it goes upstream; a fresh shared answer
 * is kept here for the rest of its lifetime and is a hit, with its own lineage (the providers that
 * gave it where it was fetched). An answer fetched upstream is shared in the background.
 */
export class CachedReads {
  readonly #cache: MarketDataCache;
  readonly #budget: UpstreamBudget;

  constructor(
    private readonly clock: Clock,
    private readonly arbiter: Arbiter,
    limits: Partial<MarketDataLimits>,
    private readonly observer: MarketDataObserver,
    private readonly shared?: SharedMarketDataCache,
  ) {
    const now = () => clock.now().getTime();
    this.#cache = new MarketDataCache(now, { maxBytes: limits.cacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES });
    this.#budget = new UpstreamBudget(
      {
        maxSymbolsPerOperation: limits.maxSymbolsPerOperation ?? DEFAULT_MAX_SYMBOLS_PER_OPERATION,
        callsPerClientPerMinute:
          limits.upstreamCallsPerClientPerMinute ?? DEFAULT_UPSTREAM_CALLS_PER_CLIENT_PER_MINUTE,
      },
      now,
    );
  }

  stats() {
    return this.#cache.stats();
  }

  /** Runs one client operation: its distinct instruments are capped, its upstream calls charged to `clientId`. */
  withinOperation<T>(clientId: string, run: () => T, priority?: CallPriority): T {
    return this.#budget.runOperation(clientId, run, priority);
  }

  /** Runs `run` as the server's own work, outside the current client operation (see UpstreamBudget). */
  outsideOperation<T>(run: () => T): T {
    return this.#budget.outsideOperation(run);
  }

  /** Counts the instrument against the running operation's cap (for a read that bypasses the cache). */
  admit(instrument: Instrument): void {
    this.#budget.admit(instrumentKey(instrument));
  }

  /**
   * The answer this instance last kept for `kind` of `instrument`, however old (see
   * MarketDataCache.lastKnown), without asking anyone: free, but it counts against the operation's
   * cap on instruments like any read.
   */
  lastKnown<T>(kind: CachedKind, instrument: Instrument, params: string): T | undefined {
    const id = instrumentKey(instrument);
    this.#budget.admit(id);
    const kept = this.#cache.lastKnown(`${kind}|${id}|${params}`) as Uncached<T> | undefined;
    return kept?.value;
  }

  async read<T>(
    kind: CachedKind,
    instrument: Instrument | undefined,
    params: string,
    load: () => Promise<Uncached<T>>,
    ttlExtra: { interval?: BarInterval; end?: Date } = {},
    codec?: SharedCodec<T>,
  ): Promise<Sourced<T>> {
    const id = instrument ? instrumentKey(instrument) : '*';
    if (instrument) this.#budget.admit(id);
    const key = `${kind}|${id}|${params}`;
    const ttl = () => ttlFor(kind, instrument, this.clock.now(), ttlExtra);
    const sharedKey = codec && this.shared?.keyOf(key);
    let upstream = load;
    if (codec && this.shared && sharedKey) {
      const shared = this.shared;
      if (!this.#cache.has(key)) {
        const found = await shared.find(codec, sharedKey);
        if (found) this.#cache.put(key, found.answer, found.ttlMs, found.ageMs);
      }
      upstream = async () => {
        const answer = await load();
        shared.share(codec, sharedKey, answer, ttl());
        return answer;
      };
    }
    const cached = await this.#cache
      .getOrLoad(key, upstream, ttl, {
        // Only calls that reach a live provider spend its shared rate limit; the simulated market is free.
        beforeLoad: () => {
          if (this.arbiter.eligible(kind, instrument).some((p) => p.live)) this.#budget.charge();
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

  /**
   * The answer of the healthiest provider able to give it (`prefer`: that provider alone when it
   * can), through the cache under `params`; `what` names the data in errors.
   */
  first<T>(
    kind: CachedKind,
    what: string,
    instrument: Instrument | undefined,
    params: string,
    load: (provider: MarketDataProvider, signal: AbortSignal) => Promise<T>,
    asOf: (value: T) => Date,
    options: {
      prefer?: string | undefined;
      ttl?: { interval: BarInterval; end: Date };
      /** Shares the answer between instances (see `read`). */
      codec?: SharedCodec<T>;
    } = {},
  ): Promise<Sourced<T>> {
    return this.read(
      kind,
      instrument,
      params,
      () => this.arbiter.first(what, kind, instrument, load, asOf, options.prefer),
      options.ttl,
      options.codec,
    );
  }
}

/** When an answer that carries its own time was true. */
export const ownAsOf = (value: { readonly asOf: Date }) => value.asOf;

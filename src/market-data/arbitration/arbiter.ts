import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import {
  attemptOf,
  MarketDataUnavailableError,
  NotSupportedError,
  UnknownSymbolError,
} from '../market-data.errors.ts';
import { type MarketDataObserver, UNOBSERVED } from '../observer.ts';
import type { Capability, MarketDataProvider } from '../providers/provider.ts';
import { ProviderError } from '../providers/provider-errors.ts';
import type { Instrument, Quote } from '../types.ts';
import type { HealthBoard } from './health.ts';
import type { Lineage } from './lineage.ts';
import { type Rejection, reconcile } from './reconcile.ts';

export type Uncached<T> = { readonly value: T; readonly lineage: Omit<Lineage, 'cache'> };

export interface ArbiterOptions {
  /** Deadline for one provider call (its retries included). */
  readonly timeoutMs: number;
  /** Relative price distance beyond which a quote is an outlier. */
  readonly tolerance: number;
  /** Providers asked at once for a quote, to cross-check each other. */
  readonly fanout: number;
  /** Quotes older than the freshest by more than this are rejected as stale. */
  readonly maxLagMs: number;
}

/**
 * Chooses providers per data type by capability and measured health, falls back in order, and
 * reconciles when several answer. It never fills a gap with a value: when nobody answers, the
 * caller gets an error that says who was asked and what each said.
 */
export class Arbiter {
  constructor(
    private readonly providers: readonly MarketDataProvider[],
    private readonly health: HealthBoard,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: ArbiterOptions,
    private readonly observer: MarketDataObserver = UNOBSERVED,
  ) {}

  /**
   * Providers able to answer, healthiest first. With `prefer` (a venue the caller asked for), only
   * that provider when it can answer.
   */
  eligible(capability: Capability, instrument?: Instrument, prefer?: string): MarketDataProvider[] {
    let able = this.providers.filter(
      (p) => p.capabilities.has(capability) && p.supports(capability, instrument),
    );
    if (prefer && able.some((p) => p.id === prefer)) able = able.filter((p) => p.id === prefer);
    const order = this.health.rank(
      able.map((p) => p.id),
      capability,
    );
    return order.map((id) => able.find((p) => p.id === id)!);
  }

  /** The first provider (by health) that answers; the rest are fallbacks. */
  async first<T>(
    what: string,
    capability: Capability,
    instrument: Instrument | undefined,
    run: (provider: MarketDataProvider, signal: AbortSignal) => Promise<T>,
    asOf: (value: T) => Date,
    prefer?: string,
  ): Promise<Uncached<T>> {
    const candidates = this.eligible(capability, instrument, prefer);
    if (candidates.length === 0 && instrument) this.#unknownToAll(capability, instrument);
    if (candidates.length === 0)
      throw new NotSupportedError(
        what,
        instrument?.symbol,
        this.providers.map((p) => p.id),
      );
    const failures: ProviderError[] = [];
    for (const provider of candidates) {
      const outcome = await this.#call(provider, capability, run);
      if (outcome.ok) {
        const value = outcome.value;
        return {
          value,
          lineage: {
            asked: [...failures.map((f) => f.provider), provider.id],
            used: [provider.id],
            rejected: failures.map(failureRejection),
            agreement: 1,
            conflictResolved: false,
            asOf: asOf(value),
            retrievedAt: this.clock.now(),
            simulated: !provider.live,
          },
        };
      }
      failures.push(outcome.error);
    }
    throw allFailed(what, instrument, failures);
  }

  /**
   * Every able provider asked at once, for data that adds up rather than competes (search matches):
   * the answers of those that answered, in health order, and the failures in the lineage. Fails only
   * when none answers.
   */
  async all<T>(
    what: string,
    capability: Capability,
    run: (provider: MarketDataProvider, signal: AbortSignal) => Promise<T>,
  ): Promise<Uncached<Array<{ provider: string; value: T }>>> {
    const candidates = this.eligible(capability);
    if (candidates.length === 0) {
      throw new NotSupportedError(
        what,
        undefined,
        this.providers.map((p) => p.id),
      );
    }
    const outcomes = await Promise.all(candidates.map((p) => this.#call(p, capability, run)));
    const answers: Array<{ provider: string; value: T }> = [];
    const failures: ProviderError[] = [];
    outcomes.forEach((o, i) => {
      if (o.ok) answers.push({ provider: candidates[i]!.id, value: o.value });
      else failures.push(o.error);
    });
    if (answers.length === 0) throw allFailed(what, undefined, failures);
    const now = this.clock.now();
    return {
      value: answers,
      lineage: {
        asked: candidates.map((p) => p.id),
        used: answers.map((a) => a.provider),
        rejected: failures.map(failureRejection),
        agreement: 1,
        conflictResolved: false,
        asOf: now,
        retrievedAt: now,
        simulated: answers.some((a) => !candidates.find((p) => p.id === a.provider)!.live),
      },
    };
  }

  /**
   * A quote cross-checked by up to `fanout` providers asked at once (others are fallbacks when
   * those fail), reconciled into one real reported price.
   */
  async consensusQuote(
    instrument: Instrument,
    run: (provider: MarketDataProvider, signal: AbortSignal) => Promise<Quote>,
    prefer?: string,
  ): Promise<Uncached<Quote>> {
    const candidates = this.eligible('quote', instrument, prefer);
    if (candidates.length === 0) this.#unknownToAll('quote', instrument);
    if (candidates.length === 0)
      throw new NotSupportedError(
        'quotes',
        instrument.symbol,
        this.providers.map((p) => p.id),
      );
    const answers: Array<{ provider: MarketDataProvider; quote: Quote }> = [];
    const failures: ProviderError[] = [];
    const asked: string[] = [];
    let next = 0;
    while (answers.length === 0 && next < candidates.length) {
      const batch = candidates.slice(next, next + (next === 0 ? Math.max(1, this.options.fanout) : 1));
      next += batch.length;
      asked.push(...batch.map((p) => p.id));
      const outcomes = await Promise.all(batch.map((p) => this.#call(p, 'quote', run)));
      outcomes.forEach((o, i) => {
        if (o.ok) answers.push({ provider: batch[i]!, quote: o.value });
        else failures.push(o.error);
      });
    }
    if (answers.length === 0) throw allFailed('quotes', instrument, failures);

    const result = reconcile(
      answers.map((a) => ({ provider: a.provider.id, value: a.quote.price, asOf: a.quote.asOf })),
      {
        tolerance: this.options.tolerance,
        maxLagMs: this.options.maxLagMs,
        preference: candidates.map((p) => p.id),
      },
    );
    const chosen = answers.find((a) => a.provider.id === result.chosen.provider)!;
    if (result.conflict) {
      this.logger.info(
        { symbol: instrument.symbol, rejected: result.rejected },
        'providers disagreed on a quote',
      );
    }
    return {
      value: chosen.quote,
      lineage: {
        asked,
        used: result.used.map((u) => u.provider),
        rejected: [...failures.map(failureRejection), ...result.rejected],
        agreement: result.agreement,
        conflictResolved: result.conflict,
        asOf: chosen.quote.asOf,
        retrievedAt: this.clock.now(),
        simulated: answers.some(
          (a) => !a.provider.live && result.used.some((u) => u.provider === a.provider.id),
        ),
      },
    };
  }

  /**
   * Providers that offer this data for the instrument's asset class but do not list the symbol
   * (a fixed universe) have answered "unknown symbol" without being asked.
   */
  #unknownToAll(capability: Capability, instrument: Instrument): void {
    const able = this.providers.filter(
      (p) => p.capabilities.has(capability) && p.assetClasses.has(instrument.assetClass),
    );
    if (able.length > 0) {
      throw new UnknownSymbolError(
        instrument.symbol,
        able.map((p) => ({
          provider: p.id,
          kind: 'unknown_symbol',
          error: `${p.id} does not list ${instrument.symbol}`,
          reason: `does not list ${instrument.symbol}`,
        })),
      );
    }
  }

  async #call<T>(
    provider: MarketDataProvider,
    capability: Capability,
    run: (provider: MarketDataProvider, signal: AbortSignal) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; error: ProviderError }> {
    const started = performance.now();
    try {
      const value = await run(provider, AbortSignal.timeout(this.options.timeoutMs));
      const asOf = (value as { asOf?: unknown }).asOf;
      const latencyMs = performance.now() - started;
      this.observer.providerCall(provider.id, 'ok', latencyMs / 1000);
      this.health.record(provider.id, capability, {
        ok: true,
        latencyMs,
        ...(asOf instanceof Date ? { stalenessMs: this.clock.now().getTime() - asOf.getTime() } : {}),
      });
      return { ok: true, value };
    } catch (thrown) {
      const error =
        thrown instanceof ProviderError
          ? thrown
          : new ProviderError(
              provider.id,
              'bad_response',
              thrown instanceof Error ? thrown.message : String(thrown),
              { cause: thrown },
            );
      if (!(thrown instanceof ProviderError)) {
        this.logger.error({ err: thrown, provider: provider.id, capability }, 'provider failed unexpectedly');
      }
      const latencyMs = performance.now() - started;
      this.observer.providerCall(provider.id, error.kind, latencyMs / 1000);
      this.health.record(
        provider.id,
        capability,
        { ok: false, latencyMs, errorKind: error.kind },
        error.message,
      );
      return { ok: false, error };
    }
  }
}

function failureRejection(error: ProviderError): Rejection {
  return { provider: error.provider, reason: `${error.kind}: ${error.message}` };
}

function allFailed(
  what: string,
  instrument: Instrument | undefined,
  failures: readonly ProviderError[],
): Error {
  const symbol = instrument?.symbol;
  const answers = failures.map((f) => f.kind);
  if (
    symbol &&
    answers.includes('unknown_symbol') &&
    answers.every((k) => k === 'unknown_symbol' || k === 'unsupported')
  ) {
    return new UnknownSymbolError(symbol, failures.map(attemptOf));
  }
  if (answers.every((k) => k === 'unsupported')) {
    return new NotSupportedError(
      what,
      symbol,
      failures.map((f) => f.provider),
    );
  }
  return new MarketDataUnavailableError(what, symbol, failures);
}

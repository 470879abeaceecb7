import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { boundedLabel } from '../platform/observability/metrics.ts';
import type { PriceHub } from './hub/price-hub.ts';
import type { MarketDataService } from './market-data.service.ts';
import type { MarketDataObserver } from './observer.ts';
import type { CircuitState } from './providers/http/circuit-breaker.ts';

/** Every state a provider's circuit reports a series for (the one it is in is 1, the others 0). */
const CIRCUIT_STATES = ['closed', 'half_open', 'open'] as const satisfies readonly CircuitState[];

/** What the gauges read when `/metrics` is scraped: the service's circuits, the hub's feeds. */
export interface MarketDataGaugeSources {
  readonly marketData: Pick<MarketDataService, 'circuits'>;
  readonly priceHub: Pick<PriceHub, 'stats'>;
}

/**
 * Market data's own metrics, on the app's registry: provider calls (outcome and latency), cache
 * lookups, and, once the service and the price hub exist, the gauges read from them at scrape time.
 * Provider ids and data kinds are small fixed sets, capped all the same (one cap for a provider id
 * wherever it is a label).
 */
export class MarketDataMetrics implements MarketDataObserver {
  readonly #provider = boundedLabel();
  readonly #kind = boundedLabel();
  readonly #providerCalls: Counter<'provider' | 'outcome'>;
  readonly #providerDuration: Histogram<'provider'>;
  readonly #cacheRequests: Counter<'kind' | 'result'>;

  constructor(private readonly registry: Registry) {
    const registers = [registry];
    this.#providerCalls = new Counter({
      name: 'vigil_market_data_provider_calls_total',
      help: 'Calls to market-data providers, by provider and outcome (ok, or the error kind)',
      labelNames: ['provider', 'outcome'],
      registers,
    });
    this.#providerDuration = new Histogram({
      name: 'vigil_market_data_provider_call_duration_seconds',
      help: 'Latency of calls to market-data providers (retries included), by provider',
      labelNames: ['provider'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    this.#cacheRequests = new Counter({
      name: 'vigil_market_data_cache_requests_total',
      help: 'Market-data cache lookups by data kind and result (hit, miss); hit ratio = hit / (hit + miss)',
      labelNames: ['kind', 'result'],
      registers,
    });
  }

  providerCall(provider: string, outcome: string, seconds: number): void {
    const label = this.#provider(provider);
    this.#providerCalls.inc({ provider: label, outcome: this.#kind(outcome) });
    this.#providerDuration.observe({ provider: label }, seconds);
  }

  cacheLookup(kind: string, hit: boolean): void {
    this.#cacheRequests.inc({ kind: this.#kind(kind), result: hit ? 'hit' : 'miss' });
  }

  /** Registers the gauges read at scrape time (call once, when the service and the hub are built). */
  sampleFrom(sources: MarketDataGaugeSources): void {
    const registers = [this.registry];
    const provider = this.#provider;
    new Gauge({
      name: 'vigil_price_hub_feeds',
      help: 'Upstream price feeds the price hub holds (one per subscribed instrument, shared by every subscriber)',
      registers,
      collect() {
        this.set(sources.priceHub.stats().feeds);
      },
    });
    new Gauge({
      name: 'vigil_price_hub_subscribers',
      help: 'Subscribers of the price hub over all feeds',
      registers,
      collect() {
        this.set(sources.priceHub.stats().subscribers);
      },
    });
    new Gauge({
      name: 'vigil_market_data_provider_circuit_state',
      help: "Circuit breaker of each provider's HTTP client: 1 for the current state (closed, half_open, open), else 0",
      labelNames: ['provider', 'state'],
      registers,
      collect() {
        this.reset();
        for (const circuit of sources.marketData.circuits()) {
          for (const state of CIRCUIT_STATES) {
            this.set({ provider: provider(circuit.provider), state }, state === circuit.state ? 1 : 0);
          }
        }
      },
    });
  }
}

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { MarketDataMetrics } from './market-data.metrics.ts';
import type { CircuitState } from './providers/http/circuit-breaker.ts';

/** Each sample of one metric: its labels and its value. */
const valuesOf = async (registry: Registry, name: string): Promise<Array<Record<string, unknown>>> =>
  (await registry.getSingleMetric(name)!.get()).values.map((v) => ({ ...v.labels, value: v.value }));

describe('MarketDataMetrics', () => {
  it('counts provider calls by outcome, times them, and counts cache hits and misses', async () => {
    const registry = new Registry();
    const metrics = new MarketDataMetrics(registry);
    metrics.providerCall('binance', 'ok', 0.2);
    metrics.providerCall('binance', 'timeout', 3);
    metrics.cacheLookup('quote', true);
    metrics.cacheLookup('quote', false);
    metrics.cacheLookup('quote', false);
    expect(await valuesOf(registry, 'vigil_market_data_provider_calls_total')).toEqual([
      { provider: 'binance', outcome: 'ok', value: 1 },
      { provider: 'binance', outcome: 'timeout', value: 1 },
    ]);
    const duration = await valuesOf(registry, 'vigil_market_data_provider_call_duration_seconds');
    expect(duration.find((v) => 'le' in v && v.le === 0.25)).toMatchObject({ provider: 'binance', value: 1 });
    expect(await valuesOf(registry, 'vigil_market_data_cache_requests_total')).toEqual([
      { kind: 'quote', result: 'hit', value: 1 },
      { kind: 'quote', result: 'miss', value: 2 },
    ]);
  });

  it("reads each provider's circuit and the price hub's feeds when scraped", async () => {
    const registry = new Registry();
    const metrics = new MarketDataMetrics(registry);
    let state: CircuitState = 'closed';
    let feeds = 1;
    metrics.sampleFrom({
      marketData: { circuits: () => [{ provider: 'yahoo', state }] },
      priceHub: { stats: () => ({ feeds, subscribers: feeds * 3, symbols: [] }) },
    });
    const circuit = async () =>
      (await valuesOf(registry, 'vigil_market_data_provider_circuit_state')).map((v) => [v.state, v.value]);
    expect(await circuit()).toEqual([
      ['closed', 1],
      ['half_open', 0],
      ['open', 0],
    ]);
    state = 'open';
    feeds = 2;
    expect(await circuit()).toEqual([
      ['closed', 0],
      ['half_open', 0],
      ['open', 1],
    ]);
    expect(await valuesOf(registry, 'vigil_price_hub_feeds')).toEqual([{ value: 2 }]);
    expect(await valuesOf(registry, 'vigil_price_hub_subscribers')).toEqual([{ value: 6 }]);
  });
});

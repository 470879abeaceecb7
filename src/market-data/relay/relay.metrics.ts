import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FeedCoordinator, RelayObserver } from './feed-coordinator.ts';

/**
 * The price relay's metrics (feed-coordinator.ts), on the app's registry. The gauges read the
 * coordinator when scraped; without one (the embedded database, PRICE_RELAY=off) they read the
 * hub's feeds as all owned here and the relay as not in use.
 */
export function relayMetrics(
  registry: Registry,
  sources: { coordinator: () => FeedCoordinator | undefined; localFeeds: () => number },
): RelayObserver {
  const registers = [registry];
  new Gauge({
    name: 'vigil_price_feeds_owned',
    help: 'Price feeds this instance polls or streams upstream (with several instances: those it holds the lease of)',
    registers,
    collect() {
      const c = sources.coordinator();
      this.set(c ? c.stats().owned : sources.localFeeds());
    },
  });
  new Gauge({
    name: 'vigil_price_feeds_followed',
    help: 'Price feeds this instance serves from ticks relayed by the instance that owns them',
    registers,
    collect() {
      this.set(sources.coordinator()?.stats().followed ?? 0);
    },
  });
  new Gauge({
    name: 'vigil_price_relay_up',
    help: 'Whether price feeds are shared through the relay (1), or each instance polls its own (0: one instance, PRICE_RELAY=off, or the relay is down)',
    registers,
    collect() {
      this.set(sources.coordinator()?.stats().mode === 'relayed' ? 1 : 0);
    },
  });
  const ticks = new Counter({
    name: 'vigil_price_ticks_relayed_total',
    help: 'Price updates relayed between instances: sent by this instance as a feed owner, received as a follower',
    labelNames: ['direction'],
    registers,
  });
  for (const direction of ['sent', 'received']) ticks.inc({ direction }, 0);
  const lag = new Histogram({
    name: 'vigil_price_relay_lag_seconds',
    help: "From a feed owner's relaying of an update to its receipt here",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  return {
    relayed: (direction, count) => ticks.inc({ direction }, count),
    lag: (seconds) => lag.observe(seconds),
  };
}

import { Counter, Histogram, type Registry } from 'prom-client';
import type { HeldStatus } from './firing.repository.ts';

/** What firing reports (firing.ts); the metrics below, or nothing. */
export interface FiringObserver {
  /** Firings this instance recorded, by outcome. */
  recorded(outcome: HeldStatus | 'fired' | 'silenced' | 'acknowledged' | 'grouped', count: number): void;
  /** From a watchdog event's commit to the commit of its firings, in seconds. */
  lag(seconds: number): void;
  /** An attempt to fire an event failed; it is retried. */
  failed(): void;
}

/** The firings' metrics, on the app's registry (outcome is one of six). */
export function firingMetrics(registry: Registry): FiringObserver {
  const registers = [registry];
  const firings = new Counter({
    name: 'vigil_alert_firings_total',
    help: 'Alert firings recorded on this instance, by outcome (fired, cooldown, rate_limited, silenced, acknowledged, grouped).',
    labelNames: ['outcome'],
    registers,
  });
  const lag = new Histogram({
    name: 'vigil_alert_firing_lag_seconds',
    help: 'Time from a watchdog event being stored to its alert firings being committed (retries included).',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  });
  const failures = new Counter({
    name: 'vigil_alert_firing_failures_total',
    help: 'Attempts to fire the alerts of a watchdog event that failed on this instance (each is retried).',
    registers,
  });
  for (const outcome of ['fired', 'cooldown', 'rate_limited', 'silenced', 'acknowledged', 'grouped'])
    firings.inc({ outcome }, 0);
  return {
    recorded: (outcome, count) => firings.inc({ outcome }, count),
    lag: (seconds) => lag.observe(Math.max(0, seconds)),
    failed: () => failures.inc(),
  };
}

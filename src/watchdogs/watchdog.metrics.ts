import { Counter, Histogram, type Registry } from 'prom-client';
import type { CheckObserver } from './runner.ts';

/** The watchdogs' own metrics, on the app's registry (labels are bounded: 8 names, 5 outcomes, 4 severities). */
export function watchdogMetrics(registry: Registry): CheckObserver {
  const checks = new Counter({
    name: 'vigil_watchdog_checks_total',
    help: 'Watchdog checks run on this instance, by watchdog and outcome (ok, degraded, deferred, failed, skipped).',
    labelNames: ['watchdog', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'vigil_watchdog_check_duration_seconds',
    help: 'Time a watchdog check took to fetch its data and detect, by watchdog.',
    labelNames: ['watchdog'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [registry],
  });
  const events = new Counter({
    name: 'vigil_watchdog_events_total',
    help: 'Watchdog events emitted by checks on this instance, by watchdog and severity.',
    labelNames: ['watchdog', 'severity'],
    registers: [registry],
  });
  return {
    checked(name, outcome, ms) {
      checks.inc({ watchdog: name, outcome });
      if (outcome !== 'skipped') duration.observe({ watchdog: name }, ms / 1_000);
    },
    emitted(name, severity) {
      events.inc({ watchdog: name, severity });
    },
  };
}

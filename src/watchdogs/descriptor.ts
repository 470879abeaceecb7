/**
 * A watchdog, declared once: one folder under kinds/ exporting one descriptor, listed in
 * registry.ts. The descriptor holds its name, the event types it emits with the severities they
 * carry, what it watches in a sentence, its thresholds (defaults, demo replacements, the rules that
 * refuse a value that cannot work), its pure detector and its check (the data-fetching side).
 * Everything that lists watchdogs derives from the registry of these.
 */
import type { Detector, Finding, Severity } from './detectors/finding.ts';
import { resolveThresholds, type ThresholdProblem, type ThresholdSpec } from './thresholds.ts';
import type { Check, CheckDeps, CheckSetup, Timescale, WatchdogDefinition, WatchScope } from './watchdog.ts';

export interface EventTypeInfo {
  /** What an event of this type reports (the schema's description adds the watchdog's name). */
  readonly description: string;
  /** The severities it can carry, lowest first. */
  readonly severities: readonly Severity[];
}

/** What a watchdog's folder declares; `defineWatchdog` makes the descriptor of it. */
export interface WatchdogSpec<N extends string, T extends Record<keyof T, number>, I, F extends Finding> {
  /** As the dashboard routes spell it (`price_anomaly`); the schema spells it PRICE_ANOMALY. */
  readonly name: N;
  /** What it watches, in a sentence (the schema's description of its name). */
  readonly summary: string;
  /** Every event type its detector emits, in the order the schema lists them. */
  readonly events: { readonly [E in F['eventType']]: EventTypeInfo };
  readonly thresholds: ThresholdSpec<T>;
  readonly detect: Detector<I, T, F>;
  /** One line for the dashboard, from its thresholds and the timescale its check reads. */
  describe(thresholds: T, timescale: Timescale): string;
  /** The data-fetching side: reads what `scope` watches and hands it to `setup.detect`. */
  check(deps: CheckDeps, setup: CheckSetup<T, I, F>): Check<F>;
}

/** A watchdog with its thresholds for one deployment. */
export interface ConfiguredWatchdog<N extends string = string, F extends Finding = Finding, T = unknown> {
  readonly name: N;
  readonly thresholds: T;
  /** What the runner schedules: its description, interval and check over `scope`. */
  definition(deps: CheckDeps, scope: WatchScope): WatchdogDefinition<N, F>;
}

/**
 * A watchdog as the registry lists it. Its thresholds' type stays inside: `configure` resolves
 * and checks them, and the configured watchdog carries them to its check.
 */
export interface WatchdogDescriptor<N extends string = string, F extends Finding = Finding, T = unknown> {
  readonly name: N;
  readonly summary: string;
  readonly events: { readonly [E in F['eventType']]: EventTypeInfo };
  readonly defaults: T;
  /**
   * Its thresholds from the defaults, the demo replacements when `demo`, then `given` (the
   * operator's) key by key, with every problem (unknown keys, values that cannot work).
   */
  configure(
    given: Readonly<Record<string, unknown>>,
    demo: boolean,
  ): { readonly watchdog: ConfiguredWatchdog<N, F, T>; readonly problems: readonly ThresholdProblem[] };
}

/** Any descriptor: what lists of watchdogs (the registry, a test's) hold. */
export type AnyWatchdog = WatchdogDescriptor<string, Finding, unknown>;

export function defineWatchdog<
  const N extends string,
  T extends Record<keyof T, number>,
  I,
  F extends Finding,
>(spec: WatchdogSpec<N, T, I, F>): WatchdogDescriptor<N, F, T> {
  return {
    name: spec.name,
    summary: spec.summary,
    events: spec.events,
    defaults: spec.thresholds.defaults,
    configure(given, demo) {
      const { thresholds, problems } = resolveThresholds(spec.thresholds, given, demo);
      const detect = (input: I) => spec.detect(input, thresholds);
      const watchdog: ConfiguredWatchdog<N, F, T> = {
        name: spec.name,
        thresholds,
        definition: (deps, scope) => ({
          name: spec.name,
          description: spec.describe(thresholds, scope.timescale),
          intervalMs: scope.intervalMs,
          check: spec.check(deps, { ...scope, thresholds, detect }),
        }),
      };
      return { watchdog, problems };
    },
  };
}

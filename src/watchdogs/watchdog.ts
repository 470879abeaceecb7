/**
 * What one watchdog is to the runner: a name, an interval, and a check that fetches its data from
 * the market-data layer and hands it to its pure detector (detectors/). The runner (runner.ts)
 * decides when a check runs, applies the re-arm rule to its findings and stores the events; a check
 * only reports what it saw.
 */
import type { Finding, WatchdogName } from './detectors/types.ts';
import type { EventAsset } from './events.sql.ts';

export interface CheckContext {
  /** The cycle's time: every window a check reads ends here. */
  readonly now: Date;
  /** Aborted when the check runs past its deadline or the instance stops. */
  readonly signal: AbortSignal;
}

/** A subject (symbol, pair, venue) whose data could not be had in this cycle. */
export interface CheckGap {
  readonly subject: string;
  readonly error: string;
}

export interface CheckOutcome {
  /** Every anomalous subject seen, not only the first. */
  readonly findings: readonly Finding<unknown>[];
  /** Subjects looked at (symbols, pairs, venues). */
  readonly checked: number;
  /**
   * Subjects that could not be looked at. Some gaps make the check `degraded`; when every subject
   * is a gap (or the check throws) the cycle failed and is not applied to the re-arm state (it
   * would look like every condition cleared).
   */
  readonly gaps: readonly CheckGap[];
  /** What the events of this cycle are about, by symbol (symbols without an entry get a bare asset). */
  readonly assets?: ReadonlyMap<string, EventAsset>;
}

export interface WatchdogDefinition {
  readonly name: WatchdogName;
  /** One line for the dashboard. */
  readonly description: string;
  /** How often a check runs (across all instances: once per interval). */
  readonly intervalMs: number;
  check(context: CheckContext): Promise<CheckOutcome>;
}

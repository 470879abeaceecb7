/**
 * What the surfaces (GraphQL, dashboard HTTP routes, MCP, /dashboard/stream) may ask of the
 * watchdogs domain. WatchdogService implements it; surfaces depend on this and nothing deeper.
 */

import type { Severity } from './detectors/finding.ts';
import type { WatchdogEventListener } from './event-bus.ts';
import type { EventFilter, EventQueryInput } from './event-filter.ts';
import type { ReplayRequest, ReplayResult } from './event-replay.ts';
import type { EventPage, WatchdogEvent } from './events.repository.ts';
import type { WatchdogName } from './registry.ts';

/**
 * - `running`: enabled and checking on schedule without trouble;
 * - `disabled`: turned off (by an operator; persisted, on every instance);
 * - `stopped`: enabled, but no instance has checked it for three intervals (no instance runs
 *   watchdogs, or they are all stuck);
 * - `degraded`: the last check lacked data for some subjects, or one or two checks in a row failed;
 * - `failing`: three or more checks in a row failed.
 */
export const WATCHDOG_STATUSES = ['running', 'disabled', 'stopped', 'degraded', 'failing'] as const;
export type WatchdogStatus = (typeof WATCHDOG_STATUSES)[number];

export interface WatchdogHealth {
  readonly name: WatchdogName;
  readonly description: string;
  readonly enabled: boolean;
  /** Enabled and checked on schedule: status is neither `disabled` nor `stopped`. */
  readonly running: boolean;
  readonly status: WatchdogStatus;
  readonly intervalSeconds: number;
  /** When the last check finished (failed or not); null before the first. */
  readonly lastCheck: Date | null;
  /** Wall time of the last check, in milliseconds. */
  readonly lastCheckMs: number | null;
  /** When the last event was emitted. */
  readonly lastEvent: Date | null;
  /** Checks run (since it was last enabled or restarted). */
  readonly checks: number;
  /** Events emitted (since it was last enabled or restarted). */
  readonly events: number;
  /** Checks that failed (since it was last enabled or restarted). */
  readonly errors: number;
  readonly consecutiveFailures: number;
  /** Subjects looked at by the last check, and how many of them lacked data. */
  readonly lastChecked: number;
  readonly lastGaps: number;
  /** The last failure or gap, for an operator; null when the last check was clean. */
  readonly lastError: string | null;
  /** Since it was last enabled or restarted. */
  readonly since: Date;
  readonly updatedBy: string | null;
}

export interface DashboardStats {
  /** Events kept (within the retention period). */
  readonly totalEvents: number;
  readonly eventsBySeverity: Readonly<Record<Severity, number>>;
  /** Enabled watchdogs. */
  readonly activeWatchdogs: number;
  /** Watchdogs whose status is `running`. */
  readonly healthyWatchdogs: number;
  /** Listeners on this instance's event feed (stream connections and subscriptions). */
  readonly activeSubscriptions: number;
  readonly timestamp: Date;
}

export interface WatchdogsApi {
  readonly names: readonly WatchdogName[];
  /** Health of every watchdog, in registry order. */
  health(): Promise<WatchdogHealth[]>;
  /** NotFoundError (code NOT_FOUND, field `name`) for an unknown name. */
  healthOf(name: string): Promise<WatchdogHealth>;
  /** Persisted; effective on every instance from its next cycle. `by` is the caller's client id. */
  setEnabled(name: string, enabled: boolean, by: string): Promise<WatchdogHealth>;
  /**
   * Clears counters, failures and the re-arm memory (so a persisting condition emits again) and
   * runs a check now; enables a disabled watchdog.
   */
  restart(name: string, by: string): Promise<WatchdogHealth>;
  stats(): Promise<DashboardStats>;
  /** ValidationError naming the field for a bad filter. */
  events(query: EventQueryInput): Promise<EventPage>;
  event(id: string): Promise<WatchdogEvent | null>;
  /**
   * The stored events a live feed starts with: the newest `request.last` that pass `filter` (and
   * `request`'s id or time), oldest first. Listen first and read this after, so nothing falls
   * between the two (ReplayOverlap tells the live events the replay already held).
   */
  replayEvents(request: ReplayRequest, filter: EventFilter): Promise<ReplayResult>;
  /** Every committed event from any instance that passes `filter`, from now on; returns the unsubscribe. */
  subscribe(filter: EventFilter, listener: WatchdogEventListener): () => void;
  /** Listeners on this instance's feed. */
  readonly listenerCount: number;
}

/**
 * A watchdog event as other domains see it: what the feed (`WatchdogsApi.subscribe`) announces, in
 * the domain's own spelling (camelCase, typed severity, type, watchdog and asset). Alerts subscribe
 * to this and to nothing else of the watchdogs; the stored row (events.repository.ts) carries these
 * fields and a few of its own, so it is one of these as it is.
 */

import type { Severity } from './detectors/finding.ts';
import type { EventType, WatchdogName } from './registry.ts';

export type { Severity } from './detectors/finding.ts';
export { SEVERITIES } from './detectors/finding.ts';
export type { EventType, WatchdogName } from './registry.ts';
export { EVENT_TYPES, WATCHDOG_NAMES } from './registry.ts';

/** What an event is about; absent parts are unknown. */
export interface WatchdogEventAsset {
  readonly symbol: string;
  /** `equity`, `crypto`, `fx`, ... */
  readonly assetType: string;
  readonly name?: string;
  readonly market?: string;
  readonly exchange?: string;
  readonly currency?: string;
  /** For pair findings (a correlation break): the two symbols. */
  readonly pair?: readonly [string, string];
}

export interface WatchdogDomainEvent {
  /** Unique and time-sortable. */
  readonly id: string;
  readonly watchdog: WatchdogName;
  readonly eventType: EventType;
  readonly severity: Severity;
  /** Null for a market-wide event (an exchange outage). */
  readonly asset: WatchdogEventAsset | null;
  readonly description: string;
  /** The measured values and the thresholds they were compared with. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly occurredAt: Date;
}

export type WatchdogDomainEventListener = (event: WatchdogDomainEvent) => void | Promise<void>;

/**
 * The event an alert fires on and delivers: a watchdog event as the watchdogs announce it, or one
 * the alerts make themselves (a threshold crossed, a custom condition that started to hold, the
 * sample of a test-send).
 */
import {
  EVENT_TYPES,
  type EventType,
  type Severity,
  type WatchdogDomainEvent,
  type WatchdogEventAsset,
  type WatchdogName,
} from '../watchdogs/watchdog-event.ts';
import type { TriggerType } from './alert.model.ts';

/** The watchdogs' event types and the alerts' own triggers. */
export type AlertEventType = EventType | Exclude<TriggerType, 'watchdog_event'>;
export const ALERT_EVENT_TYPES: readonly AlertEventType[] = [
  ...EVENT_TYPES,
  'price_threshold',
  'volume_threshold',
  'custom_condition',
];

export type AlertEventAsset = WatchdogEventAsset;

export interface AlertEvent {
  /** Unique per source: one firing per alert and event id. */
  readonly id: string;
  readonly type: AlertEventType;
  readonly severity: Severity;
  readonly description: string;
  /** Null for a market-wide event (an outage, a condition matching several instruments). */
  readonly asset: AlertEventAsset | null;
  readonly occurredAt: Date;
  /** The emitting watchdog; null for the alerts' own triggers. */
  readonly watchdog: WatchdogName | null;
  /** The measured values (what a receiver can act on). */
  readonly data: Readonly<Record<string, unknown>>;
  /** The sample event of a test-send: no market event happened. */
  readonly sample: boolean;
}

export function alertEventOf(event: WatchdogDomainEvent): AlertEvent {
  return {
    id: event.id,
    type: event.eventType,
    severity: event.severity,
    description: event.description,
    asset: event.asset,
    occurredAt: event.occurredAt,
    watchdog: event.watchdog,
    data: event.data,
    sample: false,
  };
}

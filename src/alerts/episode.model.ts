/**
 * Episodes, notices and the firing record as the alerts domain sees them (pure; no I/O).
 *
 * An episode is one condition of one alert, from its first firing until it resolves. The
 * condition is named by its incident key (`incidentKey`): for a watchdog-event alert, the event's
 * type and asset (`volume_spike/AAPL`); for a threshold or condition alert, its trigger and symbol
 * (`price_threshold/AAPL`, `custom_condition/-`). The same key is PagerDuty's `dedup_key`
 * (`vigil/<alert id>/<incident key>`), so a trigger, its acknowledgement and its resolution reach
 * one incident. A grouped alert's notifications are about its group: `group/<group key>`.
 *
 * A notice is what one firing's deliveries say: an event, a group's events, an episode or group
 * that resolved, or one that somebody acknowledged.
 */
import type { Alert } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';

/**
 * `acknowledged`: its condition's episode was acknowledged, so it is not sent again until the
 * episode resolves; `grouped`: it joined its group, whose notification delivers it (alert_groups).
 */
export type FiringStatus =
  | 'fired'
  | 'cooldown'
  | 'rate_limited'
  | 'silenced'
  | 'acknowledged'
  | 'grouped'
  | 'test';

/**
 * What a firing's deliveries say (episode.model.ts): `event`, one event (every firing of an event);
 * `group`, a group's notification listing its events; `resolved`, an episode or group ended;
 * `acknowledged`, somebody acknowledged it (sent where the receiver tracks incidents: PagerDuty).
 */
export type FiringKind = 'event' | 'group' | 'resolved' | 'acknowledged';

/** The incident key of `event`'s condition for `alert` (see the file comment). */
export function incidentKeyOf(
  alert: Pick<Alert, 'trigger'>,
  event: Pick<AlertEvent, 'type' | 'asset'>,
): string {
  const trigger = alert.trigger;
  switch (trigger.type) {
    case 'watchdog_event':
      return `${event.type}/${event.asset?.symbol ?? '-'}`;
    default:
      return conditionIncidentKey(alert) ?? `${event.type}/-`;
  }
}

/** The incident key of a threshold or condition alert's one condition; null for a watchdog-event alert (one per event's condition). */
export function conditionIncidentKey(alert: Pick<Alert, 'trigger'>): string | null {
  const trigger = alert.trigger;
  if (trigger.type === 'watchdog_event') return null;
  return trigger.type === 'custom_condition' ? 'custom_condition/-' : `${trigger.type}/${trigger.symbol}`;
}

/** The incident key of a group's notifications. */
export function groupIncidentKey(groupKey: string): string {
  return `group/${groupKey}`;
}

/** How an episode ended: its condition cleared, it was not repeated for the resolve timeout, or somebody resolved it. */
export type ResolvedReason = 'cleared' | 'timeout' | 'manual';

export type EpisodeState = 'firing' | 'acknowledged' | 'resolved';

/** What one firing's deliveries say. */
export type Notice =
  | { readonly kind: 'event'; readonly incidentKey: string }
  | {
      readonly kind: 'group';
      readonly incidentKey: string;
      readonly groupKey: string;
      /** The group's label values ({watchdog, asset, event_type} as the alert groups by). */
      readonly labels: Readonly<Record<string, string>>;
      /** The events it reports, oldest first (at least one); the delivery's `event` is the newest. */
      readonly events: readonly AlertEvent[];
      /** Sent again after the repeat interval, with no new event since the last notification. */
      readonly repeat: boolean;
    }
  | {
      readonly kind: 'resolved';
      readonly incidentKey: string;
      readonly startedAt: Date;
      readonly resolvedAt: Date;
      readonly durationSeconds: number;
      readonly reason: ResolvedReason;
      /** Who resolved it (`manual`); null otherwise. */
      readonly by: string | null;
      readonly note: string | null;
    }
  | {
      readonly kind: 'acknowledged';
      readonly incidentKey: string;
      readonly by: string;
      readonly at: Date;
      readonly note: string | null;
    };

/** An episode as its record shows it. */
export interface Episode {
  readonly id: string;
  readonly alertId: string;
  readonly incidentKey: string;
  readonly state: EpisodeState;
  readonly startedAt: Date;
  readonly lastEventAt: Date;
  /** Firings of its condition so far (delivered or not). */
  readonly firings: number;
  readonly acknowledgedAt: Date | null;
  readonly acknowledgedBy: string | null;
  readonly acknowledgementNote: string | null;
  readonly resolvedAt: Date | null;
  readonly resolvedReason: ResolvedReason | null;
  readonly resolvedBy: string | null;
  readonly resolutionNote: string | null;
}

/** The state of an episode from its record's fields. */
export function episodeState(e: {
  readonly resolvedAt: Date | null;
  readonly acknowledgedAt: Date | null;
}): EpisodeState {
  if (e.resolvedAt) return 'resolved';
  return e.acknowledgedAt ? 'acknowledged' : 'firing';
}

/** Seconds from the episode's start to its end (or to `now` while it lasts). */
export function episodeDurationSeconds(
  e: { readonly startedAt: Date; readonly resolvedAt: Date | null },
  now: Date,
): number {
  const end = e.resolvedAt ?? now;
  return Math.max(0, Math.round((end.getTime() - e.startedAt.getTime()) / 1_000));
}

/** One firing of the record: an event that matched, or a notice (group, resolved, acknowledged). */
export interface Firing {
  readonly id: string;
  readonly alertId: string;
  readonly status: FiringStatus;
  readonly kind: FiringKind;
  /** The event it is about (a group's newest; a resolved episode's last). */
  readonly event: AlertEvent;
  readonly firedAt: Date;
  readonly silencedBy: string | null;
  /** Its condition's episode; null for test-sends, silenced firings and group notices. */
  readonly episode: Episode | null;
  /** A grouped alert's firing: its group's key; null otherwise. */
  readonly groupKey: string | null;
}

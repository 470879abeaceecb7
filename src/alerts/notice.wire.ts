/**
 * A notice's own data as a firing keeps it (`alert_firings.notice`), and the notice of a stored
 * firing. The firing of an event keeps none: its notice is the event's, under its alert's incident
 * key (episode.model.ts).
 */
import type { Alert } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { alertEventOfStored, alertEventWire, type StoredAlertEvent } from './alert-event.wire.ts';
import type { FiringKind } from './alerts.sql.ts';
import { incidentKeyOf, type Notice, type ResolvedReason } from './episode.model.ts';

export type StoredNotice =
  | {
      readonly incident_key: string;
      readonly group_key: string;
      readonly labels: Readonly<Record<string, string>>;
      readonly events: readonly StoredAlertEvent[];
      readonly repeat: boolean;
    }
  | {
      readonly incident_key: string;
      readonly started_at: string;
      readonly resolved_at: string;
      readonly duration_seconds: number;
      readonly reason: ResolvedReason;
      readonly by: string | null;
      readonly note: string | null;
    }
  | { readonly incident_key: string; readonly by: string; readonly at: string; readonly note: string | null };

/** The data a notice firing keeps; null for the firing of an event. */
export function storedNotice(notice: Notice): StoredNotice | null {
  switch (notice.kind) {
    case 'event':
      return null;
    case 'group':
      return {
        incident_key: notice.incidentKey,
        group_key: notice.groupKey,
        labels: notice.labels,
        events: notice.events.map(alertEventWire),
        repeat: notice.repeat,
      };
    case 'resolved':
      return {
        incident_key: notice.incidentKey,
        started_at: notice.startedAt.toISOString(),
        resolved_at: notice.resolvedAt.toISOString(),
        duration_seconds: notice.durationSeconds,
        reason: notice.reason,
        by: notice.by,
        note: notice.note,
      };
    case 'acknowledged':
      return {
        incident_key: notice.incidentKey,
        by: notice.by,
        at: notice.at.toISOString(),
        note: notice.note,
      };
  }
}

/** The notice of a stored firing of `kind`, about `event`, for `alert`. */
export function noticeOfStored(
  kind: FiringKind,
  stored: Readonly<Record<string, unknown>> | null,
  event: AlertEvent,
  alert: Pick<Alert, 'trigger'>,
): Notice {
  const s = (stored ?? {}) as Record<string, unknown>;
  const incidentKey = typeof s.incident_key === 'string' ? s.incident_key : incidentKeyOf(alert, event);
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  switch (kind) {
    case 'event':
      return { kind, incidentKey };
    case 'group': {
      const events = Array.isArray(s.events) ? (s.events as StoredAlertEvent[]).map(alertEventOfStored) : [];
      return {
        kind,
        incidentKey,
        groupKey: text(s.group_key) ?? '',
        labels: (s.labels as Record<string, string> | undefined) ?? {},
        events: events.length > 0 ? events : [event],
        repeat: s.repeat === true,
      };
    }
    case 'resolved':
      return {
        kind,
        incidentKey,
        startedAt: new Date(text(s.started_at) ?? event.occurredAt.toISOString()),
        resolvedAt: new Date(text(s.resolved_at) ?? event.occurredAt.toISOString()),
        durationSeconds: typeof s.duration_seconds === 'number' ? s.duration_seconds : 0,
        reason: (text(s.reason) as ResolvedReason | null) ?? 'cleared',
        by: text(s.by),
        note: text(s.note),
      };
    case 'acknowledged':
      return {
        kind,
        incidentKey,
        by: text(s.by) ?? '',
        at: new Date(text(s.at) ?? event.occurredAt.toISOString()),
        note: text(s.note),
      };
  }
}

import { alertEventWire } from '../alert-event.wire.ts';
import type { Notice } from '../episode.model.ts';
import type { DeliveryContext } from './types.ts';

/**
 * The webhook body, version 1 (documented for receivers):
 * {
 *   "alert_id": string, "alert_name": string,
 *   "event": { event_id, type, severity, description, asset: {symbol, asset_type, ...} | null,
 *              timestamp (ISO 8601), watchdog: string | null, data: object, metadata: object },
 *   "notice": what this delivery says, when it is more than the event (absent for an event):
 *     group:        { kind: "group", incident_key, group_key, labels: {watchdog?, asset?, event_type?},
 *                     repeat (true: a reminder, still firing), events: [event, ...] (oldest first) }
 *     resolved:     { kind: "resolved", incident_key, started_at, resolved_at, duration_seconds,
 *                     reason: "cleared" | "timeout" | "manual", by, note }
 *     acknowledged: { kind: "acknowledged", incident_key, by, at, note },
 *   "timestamp": ISO 8601 time of this attempt,
 *   "delivery_id": string, the same on every retry of one delivery (deduplicate on it),
 *   "test": boolean, true for a test-send (the alert did not fire)
 * }
 * `event` is always there, so a receiver written for events keeps working: a group's newest event,
 * a resolved episode's last one. A group's `events` are every event of the notification (no cut:
 * a receiver is a program, and the group's size is bounded where it is made).
 */
export function webhookBody(ctx: DeliveryContext): string {
  const notice = noticeWire(ctx.notice);
  return JSON.stringify({
    alert_id: ctx.alert.id,
    alert_name: ctx.alert.name,
    event: alertEventWire(ctx.event),
    ...(notice ? { notice } : {}),
    timestamp: ctx.now.toISOString(),
    delivery_id: ctx.deliveryId,
    test: ctx.test,
  });
}

/** The body's `notice`; none for an event (its body is as it always was). */
export function noticeWire(notice: Notice): Record<string, unknown> | null {
  switch (notice.kind) {
    case 'event':
      return null;
    case 'group':
      return {
        kind: 'group',
        incident_key: notice.incidentKey,
        group_key: notice.groupKey,
        labels: notice.labels,
        repeat: notice.repeat,
        events: notice.events.map(alertEventWire),
      };
    case 'resolved':
      return {
        kind: 'resolved',
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
        kind: 'acknowledged',
        incident_key: notice.incidentKey,
        by: notice.by,
        at: notice.at.toISOString(),
        note: notice.note,
      };
  }
}

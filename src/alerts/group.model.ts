/**
 * Grouping (Alertmanager's group_by, group_wait, group_interval, repeat_interval; the semantics
 * are in docs/alerts.md): a grouped alert's firings gather in groups keyed by the event's labels
 * the alert groups by, and each group notifies on its own schedule. Pure: the key of an event's
 * group, and when a group's next notification is due.
 */
import { type AlertGrouping, GROUP_LABELS, type GroupLabel } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';

export interface GroupIdentity {
  /** `watchdog=volume_spike,asset=AAPL`; `*` when the alert groups by nothing (one group). */
  readonly key: string;
  readonly labels: Readonly<Record<string, string>>;
}

function labelValue(label: GroupLabel, event: Pick<AlertEvent, 'watchdog' | 'asset' | 'type'>): string {
  switch (label) {
    case 'watchdog':
      return event.watchdog ?? '-';
    case 'asset':
      return event.asset?.symbol ?? '-';
    case 'event_type':
      return event.type;
  }
}

/** The group `event` joins: its labels in a fixed order (watchdog, asset, event type). */
export function groupOf(
  grouping: Pick<AlertGrouping, 'groupBy'>,
  event: Pick<AlertEvent, 'watchdog' | 'asset' | 'type'>,
): GroupIdentity {
  const labels: Record<string, string> = {};
  for (const label of GROUP_LABELS) {
    if (grouping.groupBy.includes(label)) labels[label] = labelValue(label, event);
  }
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  return { key: parts.length > 0 ? parts.join(',') : '*', labels };
}

/** The state of a group that decides when it notifies next. */
export interface GroupSchedule {
  readonly createdAt: Date;
  readonly lastSentAt: Date | null;
}

/**
 * When a group must notify after a new event joins it at `now`: a new group (nothing sent yet) at
 * its creation plus group_wait; one already notified no sooner than group_interval after its last
 * notification (and never before now). `current`, a notification already due, is kept when sooner.
 */
export function flushAfterEvent(
  grouping: AlertGrouping,
  group: GroupSchedule,
  current: Date | null,
  now: Date,
): Date {
  const due = group.lastSentAt
    ? new Date(group.lastSentAt.getTime() + grouping.groupIntervalSeconds * 1_000)
    : new Date(group.createdAt.getTime() + grouping.groupWaitSeconds * 1_000);
  const next = due.getTime() < now.getTime() ? now : due;
  return current && current.getTime() < next.getTime() ? current : next;
}

/** When a group notified at `sentAt`, with nothing new, is reminded (repeat_interval). */
export function repeatAfter(grouping: AlertGrouping, sentAt: Date): Date {
  return new Date(sentAt.getTime() + grouping.repeatIntervalSeconds * 1_000);
}

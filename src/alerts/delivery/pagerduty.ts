/**
 * PagerDuty delivery: an Events API v2 event (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/)
 * POSTed to PAGERDUTY_EVENTS_URL. A trigger (an event, a group's notification):
 * {
 *   "routing_key": the integration's key, "event_action": "trigger",
 *   "dedup_key": "vigil/<alert id>/<incident key>": one incident per alert and condition (the
 *     notice's incident key: `<event type>/<asset or ->` for a watchdog event, `<trigger>/<symbol>`
 *     for a threshold, `group/<group key>` for a group), so a repeat while the incident is open
 *     joins it instead of paging again, and its acknowledgement and resolution reach it,
 *   "payload": { "summary": ≤ 1024 characters, "source": "vigil", "severity": critical | error |
 *     warning | info (from critical, high, medium, low), "timestamp": the event's time,
 *     "component": the asset (or the watchdog), "group": the watchdog, "class": the event type,
 *     "custom_details": { alert_id, alert_name, event_id, description, data } },
 *   "client": "Vigil"
 * }
 * A group's trigger: summary `<title>: 5 events: volume_spike on AAPL (3), ...`, severity the
 * group's worst, timestamp the newest event's, component/group/class from the group's labels
 * (asset, watchdog, event_type; else `market`, `alerts`, `group`), custom_details { alert_id,
 * alert_name, group_key, labels, repeat, events: one line per event (oldest first, `and N more`
 * when cut to stay under 512 KB), event_count }.
 * A resolution (`resolved` notice) is `{routing_key, event_action: "resolve", dedup_key}` and an
 * acknowledgement `{routing_key, event_action: "acknowledge", dedup_key}`, the Events API's bodies
 * for both, with the dedup key of the incident they end or acknowledge.
 * PagerDuty refuses an event over 512 KB: the description is cut with an ellipsis (64 KB) and, if
 * still over, the data is left out. PagerDuty answers 202 {status: "success", dedup_key}; 429 is
 * retried at its Retry-After (or the runner's backoff), 400 (an invalid event) is final.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import { postToHook } from './hook-post.ts';
import {
  clip,
  eventOneLiner,
  fitCount,
  type GroupNotice,
  groupHeadline,
  highestSeverity,
  keptLines,
  moreLine,
  noticeTitle,
} from './notice-text.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const PAGERDUTY_LIMITS = {
  summary: 1_024,
  dedupKey: 255,
  description: 64 * 1024,
  bytes: 512 * 1024,
} as const;

const SEVERITY: Readonly<Record<Severity, string>> = {
  critical: 'critical',
  high: 'error',
  medium: 'warning',
  low: 'info',
};

export interface PagerDutyTarget {
  readonly eventsUrl: string;
  readonly routingKey: string;
}

/** One incident per alert and condition: the notice's incident key (episode.model.ts). */
export function dedupKey(ctx: DeliveryContext): string {
  return clip(`vigil/${ctx.alert.id}/${ctx.notice.incidentKey}`, PAGERDUTY_LIMITS.dedupKey);
}

const tooBig = (body: unknown) => Buffer.byteLength(JSON.stringify(body)) > PAGERDUTY_LIMITS.bytes;

export function pagerDutyEvent(routingKey: string, ctx: DeliveryContext): Record<string, unknown> {
  const { notice } = ctx;
  switch (notice.kind) {
    case 'event':
      return eventTrigger(routingKey, ctx);
    case 'group':
      return groupTrigger(routingKey, ctx, notice);
    case 'resolved':
      return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey(ctx) };
    case 'acknowledged':
      return { routing_key: routingKey, event_action: 'acknowledge', dedup_key: dedupKey(ctx) };
  }
}

function eventTrigger(routingKey: string, ctx: DeliveryContext): Record<string, unknown> {
  const { alert, event } = ctx;
  const description = event.description || alert.description || alert.name;
  const details: Record<string, unknown> = {
    alert_id: alert.id,
    alert_name: alert.name,
    event_id: event.id,
    description: clip(description, PAGERDUTY_LIMITS.description),
    data: event.data,
  };
  const body = {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey(ctx),
    client: 'Vigil',
    payload: {
      summary: clip(`${ctx.test ? '[test] ' : ''}${alert.name}: ${description}`, PAGERDUTY_LIMITS.summary),
      source: 'vigil',
      severity: SEVERITY[event.severity],
      timestamp: event.occurredAt.toISOString(),
      component: event.asset?.symbol ?? event.watchdog ?? 'market',
      group: event.watchdog ?? 'alerts',
      class: event.type,
      custom_details: details,
    },
  };
  if (tooBig(body)) details.data = '(left out: over 512 KB)';
  return body;
}

function groupTrigger(
  routingKey: string,
  ctx: DeliveryContext,
  notice: GroupNotice,
): Record<string, unknown> {
  const { alert, event } = ctx;
  const lines = notice.events.map(eventOneLiner);
  const body = (events: readonly string[]) => ({
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey(ctx),
    client: 'Vigil',
    payload: {
      summary: clip(
        `${noticeTitle(alert.name, notice, ctx.test)}: ${groupHeadline(notice)}`,
        PAGERDUTY_LIMITS.summary,
      ),
      source: 'vigil',
      severity: SEVERITY[highestSeverity(notice.events)],
      timestamp: event.occurredAt.toISOString(),
      // A group of events about no asset has the asset label `-`.
      component: (notice.labels.asset !== '-' && notice.labels.asset) || notice.labels.watchdog || 'market',
      group: notice.labels.watchdog ?? 'alerts',
      class: notice.labels.event_type ?? 'group',
      custom_details: {
        alert_id: alert.id,
        alert_name: alert.name,
        group_key: notice.groupKey,
        labels: notice.labels,
        repeat: notice.repeat,
        event_count: notice.events.length,
        events,
      },
    },
  });
  const count = fitCount(lines, (kept, left) => !tooBig(body(left ? [...kept, moreLine(left)] : kept)));
  return body(keptLines(lines, count));
}

export function sendPagerDuty(
  target: PagerDutyTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const body = JSON.stringify(pagerDutyEvent(target.routingKey, ctx));
  // The key is in the body, not the URL; keep it out of outcome texts all the same.
  return postToHook({ channel: 'pagerduty', url: target.eventsUrl, body }, ctx, options).then((outcome) =>
    outcome.status === 'delivered'
      ? outcome
      : { ...outcome, error: outcome.error.split(target.routingKey).join('[redacted]') },
  );
}

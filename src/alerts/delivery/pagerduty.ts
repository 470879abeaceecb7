/**
 * PagerDuty delivery: a trigger of the Events API v2 (https://developer.pagerduty.com/docs/events-api-v2/trigger-events/)
 * POSTed to PAGERDUTY_EVENTS_URL:
 * {
 *   "routing_key": the integration's key, "event_action": "trigger",
 *   "dedup_key": "vigil/<alert id>/<event type>/<asset or ->": one incident per alert and condition
 *     (a repeat of the same condition while the incident is open joins it instead of paging again),
 *   "payload": { "summary": ≤ 1024 characters, "source": "vigil", "severity": critical | error |
 *     warning | info (from critical, high, medium, low), "timestamp": the event's time,
 *     "component": the asset (or the watchdog), "group": the watchdog, "class": the event type,
 *     "custom_details": { alert_id, alert_name, event_id, description, data } },
 *   "client": "Vigil"
 * }
 * PagerDuty refuses an event over 512 KB: the description is cut with an ellipsis (64 KB) and, if
 * still over, the data is left out. PagerDuty answers 202 {status: "success", dedup_key}; 429 is
 * retried at its Retry-After (or the runner's backoff), 400 (an invalid event) is final.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import { postToHook } from './hook-post.ts';
import { clip } from './slack.ts';
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

/** One incident per alert and condition: the event type and the asset it is about. */
export function dedupKey(ctx: DeliveryContext): string {
  const { alert, event } = ctx;
  return clip(`vigil/${alert.id}/${event.type}/${event.asset?.symbol ?? '-'}`, PAGERDUTY_LIMITS.dedupKey);
}

export function pagerDutyEvent(routingKey: string, ctx: DeliveryContext): Record<string, unknown> {
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
  if (Buffer.byteLength(JSON.stringify(body)) > PAGERDUTY_LIMITS.bytes)
    details.data = '(left out: over 512 KB)';
  return body;
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

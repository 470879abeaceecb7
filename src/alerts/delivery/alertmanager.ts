/**
 * Alertmanager delivery: the body Prometheus Alertmanager's webhook receiver sends (version 4,
 * https://prometheus.io/docs/alerting/latest/configuration/#webhook_config), so anything built for
 * Alertmanager (an incident tool, a bridge, a chat relay) takes Vigil's alerts as they are:
 * {
 *   "version": "4", "groupKey": "{}:{alertname=\"<alert id>\"}", "truncatedAlerts": 0,
 *   "status": "firing", "receiver": "vigil", "groupLabels": { "alertname": <alert id> },
 *   "commonLabels": the alert's labels, "commonAnnotations": its annotations, "externalURL": "",
 *   "alerts": [ { "status": "firing",
 *     "labels": { alertname, alert_name, severity, event_type, asset?, watchdog? },
 *     "annotations": { summary: <alert name>, description: <event description> },
 *     "startsAt": the event's time, "endsAt": "0001-01-01T00:00:00Z" (not resolved),
 *     "generatorURL": "/api/alerts/<alert id>", "fingerprint": 16 hex digits of the labels } ]
 * }
 * One firing is one alert (no grouping yet). The body is bounded (the description at 64 KB, as
 * Alertmanager truncates nothing itself but receivers do). POSTed with the guards of every HTTP
 * channel: 2xx delivered; 408, 429 (at its Retry-After) and 5xx retried; other 4xx final.
 */
import { createHash } from 'node:crypto';
import type { AlertmanagerConfig } from '../alert.model.ts';
import { postToHook } from './hook-post.ts';
import { clip } from './slack.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const ALERTMANAGER_LIMITS = { description: 64 * 1024, label: 1_024 } as const;

/** Zero time: Alertmanager's "not resolved yet". */
const NOT_ENDED = '0001-01-01T00:00:00Z';

function labelsOf(ctx: DeliveryContext): Record<string, string> {
  const { alert, event } = ctx;
  const labels: Record<string, string> = {
    alertname: alert.id,
    alert_name: alert.name,
    severity: event.severity,
    event_type: event.type,
  };
  if (event.asset) labels.asset = event.asset.symbol;
  if (event.watchdog) labels.watchdog = event.watchdog;
  return Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, clip(v, ALERTMANAGER_LIMITS.label)]));
}

/** As Alertmanager's: a hash of the sorted label set, so one condition keeps one fingerprint. */
export function fingerprint(labels: Readonly<Record<string, string>>): string {
  const text = Object.keys(labels)
    .sort()
    .map((k) => `${k}\u00ff${labels[k]}\u00ff`)
    .join('');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export function alertmanagerBody(ctx: DeliveryContext): Record<string, unknown> {
  const { alert, event } = ctx;
  const labels = labelsOf(ctx);
  const description = event.description || alert.description || alert.name;
  const annotations = {
    summary: clip(`${ctx.test ? '[test] ' : ''}${alert.name}`, ALERTMANAGER_LIMITS.label),
    description: clip(description, ALERTMANAGER_LIMITS.description),
  };
  return {
    version: '4',
    groupKey: `{}:{alertname=${JSON.stringify(alert.id)}}`,
    truncatedAlerts: 0,
    status: 'firing',
    receiver: 'vigil',
    groupLabels: { alertname: labels.alertname },
    commonLabels: labels,
    commonAnnotations: annotations,
    externalURL: '',
    alerts: [
      {
        status: 'firing',
        labels,
        annotations,
        startsAt: event.occurredAt.toISOString(),
        endsAt: NOT_ENDED,
        generatorURL: `/api/alerts/${encodeURIComponent(alert.id)}`,
        fingerprint: fingerprint(labels),
      },
    ],
  };
}

export function sendAlertmanager(
  config: AlertmanagerConfig,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const body = JSON.stringify(alertmanagerBody(ctx));
  return postToHook({ channel: 'alertmanager receiver', url: config.url, body }, ctx, options);
}

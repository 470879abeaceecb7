/**
 * Alertmanager delivery: the body Prometheus Alertmanager's webhook receiver sends (version 4,
 * https://prometheus.io/docs/alerting/latest/configuration/#webhook_config), so anything built for
 * Alertmanager (an incident tool, a bridge, a chat relay) takes Vigil's alerts as they are:
 * {
 *   "version": "4", "groupKey": "{}:{alertname=\"<alert id>\"}", "truncatedAlerts": 0,
 *   "status": "firing", "receiver": "vigil", "groupLabels": { "alertname": <alert id> },
 *   "commonLabels": the labels every alert has, "commonAnnotations": likewise, "externalURL": "",
 *   "alerts": [ { "status": "firing",
 *     "labels": { alertname, alert_name, severity, event_type, asset?, watchdog? },
 *     "annotations": { summary: <alert name>, description: <event description> },
 *     "startsAt": the event's time, "endsAt": "0001-01-01T00:00:00Z" (not resolved),
 *     "generatorURL": "/api/alerts/<alert id>", "fingerprint": 16 hex digits of the labels } ]
 * }
 * By notice:
 * - `event`: one alert, the event.
 * - `group`: one alert per event (oldest first, each with its own labels and fingerprint, its
 *   description cut at 4 KB), at most 100, the rest counted in `truncatedAlerts` as Alertmanager's
 *   `max_alerts` does; `groupLabels` {alertname, ...the group's labels} and `groupKey`
 *   `{}:{alertname="<id>", asset="AAPL", ...}` (sorted, as Alertmanager spells it).
 * - `resolved`: `status: "resolved"`, one alert `status: "resolved"` with the episode's last
 *   event's labels (its fingerprint is the firing's) and `startsAt`/`endsAt` the episode's start
 *   and end; a group's resolution has the group's labels instead (the notice lists no events).
 *   Annotations: summary `[RESOLVED] <name>`, description `Resolved after 12m 30s (<reason>)`.
 * - `acknowledged` (not normally sent): one firing alert, description `Acknowledged by <who>: <note>`.
 * The body is bounded (the description at 64 KB, each label at 1024, a group's alerts as above),
 * as Alertmanager truncates nothing itself but receivers do. POSTed with the guards of every HTTP
 * channel: 2xx delivered; 408, 429 (at its Retry-After) and 5xx retried; other 4xx final.
 */
import { createHash } from 'node:crypto';
import type { AlertmanagerConfig } from '../alert.model.ts';
import type { AlertEvent } from '../alert-event.model.ts';
import { postToHook } from './hook-post.ts';
import { acknowledgedLine, clip, noticeTitle, resolvedLine } from './notice-text.ts';
import type { DeliveryAlert, DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const ALERTMANAGER_LIMITS = {
  description: 64 * 1024,
  label: 1_024,
  /** A group's alerts in one body (Alertmanager's `max_alerts`: the rest are `truncatedAlerts`). */
  alerts: 100,
  /** Each of a group's alerts' descriptions. */
  groupDescription: 4 * 1024,
} as const;

/** Zero time: Alertmanager's "not resolved yet". */
const NOT_ENDED = '0001-01-01T00:00:00Z';

type Labels = Record<string, string>;

const bounded = (labels: Labels): Labels =>
  Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, clip(v, ALERTMANAGER_LIMITS.label)]));

function labelsOf(alert: DeliveryAlert, event: AlertEvent): Labels {
  const labels: Labels = {
    alertname: alert.id,
    alert_name: alert.name,
    severity: event.severity,
    event_type: event.type,
  };
  if (event.asset) labels.asset = event.asset.symbol;
  if (event.watchdog) labels.watchdog = event.watchdog;
  return bounded(labels);
}

/** As Alertmanager's: a hash of the sorted label set, so one condition keeps one fingerprint. */
export function fingerprint(labels: Readonly<Record<string, string>>): string {
  const text = Object.keys(labels)
    .sort()
    .map((k) => `${k}\u00ff${labels[k]}\u00ff`)
    .join('');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** `{}:{alertname="a-1", asset="AAPL"}`: the root route's key and the sorted group labels. */
export function groupKeyOf(groupLabels: Readonly<Record<string, string>>): string {
  const pairs = Object.keys(groupLabels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(groupLabels[k])}`);
  return `{}:{${pairs.join(', ')}}`;
}

/** The labels of a group key (`watchdog=volume_spike,asset=AAPL`; `*` for none) in `group/<key>`. */
function labelsOfGroupIncident(incidentKey: string): Labels | null {
  if (!incidentKey.startsWith('group/')) return null;
  const key = incidentKey.slice('group/'.length);
  if (key === '*' || key === '') return {};
  const labels: Labels = {};
  for (const pair of key.split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}

interface Entry {
  status: 'firing' | 'resolved';
  labels: Labels;
  annotations: Labels;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
}

function entry(
  ctx: DeliveryContext,
  labels: Labels,
  annotations: Labels,
  startsAt: Date,
  endsAt: Date | null,
): Entry {
  return {
    status: endsAt ? 'resolved' : 'firing',
    labels,
    annotations,
    startsAt: startsAt.toISOString(),
    endsAt: endsAt ? endsAt.toISOString() : NOT_ENDED,
    generatorURL: `/api/alerts/${encodeURIComponent(ctx.alert.id)}`,
    fingerprint: fingerprint(labels),
  };
}

/** The label (or annotation) pairs every entry has alike, as Alertmanager's common labels. */
function common(sets: readonly Labels[]): Labels {
  const [first, ...rest] = sets;
  if (!first) return {};
  return Object.fromEntries(Object.entries(first).filter(([k, v]) => rest.every((set) => set[k] === v)));
}

function entriesOf(ctx: DeliveryContext): { entries: Entry[]; groupLabels: Labels; truncated: number } {
  const { alert, event, notice } = ctx;
  const summary = clip(noticeTitle(alert.name, notice, ctx.test), ALERTMANAGER_LIMITS.label);
  const describe = (text: string, max: number) => clip(text || alert.description || alert.name, max);
  const byAlert = { alertname: alert.id };
  switch (notice.kind) {
    case 'event': {
      const annotations = {
        summary,
        description: describe(event.description, ALERTMANAGER_LIMITS.description),
      };
      return {
        entries: [entry(ctx, labelsOf(alert, event), annotations, event.occurredAt, null)],
        groupLabels: byAlert,
        truncated: 0,
      };
    }
    case 'group': {
      const kept = notice.events.slice(0, ALERTMANAGER_LIMITS.alerts);
      const entries = kept.map((e) =>
        entry(
          ctx,
          labelsOf(alert, e),
          {
            summary: clip(alert.name, ALERTMANAGER_LIMITS.label),
            description: describe(e.description, ALERTMANAGER_LIMITS.groupDescription),
          },
          e.occurredAt,
          null,
        ),
      );
      return {
        entries,
        groupLabels: bounded({ ...notice.labels, ...byAlert }),
        truncated: notice.events.length - kept.length,
      };
    }
    case 'resolved': {
      const ofGroup = labelsOfGroupIncident(notice.incidentKey);
      const labels = ofGroup
        ? bounded({ ...ofGroup, alert_name: alert.name, ...byAlert })
        : labelsOf(alert, event);
      const annotations = { summary, description: resolvedLine(notice) };
      return {
        entries: [entry(ctx, labels, annotations, notice.startedAt, notice.resolvedAt)],
        groupLabels: ofGroup ? bounded({ ...ofGroup, ...byAlert }) : byAlert,
        truncated: 0,
      };
    }
    case 'acknowledged': {
      const annotations = { summary, description: acknowledgedLine(notice) };
      return {
        entries: [entry(ctx, labelsOf(alert, event), annotations, event.occurredAt, null)],
        groupLabels: byAlert,
        truncated: 0,
      };
    }
  }
}

export function alertmanagerBody(ctx: DeliveryContext): Record<string, unknown> {
  const { entries, groupLabels, truncated } = entriesOf(ctx);
  return {
    version: '4',
    groupKey: groupKeyOf(groupLabels),
    truncatedAlerts: truncated,
    status: ctx.notice.kind === 'resolved' ? 'resolved' : 'firing',
    receiver: 'vigil',
    groupLabels,
    commonLabels: common(entries.map((e) => e.labels)),
    commonAnnotations: common(entries.map((e) => e.annotations)),
    externalURL: '',
    alerts: entries,
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

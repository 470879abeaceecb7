/**
 * Slack delivery: a Block Kit message POSTed to an incoming webhook
 * (https://api.slack.com/messaging/webhooks):
 * {
 *   "text": the notification's plain text (what notifications and old clients show),
 *   "blocks": [
 *     { "type": "header", "text": { "type": "plain_text", "text": title } },
 *     { "type": "section", "text": { "type": "mrkdwn", "text": lead },
 *       "fields": [ { "type": "mrkdwn", "text": "*Severity*\nhigh" }, ... ] },
 *     ...a group's event sections,
 *     { "type": "context", "elements": [ { "type": "mrkdwn", "text": alert id, delivery id, time } ] }
 *   ]
 * }
 * By notice (the words are notice-text.ts's):
 * - `event`: title the alert's name, lead the event's description, fields Severity, Event, Asset,
 *   Watchdog, Occurred and the event's data; text `<name> (<severity>): <description>`.
 * - `group`: title `[still firing] <name> (<labels>)`, lead the headline (`5 events: ...`), fields
 *   the group's labels; then sections of one line per event (oldest first), at most 10 sections,
 *   the last line `and N more` when cut; text `<title>: <headline>`.
 * - `resolved`: title `[RESOLVED] <name>`, lead `Resolved after 12m 30s (<reason>)`, fields
 *   Started, Resolved, Duration, Incident. Block Kit has no colour; the title says it.
 * - `acknowledged`: title `[ACKNOWLEDGED] <name>`, lead `Acknowledged by <who>: <note>`.
 * Slack's limits are kept by cutting with an ellipsis: header 150 characters, section and context
 * text 3000, at most 10 fields of 2000 each, at most 50 blocks, the top-level text 3000. Slack
 * answers 200 `ok`; 429 with Retry-After when the webhook posts more than about one message a
 * second (retried then, as every HTTP channel); 4xx names the problem (`invalid_payload`).
 */
import { postToHook } from './hook-post.ts';
import {
  acknowledgedLine,
  clip,
  eventOneLiner,
  fitCount,
  groupHeadline,
  moreLine,
  noticeTitle,
  packLines,
  resolvedLine,
  resolvedTimes,
  timeText,
} from './notice-text.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const SLACK_LIMITS = {
  headerText: 150,
  sectionText: 3_000,
  fieldText: 2_000,
  fields: 10,
  contextText: 3_000,
  blocks: 50,
  text: 3_000,
  /** A group's event lines fill at most this many sections (a readable message, far under 50 blocks). */
  eventSections: 10,
} as const;

export interface SlackTarget {
  readonly url: string;
}

export { clip };

/** `&`, `<` and `>` are Slack's control characters in mrkdwn. */
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const mrkdwn = (text: string, max: number) => ({ type: 'mrkdwn', text: clip(escaped(text), max) });

function eventFields(ctx: DeliveryContext): Array<readonly [string, string]> {
  const { event } = ctx;
  const fields: Array<readonly [string, string]> = [
    ['Severity', event.severity],
    ['Event', event.type],
  ];
  if (event.asset) fields.push(['Asset', event.asset.symbol]);
  if (event.watchdog) fields.push(['Watchdog', event.watchdog]);
  fields.push(['Occurred', event.occurredAt.toISOString()]);
  for (const [key, value] of Object.entries(event.data)) fields.push([key, JSON.stringify(value) ?? '']);
  return fields;
}

/** The title, lead, fields and plain text of a notice (a group's event lines apart). */
function summaryOf(ctx: DeliveryContext): {
  title: string;
  lead: string;
  fields: Array<readonly [string, string]>;
  text: string;
} {
  const { alert, event, notice } = ctx;
  const title = noticeTitle(alert.name, notice, ctx.test);
  switch (notice.kind) {
    case 'event': {
      const lead = event.description || alert.description || alert.name;
      return { title, lead, fields: eventFields(ctx), text: `${title} (${event.severity}): ${lead}` };
    }
    case 'group': {
      const lead = groupHeadline(notice);
      return { title, lead, fields: Object.entries(notice.labels), text: `${title}: ${lead}` };
    }
    case 'resolved': {
      const lead = resolvedLine(notice);
      const fields: Array<readonly [string, string]> = [
        ...resolvedTimes(notice),
        ['Incident', notice.incidentKey],
      ];
      return { title, lead, fields, text: `${title}: ${lead}` };
    }
    case 'acknowledged': {
      const lead = acknowledgedLine(notice);
      const fields: Array<readonly [string, string]> = [
        ['At', timeText(notice.at)],
        ['Incident', notice.incidentKey],
      ];
      return { title, lead, fields, text: `${title}: ${lead}` };
    }
  }
}

/** A group's events, one line each, in at most `eventSections` sections; `and N more` when cut. */
function eventSections(ctx: DeliveryContext): Array<Record<string, unknown>> {
  if (ctx.notice.kind !== 'group') return [];
  const lines = ctx.notice.events.map((event) => escaped(eventOneLiner(event)));
  const pack = (kept: readonly string[], left: number) =>
    packLines(left ? [...kept, moreLine(left)] : kept, SLACK_LIMITS.sectionText);
  const count = fitCount(lines, (kept, left) => pack(kept, left).length <= SLACK_LIMITS.eventSections);
  return pack(lines.slice(0, count), lines.length - count).map((text) => ({
    type: 'section',
    text: { type: 'mrkdwn', text },
  }));
}

export function slackMessage(ctx: DeliveryContext): Record<string, unknown> {
  const { alert } = ctx;
  const { title, lead, fields, text } = summaryOf(ctx);
  const context = `Vigil alert \`${alert.id}\` · delivery ${ctx.deliveryId} · ${ctx.now.toISOString()}`;
  const section: Record<string, unknown> = { type: 'section', text: mrkdwn(lead, SLACK_LIMITS.sectionText) };
  // Slack refuses an empty `fields` (a group by nothing has no labels).
  if (fields.length > 0)
    section.fields = fields
      .slice(0, SLACK_LIMITS.fields)
      .map(([name, value]) => mrkdwn(`*${name}*\n${value}`, SLACK_LIMITS.fieldText));
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: clip(title, SLACK_LIMITS.headerText), emoji: true } },
    section,
    ...eventSections(ctx),
    { type: 'context', elements: [mrkdwn(context, SLACK_LIMITS.contextText)] },
  ];
  return { text: clip(text, SLACK_LIMITS.text), blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

export function sendSlack(
  target: SlackTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  return postToHook(
    { channel: 'slack', url: target.url, body: JSON.stringify(slackMessage(ctx)) },
    ctx,
    options,
  );
}

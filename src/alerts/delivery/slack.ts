/**
 * Slack delivery: a Block Kit message POSTed to an incoming webhook
 * (https://api.slack.com/messaging/webhooks):
 * {
 *   "text": the notification's plain text (what notifications and old clients show),
 *   "blocks": [
 *     { "type": "header", "text": { "type": "plain_text", "text": alert name } },
 *     { "type": "section", "text": { "type": "mrkdwn", "text": event description },
 *       "fields": [ { "type": "mrkdwn", "text": "*Severity*\nhigh" }, ... ] },
 *     { "type": "context", "elements": [ { "type": "mrkdwn", "text": alert id, delivery id, time } ] }
 *   ]
 * }
 * Slack's limits are kept by cutting with an ellipsis: header 150 characters, section and context
 * text 3000, at most 10 fields of 2000 each, at most 50 blocks, the top-level text 3000. Slack
 * answers 200 `ok`; 429 with Retry-After when the webhook posts more than about one message a
 * second (retried then, as every HTTP channel); 4xx names the problem (`invalid_payload`).
 */
import { postToHook } from './hook-post.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const SLACK_LIMITS = {
  headerText: 150,
  sectionText: 3_000,
  fieldText: 2_000,
  fields: 10,
  contextText: 3_000,
  blocks: 50,
  text: 3_000,
} as const;

export interface SlackTarget {
  readonly url: string;
}

/** `text` cut to `max` characters (code points), the last one an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** `&`, `<` and `>` are Slack's control characters in mrkdwn. */
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const mrkdwn = (text: string, max: number) => ({ type: 'mrkdwn', text: clip(escaped(text), max) });

function eventFields(ctx: DeliveryContext): Array<[string, string]> {
  const { event } = ctx;
  const fields: Array<[string, string]> = [
    ['Severity', event.severity],
    ['Event', event.type],
  ];
  if (event.asset) fields.push(['Asset', event.asset.symbol]);
  if (event.watchdog) fields.push(['Watchdog', event.watchdog]);
  fields.push(['Occurred', event.occurredAt.toISOString()]);
  for (const [key, value] of Object.entries(event.data)) fields.push([key, JSON.stringify(value) ?? '']);
  return fields.slice(0, SLACK_LIMITS.fields);
}

export function slackMessage(ctx: DeliveryContext): Record<string, unknown> {
  const { alert, event } = ctx;
  const title = `${ctx.test ? '[test] ' : ''}${alert.name}`;
  const description = event.description || alert.description || alert.name;
  const context = `Vigil alert \`${alert.id}\` · delivery ${ctx.deliveryId} · ${ctx.now.toISOString()}`;
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: clip(title, SLACK_LIMITS.headerText), emoji: true } },
    {
      type: 'section',
      text: mrkdwn(description, SLACK_LIMITS.sectionText),
      fields: eventFields(ctx).map(([name, value]) => mrkdwn(`*${name}*\n${value}`, SLACK_LIMITS.fieldText)),
    },
    { type: 'context', elements: [mrkdwn(context, SLACK_LIMITS.contextText)] },
  ];
  return {
    text: clip(`${title} (${event.severity}): ${description}`, SLACK_LIMITS.text),
    blocks: blocks.slice(0, SLACK_LIMITS.blocks),
  };
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

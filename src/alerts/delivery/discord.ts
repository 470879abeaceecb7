/**
 * Discord delivery: one embed POSTed to a webhook (https://discord.com/developers/docs/resources/webhook):
 * {
 *   "username": "Vigil",
 *   "content": the notification's plain text (`<name> (<severity>)`),
 *   "allowed_mentions": { "parse": [] }   (an event's text never pings anyone),
 *   "embeds": [ { "title": alert name, "description": event description,
 *                 "color": by severity (critical red, high orange, medium yellow, low blue),
 *                 "fields": [ { "name": "Severity", "value": "critical", "inline": true }, ... ],
 *                 "footer": { "text": alert id and delivery id }, "timestamp": the event's time } ]
 * }
 * Discord's limits are kept by cutting with an ellipsis: content 2000 characters, title 256,
 * description 4096, at most 25 fields (name 256, value 1024), footer 2048, and 6000 for the
 * embed's text together (the description gives way first, then the fields). Discord answers 204;
 * 429 with Retry-After (retried then, as every HTTP channel); 4xx names the problem.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import { postToHook } from './hook-post.ts';
import { clip } from './slack.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const DISCORD_LIMITS = {
  content: 2_000,
  title: 256,
  description: 4_096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1_024,
  footer: 2_048,
  total: 6_000,
} as const;

export const SEVERITY_COLOURS: Readonly<Record<Severity, number>> = {
  critical: 0xd32f2f,
  high: 0xf57c00,
  medium: 0xfbc02d,
  low: 0x1976d2,
};

export interface DiscordTarget {
  readonly url: string;
}

interface Field {
  name: string;
  value: string;
  inline: boolean;
}

const length = (text: string) => [...text].length;

function eventFields(ctx: DeliveryContext): Field[] {
  const { event } = ctx;
  const pairs: Array<[string, string]> = [
    ['Severity', event.severity],
    ['Event', event.type],
  ];
  if (event.asset) pairs.push(['Asset', event.asset.symbol]);
  if (event.watchdog) pairs.push(['Watchdog', event.watchdog]);
  for (const [key, value] of Object.entries(event.data)) pairs.push([key, JSON.stringify(value) ?? 'null']);
  return pairs.slice(0, DISCORD_LIMITS.fields).map(([name, value]) => ({
    name: clip(name, DISCORD_LIMITS.fieldName),
    value: clip(value || '-', DISCORD_LIMITS.fieldValue),
    inline: true,
  }));
}

/** The embed within its 6000 characters: the description is cut first, then fields dropped from the end. */
function withinTotal(title: string, description: string, fields: Field[], footer: string) {
  const fixed = length(title) + length(footer);
  const fieldChars = (list: Field[]) => list.reduce((n, f) => n + length(f.name) + length(f.value), 0);
  const kept = [...fields];
  while (kept.length > 0 && fixed + fieldChars(kept) > DISCORD_LIMITS.total - 1) kept.pop();
  const room = DISCORD_LIMITS.total - fixed - fieldChars(kept);
  return { description: clip(description, Math.max(1, room)), fields: kept };
}

export function discordMessage(ctx: DeliveryContext): Record<string, unknown> {
  const { alert, event } = ctx;
  const title = clip(`${ctx.test ? '[test] ' : ''}${alert.name}`, DISCORD_LIMITS.title);
  const footer = clip(`Vigil alert ${alert.id} · delivery ${ctx.deliveryId}`, DISCORD_LIMITS.footer);
  const text = clip(event.description || alert.description || alert.name, DISCORD_LIMITS.description);
  const { description, fields } = withinTotal(title, text, eventFields(ctx), footer);
  return {
    username: 'Vigil',
    content: clip(`${title} (${event.severity})`, DISCORD_LIMITS.content),
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title,
        description,
        color: SEVERITY_COLOURS[event.severity],
        fields,
        footer: { text: footer },
        timestamp: event.occurredAt.toISOString(),
      },
    ],
  };
}

export function sendDiscord(
  target: DiscordTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const body = JSON.stringify(discordMessage(ctx));
  return postToHook({ channel: 'discord', url: target.url, body }, ctx, options);
}

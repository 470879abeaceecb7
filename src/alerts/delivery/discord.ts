/**
 * Discord delivery: one embed POSTed to a webhook (https://discord.com/developers/docs/resources/webhook):
 * {
 *   "username": "Vigil",
 *   "content": the notification's plain text,
 *   "allowed_mentions": { "parse": [] }   (an event's text never pings anyone),
 *   "embeds": [ { "title": title, "description": lead (and a group's event lines),
 *                 "color": see below,
 *                 "fields": [ { "name": "Severity", "value": "critical", "inline": true }, ... ],
 *                 "footer": { "text": alert id and delivery id }, "timestamp": see below } ]
 * }
 * By notice (the words are notice-text.ts's):
 * - `event`: title the alert's name, description the event's, content `<name> (<severity>)`,
 *   fields Severity, Event, Asset, Watchdog and the event's data; colour by severity (critical red,
 *   high orange, medium yellow, low blue); timestamp the event's time.
 * - `group`: title `[still firing] <name> (<labels>)`, description the headline (`5 events: ...`)
 *   and one line per event (oldest first, `and N more` when cut), fields the group's labels,
 *   colour by the group's worst severity, timestamp the newest event's; content `<title>: <headline>`.
 * - `resolved`: title `[RESOLVED] <name>`, description `Resolved after 12m 30s (<reason>)`, fields
 *   Started, Resolved, Duration, Incident, colour green, timestamp the resolution's.
 * - `acknowledged`: title `[ACKNOWLEDGED] <name>`, description `Acknowledged by <who>: <note>`,
 *   fields At, Incident, colour grey.
 * Discord's limits are kept by cutting with an ellipsis: content 2000 characters, title 256,
 * description 4096, at most 25 fields (name 256, value 1024), footer 2048, and 6000 for the
 * embed's text together (a group's lines give way first, then the description, then the fields);
 * one embed of the ten allowed. Discord answers 204; 429 with Retry-After (retried then, as every
 * HTTP channel); 4xx names the problem.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import { postToHook } from './hook-post.ts';
import {
  acknowledgedLine,
  clip,
  eventOneLiner,
  fitCount,
  groupHeadline,
  highestSeverity,
  keptLines,
  noticeTitle,
  resolvedLine,
  resolvedTimes,
  timeText,
} from './notice-text.ts';
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

/** A resolved notice: green. */
export const RESOLVED_COLOUR = 0x2e7d32;
/** An acknowledgement: grey. */
export const NEUTRAL_COLOUR = 0x9e9e9e;

export interface DiscordTarget {
  readonly url: string;
}

interface Field {
  name: string;
  value: string;
  inline: boolean;
}

const length = (text: string) => [...text].length;

function eventPairs(ctx: DeliveryContext): Array<readonly [string, string]> {
  const { event } = ctx;
  const pairs: Array<readonly [string, string]> = [
    ['Severity', event.severity],
    ['Event', event.type],
  ];
  if (event.asset) pairs.push(['Asset', event.asset.symbol]);
  if (event.watchdog) pairs.push(['Watchdog', event.watchdog]);
  for (const [key, value] of Object.entries(event.data)) pairs.push([key, JSON.stringify(value) ?? 'null']);
  return pairs;
}

const fieldsOf = (pairs: ReadonlyArray<readonly [string, string]>): Field[] =>
  pairs.slice(0, DISCORD_LIMITS.fields).map(([name, value]) => ({
    name: clip(name, DISCORD_LIMITS.fieldName),
    value: clip(value || '-', DISCORD_LIMITS.fieldValue),
    inline: true,
  }));

const fieldChars = (list: readonly Field[]) => list.reduce((n, f) => n + length(f.name) + length(f.value), 0);

/** The embed within its 6000 characters: the description is cut first, then fields dropped from the end. */
function withinTotal(title: string, description: string, fields: Field[], footer: string) {
  const fixed = length(title) + length(footer);
  const kept = [...fields];
  while (kept.length > 0 && fixed + fieldChars(kept) > DISCORD_LIMITS.total - 1) kept.pop();
  const room = DISCORD_LIMITS.total - fixed - fieldChars(kept);
  return { description: clip(description, Math.max(1, room)), fields: kept };
}

interface Summary {
  readonly description: string;
  readonly pairs: ReadonlyArray<readonly [string, string]>;
  readonly color: number;
  readonly timestamp: Date;
  readonly content: string;
}

function summaryOf(ctx: DeliveryContext, title: string): Summary {
  const { alert, event, notice } = ctx;
  switch (notice.kind) {
    case 'event':
      return {
        description: event.description || alert.description || alert.name,
        pairs: eventPairs(ctx),
        color: SEVERITY_COLOURS[event.severity],
        timestamp: event.occurredAt,
        content: `${title} (${event.severity})`,
      };
    case 'group': {
      const headline = groupHeadline(notice);
      return {
        description: headline,
        pairs: Object.entries(notice.labels),
        color: SEVERITY_COLOURS[highestSeverity(notice.events)],
        timestamp: event.occurredAt,
        content: `${title}: ${headline}`,
      };
    }
    case 'resolved':
      return {
        description: resolvedLine(notice),
        pairs: [...resolvedTimes(notice), ['Incident', notice.incidentKey]],
        color: RESOLVED_COLOUR,
        timestamp: notice.resolvedAt,
        content: title,
      };
    case 'acknowledged':
      return {
        description: acknowledgedLine(notice),
        pairs: [
          ['At', timeText(notice.at)],
          ['Incident', notice.incidentKey],
        ],
        color: NEUTRAL_COLOUR,
        timestamp: notice.at,
        content: `${title}: ${acknowledgedLine(notice)}`,
      };
  }
}

/** A group's headline and as many event lines as fit `room` characters, then `and N more`. */
function groupDescription(ctx: DeliveryContext, headline: string, room: number): string {
  if (ctx.notice.kind !== 'group') return headline;
  const lines = ctx.notice.events.map(eventOneLiner);
  const text = (count: number) => [headline, '', ...keptLines(lines, count)].join('\n');
  return text(fitCount(lines, (kept) => length(text(kept.length)) <= room));
}

export function discordMessage(ctx: DeliveryContext): Record<string, unknown> {
  const { alert } = ctx;
  const title = clip(noticeTitle(alert.name, ctx.notice, ctx.test), DISCORD_LIMITS.title);
  const footer = clip(`Vigil alert ${alert.id} · delivery ${ctx.deliveryId}`, DISCORD_LIMITS.footer);
  const summary = summaryOf(ctx, title);
  const fields = fieldsOf(summary.pairs);
  const room = Math.min(
    DISCORD_LIMITS.description,
    DISCORD_LIMITS.total - length(title) - length(footer) - fieldChars(fields),
  );
  const text = clip(groupDescription(ctx, summary.description, room), DISCORD_LIMITS.description);
  const { description, fields: kept } = withinTotal(title, text, fields, footer);
  return {
    username: 'Vigil',
    content: clip(summary.content, DISCORD_LIMITS.content),
    allowed_mentions: { parse: [] },
    embeds: [
      {
        title,
        description,
        color: summary.color,
        fields: kept,
        footer: { text: footer },
        timestamp: summary.timestamp.toISOString(),
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

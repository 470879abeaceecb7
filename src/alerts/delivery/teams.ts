/**
 * Microsoft Teams delivery: an Adaptive Card in the message envelope that Teams incoming webhooks
 * and Workflows ("When a Teams webhook request is received") both accept:
 * {
 *   "type": "message",
 *   "attachments": [ { "contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": null,
 *     "content": { "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
 *       "type": "AdaptiveCard", "version": "1.4", "msteams": { "width": "Full" },
 *       "body": [ TextBlock title (bold, coloured), TextBlock lead (wrapped),
 *                 FactSet [ {title, value}, ... ] (left out when it has none),
 *                 TextBlock a group's event lines (a group only),
 *                 TextBlock context (subtle: alert id, delivery id, time) ] } } ]
 * }
 * By notice (the words are notice-text.ts's):
 * - `event`: title the alert's name coloured by severity, lead the event's description, facts
 *   Severity, Event, Asset, Watchdog, Occurred and the event's data.
 * - `group`: title `[still firing] <name> (<labels>)` coloured by the group's worst severity, lead
 *   the headline (`5 events: ...`), facts the group's labels, then one line per event (oldest
 *   first, as many as fit, `and N more` when cut).
 * - `resolved`: title `[RESOLVED] <name>` in `Good` (green), lead `Resolved after 12m 30s
 *   (<reason>)`, facts Started, Resolved, Duration, Incident.
 * - `acknowledged`: title `[ACKNOWLEDGED] <name>` in `Default`, lead `Acknowledged by <who>:
 *   <note>`, facts At, Incident.
 * Teams refuses a message over about 28 KB: a group's event lines are left out from the end, then
 * the lead is cut with an ellipsis, until the whole body is within 27 KB (room for the envelope
 * Teams adds); facts are at most 20 of 1000 characters. Teams answers 200 (a connector) or 202
 * (Workflows); 429 with Retry-After is retried then, as every HTTP channel.
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
  moreLine,
  noticeTitle,
  resolvedLine,
  resolvedTimes,
  timeText,
} from './notice-text.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

export const TEAMS_LIMITS = { bytes: 27 * 1024, facts: 20, factValue: 1_000, title: 500 } as const;

/** Adaptive Card colours: red, orange-yellow, blue, default. */
const SEVERITY_COLOUR: Readonly<Record<Severity, string>> = {
  critical: 'Attention',
  high: 'Attention',
  medium: 'Warning',
  low: 'Accent',
};

export interface TeamsTarget {
  readonly url: string;
}

function eventPairs(ctx: DeliveryContext): Array<readonly [string, string]> {
  const { event } = ctx;
  const pairs: Array<readonly [string, string]> = [
    ['Severity', event.severity],
    ['Event', event.type],
  ];
  if (event.asset) pairs.push(['Asset', event.asset.symbol]);
  if (event.watchdog) pairs.push(['Watchdog', event.watchdog]);
  pairs.push(['Occurred', event.occurredAt.toISOString()]);
  for (const [key, value] of Object.entries(event.data)) pairs.push([key, JSON.stringify(value) ?? 'null']);
  return pairs;
}

interface Summary {
  readonly lead: string;
  readonly pairs: ReadonlyArray<readonly [string, string]>;
  readonly colour: string;
  /** A group's event lines; none otherwise. */
  readonly lines: readonly string[];
}

function summaryOf(ctx: DeliveryContext): Summary {
  const { alert, event, notice } = ctx;
  switch (notice.kind) {
    case 'event':
      return {
        lead: event.description || alert.description || alert.name,
        pairs: eventPairs(ctx),
        colour: SEVERITY_COLOUR[event.severity],
        lines: [],
      };
    case 'group':
      return {
        lead: groupHeadline(notice),
        pairs: Object.entries(notice.labels),
        colour: SEVERITY_COLOUR[highestSeverity(notice.events)],
        lines: notice.events.map(eventOneLiner),
      };
    case 'resolved':
      return {
        lead: resolvedLine(notice),
        pairs: [...resolvedTimes(notice), ['Incident', notice.incidentKey]],
        colour: 'Good',
        lines: [],
      };
    case 'acknowledged':
      return {
        lead: acknowledgedLine(notice),
        pairs: [
          ['At', timeText(notice.at)],
          ['Incident', notice.incidentKey],
        ],
        colour: 'Default',
        lines: [],
      };
  }
}

function card(
  ctx: DeliveryContext,
  summary: Summary,
  lead: string,
  lines: readonly string[],
): Record<string, unknown> {
  const { alert } = ctx;
  const title = clip(noticeTitle(alert.name, ctx.notice, ctx.test), TEAMS_LIMITS.title);
  const facts = summary.pairs.slice(0, TEAMS_LIMITS.facts).map(([name, value]) => ({
    title: clip(name, 100),
    value: clip(value, TEAMS_LIMITS.factValue),
  }));
  const body: Array<Record<string, unknown>> = [
    { type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', wrap: true, color: summary.colour },
    { type: 'TextBlock', text: lead, wrap: true },
  ];
  // An event always has facts; a group by nothing has no labels, and an empty FactSet is not shown.
  if (facts.length > 0) body.push({ type: 'FactSet', facts });
  // Markdown in a TextBlock needs a blank line to break a line.
  if (lines.length > 0) body.push({ type: 'TextBlock', text: lines.join('\n\n'), wrap: true });
  body.push({
    type: 'TextBlock',
    text: `Vigil alert ${alert.id} · delivery ${ctx.deliveryId} · ${ctx.now.toISOString()}`,
    isSubtle: true,
    size: 'Small',
    wrap: true,
  });
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          msteams: { width: 'Full' },
          body,
        },
      },
    ],
  };
}

/**
 * The card within TEAMS_LIMITS.bytes: a group's event lines are left out from the end, then the
 * lead keeps as many characters as fit (binary searches both).
 */
export function teamsMessage(ctx: DeliveryContext): Record<string, unknown> {
  const summary = summaryOf(ctx);
  const size = (message: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(message));
  const fits = (lead: string, lines: readonly string[]) =>
    size(card(ctx, summary, lead, lines)) <= TEAMS_LIMITS.bytes;
  const all = summary.lines;
  const count = fitCount(all, (kept, left) => fits(summary.lead, left ? [...kept, moreLine(left)] : kept));
  const lines = keptLines(all, count);
  if (fits(summary.lead, lines)) return card(ctx, summary, summary.lead, lines);
  let good = 1;
  let over = [...summary.lead].length;
  while (over - good > 1) {
    const mid = Math.floor((good + over) / 2);
    if (fits(clip(summary.lead, mid), lines)) good = mid;
    else over = mid;
  }
  return card(ctx, summary, clip(summary.lead, good), lines);
}

export function sendTeams(
  target: TeamsTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const body = JSON.stringify(teamsMessage(ctx));
  return postToHook({ channel: 'teams', url: target.url, body }, ctx, options);
}

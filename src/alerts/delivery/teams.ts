/**
 * Microsoft Teams delivery: an Adaptive Card in the message envelope that Teams incoming webhooks
 * and Workflows ("When a Teams webhook request is received") both accept:
 * {
 *   "type": "message",
 *   "attachments": [ { "contentType": "application/vnd.microsoft.card.adaptive", "contentUrl": null,
 *     "content": { "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
 *       "type": "AdaptiveCard", "version": "1.4", "msteams": { "width": "Full" },
 *       "body": [ TextBlock title (bold, coloured by severity), TextBlock description (wrapped),
 *                 FactSet [ {title: "Severity", value}, Event, Asset, Watchdog, Occurred, data... ],
 *                 TextBlock context (subtle: alert id, delivery id, time) ] } } ]
 * }
 * Teams refuses a message over about 28 KB: the description is cut with an ellipsis until the
 * whole body is within 27 KB (room for the envelope Teams adds), facts are at most 20 of 1000
 * characters. Teams answers 200 (a connector) or 202 (Workflows); 429 with Retry-After is retried
 * then, as every HTTP channel.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import { postToHook } from './hook-post.ts';
import { clip } from './slack.ts';
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

function facts(ctx: DeliveryContext): Array<{ title: string; value: string }> {
  const { event } = ctx;
  const pairs: Array<[string, string]> = [
    ['Severity', event.severity],
    ['Event', event.type],
  ];
  if (event.asset) pairs.push(['Asset', event.asset.symbol]);
  if (event.watchdog) pairs.push(['Watchdog', event.watchdog]);
  pairs.push(['Occurred', event.occurredAt.toISOString()]);
  for (const [key, value] of Object.entries(event.data)) pairs.push([key, JSON.stringify(value) ?? 'null']);
  return pairs.slice(0, TEAMS_LIMITS.facts).map(([title, value]) => ({
    title: clip(title, 100),
    value: clip(value, TEAMS_LIMITS.factValue),
  }));
}

function card(ctx: DeliveryContext, description: string): Record<string, unknown> {
  const { alert, event } = ctx;
  const title = clip(`${ctx.test ? '[test] ' : ''}${alert.name}`, TEAMS_LIMITS.title);
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
          body: [
            {
              type: 'TextBlock',
              text: title,
              weight: 'Bolder',
              size: 'Medium',
              wrap: true,
              color: SEVERITY_COLOUR[event.severity],
            },
            { type: 'TextBlock', text: description, wrap: true },
            { type: 'FactSet', facts: facts(ctx) },
            {
              type: 'TextBlock',
              text: `Vigil alert ${alert.id} · delivery ${ctx.deliveryId} · ${ctx.now.toISOString()}`,
              isSubtle: true,
              size: 'Small',
              wrap: true,
            },
          ],
        },
      },
    ],
  };
}

/** The card within TEAMS_LIMITS.bytes: the description keeps as many characters as fit (a binary search). */
export function teamsMessage(ctx: DeliveryContext): Record<string, unknown> {
  const description = ctx.event.description || ctx.alert.description || ctx.alert.name;
  const size = (message: Record<string, unknown>) => Buffer.byteLength(JSON.stringify(message));
  const whole = card(ctx, description);
  if (size(whole) <= TEAMS_LIMITS.bytes) return whole;
  let fits = 1;
  let over = [...description].length;
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (size(card(ctx, clip(description, mid))) <= TEAMS_LIMITS.bytes) fits = mid;
    else over = mid;
  }
  return card(ctx, clip(description, fits));
}

export function sendTeams(
  target: TeamsTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const body = JSON.stringify(teamsMessage(ctx));
  return postToHook({ channel: 'teams', url: target.url, body }, ctx, options);
}

/**
 * Message renderers: pure functions from a delivery (alert, event, notice) to the text each channel
 * sends (the webhook's JSON body is a wire shape: webhook-body.wire.ts). Every value comes from an
 * alert's owner or from market data, so each is escaped for its medium: HTML for the email's HTML
 * part, MarkdownV2 for the chat API (which rejects a message with a stray `.` or `-`).
 *
 * What they say per notice (the words are notice-text.ts's):
 * - `event`: subject `[Vigil] HIGH: <alert> (<symbol>)`; the event's description and fields.
 * - `group`: subject `[Vigil] HIGH: <alert> (<labels>): 5 events` (`STILL FIRING` for a reminder,
 *   the severity the group's worst); the headline, then one line per event, oldest first: at most
 *   200 in an email, as many as fit the chat's 4096 characters, then `and N more`.
 * - `resolved`: subject `[Vigil] RESOLVED: <alert>`; `Resolved after 12m 30s (<reason>)`, the
 *   start, end and duration, the incident key and the last event.
 * - `acknowledged`: subject `[Vigil] ACKNOWLEDGED: <alert>`; `Acknowledged by <who>: <note>`.
 * A chat message is kept within the Bot API's 4096 characters by leaving out whole lines from the
 * end (never half an escape), the last line then saying how many.
 */
import {
  acknowledgedLine,
  eventOneLiner,
  fitCount,
  groupHeadline,
  highestSeverity,
  keptLines,
  labelsText,
  moreLine,
  noticeTitle,
  resolvedLine,
  resolvedTimes,
  timeText,
} from './notice-text.ts';
import type { DeliveryContext } from './types.ts';

/** Events listed in one email (a group's); the rest are counted. */
export const EMAIL_EVENT_LINES = 200;
/** The Bot API's bound of one message. */
export const CHAT_MAX_CHARS = 4_096;

const MAX_FIELD = 1_000;
const MAX_DATA_KEYS = 20;
const MAX_DATA_VALUE = 200;

const clip = (text: string, max = MAX_FIELD): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;
const oneLine = (text: string): string => text.replace(/[\r\n\t]+/g, ' ').trim();

/** The event's fields as label/value lines, in reading order; shared by every text rendering. */
export function eventLines(ctx: DeliveryContext): Array<readonly [string, string]> {
  const { event } = ctx;
  const lines: Array<readonly [string, string]> = [
    ['Severity', event.severity.toUpperCase()],
    ['Type', event.type],
  ];
  if (event.asset) lines.push(['Symbol', `${event.asset.symbol} (${event.asset.assetType})`]);
  if (event.watchdog) lines.push(['Watchdog', event.watchdog]);
  lines.push(['Time', event.occurredAt.toISOString()], ['Event id', event.id]);
  for (const [key, value] of Object.entries(event.data).slice(0, MAX_DATA_KEYS)) {
    lines.push([
      key,
      clip(typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null'), MAX_DATA_VALUE),
    ]);
  }
  return lines.map(([label, value]) => [clip(oneLine(label), 100), clip(oneLine(value))] as const);
}

/** What a delivery says: its lead sentence (an event's description) and its lines, plain text before escaping. */
export function noticeBody(ctx: DeliveryContext): { lead: string; lines: string[] } {
  const { notice, event } = ctx;
  switch (notice.kind) {
    case 'event':
      return { lead: event.description, lines: eventLines(ctx).map(([l, v]) => `${l}: ${v}`) };
    case 'group':
      return { lead: groupHeadline(notice), lines: notice.events.map(eventOneLiner) };
    case 'resolved':
      return {
        lead: resolvedLine(notice),
        lines: [
          ...resolvedTimes(notice).map(([label, value]) => `${label}: ${value}`),
          `Incident: ${notice.incidentKey}`,
          `Last event: ${eventOneLiner(event)}`,
        ],
      };
    case 'acknowledged':
      return {
        lead: acknowledgedLine(notice),
        lines: [`At: ${timeText(notice.at)}`, `Incident: ${notice.incidentKey}`],
      };
  }
}

export function emailSubject(ctx: DeliveryContext): string {
  const { event, alert, notice } = ctx;
  const prefix = ctx.test ? '[Vigil test]' : '[Vigil]';
  let subject: string;
  switch (notice.kind) {
    case 'event':
      subject = `${event.severity.toUpperCase()}: ${alert.name}${event.asset ? ` (${event.asset.symbol})` : ''}`;
      break;
    case 'group': {
      const state = notice.repeat ? 'STILL FIRING' : highestSeverity(notice.events).toUpperCase();
      const labels = labelsText(notice.labels);
      const n = notice.events.length;
      subject = `${state}: ${alert.name}${labels ? ` (${labels})` : ''}: ${n} ${n === 1 ? 'event' : 'events'}`;
      break;
    }
    case 'resolved':
      subject = `RESOLVED: ${alert.name}`;
      break;
    case 'acknowledged':
      subject = `ACKNOWLEDGED: ${alert.name}`;
      break;
  }
  return clip(oneLine(`${prefix} ${subject}`), 250);
}

/** The notice's lines, a group's cut at EMAIL_EVENT_LINES (each on one line, bounded). */
function emailLines(ctx: DeliveryContext): { lead: string; lines: string[] } {
  const { lead, lines } = noticeBody(ctx);
  // An event's lines are bounded already (eventLines), and shown as they always were.
  if (ctx.notice.kind === 'event') return { lead: clip(lead), lines };
  const shown = ctx.notice.kind === 'group' ? keptLines(lines, EMAIL_EVENT_LINES) : lines;
  return { lead: clip(lead), lines: shown.map((line) => clip(oneLine(line))) };
}

export function emailText(ctx: DeliveryContext): string {
  const { alert } = ctx;
  const { lead, lines } = emailLines(ctx);
  const parts = [
    ctx.test ? 'This is a test message: the alert did not fire.\n' : '',
    `Alert: ${clip(alert.name)}`,
    alert.description ? clip(alert.description) : '',
    '',
    lead,
    '',
    ...lines,
    '',
    `Delivery ${ctx.deliveryId}`,
  ];
  return parts
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/** The event's fields as a table; a notice's lines as a list. */
function htmlDetails(ctx: DeliveryContext, lines: readonly string[]): string {
  if (ctx.notice.kind !== 'event')
    return `<ul>\n${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('\n')}\n</ul>`;
  const rows = eventLines(ctx)
    .map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return `<table cellpadding="4">\n${rows}\n</table>`;
}

export function emailHtml(ctx: DeliveryContext): string {
  const { alert } = ctx;
  const h = (text: string) => escapeHtml(clip(text));
  const { lead, lines } = emailLines(ctx);
  const title = ctx.notice.kind === 'event' ? alert.name : noticeTitle(alert.name, ctx.notice);
  return [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif">',
    ctx.test ? '<p><em>This is a test message: the alert did not fire.</em></p>' : '',
    `<h2>${h(title)}</h2>`,
    alert.description ? `<p>${h(alert.description)}</p>` : '',
    `<p><strong>${h(lead)}</strong></p>`,
    htmlDetails(ctx, lines),
    `<p style="color: #777">Delivery ${escapeHtml(ctx.deliveryId)}</p>`,
    '</body></html>',
  ]
    .filter(Boolean)
    .join('\n');
}

/** Every character the Bot API's MarkdownV2 reserves, backslash included. */
const MARKDOWN_V2_SPECIAL = /[_*[\]()~`>#+\-=|{}.!\\]/g;

export function escapeMarkdownV2(text: string): string {
  return text.replace(MARKDOWN_V2_SPECIAL, '\\$&');
}

export function chatText(ctx: DeliveryContext): string {
  const { alert, notice } = ctx;
  const md = (text: string, max = MAX_FIELD) => escapeMarkdownV2(clip(text, max));
  const { lead, lines } = noticeBody(ctx);
  const label = chatLabel(ctx);
  const name = notice.kind === 'group' ? noticeTitle(alert.name, notice) : alert.name;
  const head = [
    ctx.test ? `_${md('Test message: the alert did not fire.')}_` : '',
    `*${md(label, 20)}* ${md('·')} *${md(name, 200)}*`,
    md(lead),
    '',
  ].filter((line, i) => line !== '' || i > 0);
  const body =
    notice.kind === 'event'
      ? eventLines(ctx).map(([l, value]) => `${md(l)}: ${md(value, 300)}`)
      : lines.map((line) => md(oneLine(line), 300));
  // Whole lines only: cutting inside the text could split an escape, and the API would refuse it.
  const shown = (count: number) =>
    count < body.length ? [...body.slice(0, count), escapeMarkdownV2(moreLine(body.length - count))] : body;
  const text = (count: number) => [...head, ...shown(count)].join('\n');
  const count = fitCount(body, (kept) => text(kept.length).length <= CHAT_MAX_CHARS);
  return text(count);
}

/** The bold word before the alert's name: the severity (a group's worst), or what happened. */
function chatLabel({ notice, event }: DeliveryContext): string {
  if (notice.kind === 'event') return event.severity.toUpperCase();
  if (notice.kind === 'group') return highestSeverity(notice.events).toUpperCase();
  return notice.kind.toUpperCase();
}

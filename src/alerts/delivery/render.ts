/**
 * Message renderers: pure functions from (alert, event) to the text each channel sends (the
 * webhook's JSON body is a wire shape: webhook-body.wire.ts). Every value comes from an alert's
 * owner or from market data, so each is escaped for its medium: HTML for the email's HTML part,
 * MarkdownV2 for the chat API (which rejects a message with a stray `.` or `-`).
 */
import type { DeliveryContext } from './types.ts';

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

export function emailSubject(ctx: DeliveryContext): string {
  const { event, alert } = ctx;
  const symbol = event.asset ? ` (${event.asset.symbol})` : '';
  const prefix = ctx.test ? '[Vigil test]' : '[Vigil]';
  return clip(oneLine(`${prefix} ${event.severity.toUpperCase()}: ${alert.name}${symbol}`), 250);
}

export function emailText(ctx: DeliveryContext): string {
  const { alert, event } = ctx;
  const parts = [
    ctx.test ? 'This is a test message: the alert did not fire.\n' : '',
    `Alert: ${clip(alert.name)}`,
    alert.description ? clip(alert.description) : '',
    '',
    clip(event.description),
    '',
    ...eventLines(ctx).map(([label, value]) => `${label}: ${value}`),
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

export function emailHtml(ctx: DeliveryContext): string {
  const { alert, event } = ctx;
  const h = (text: string) => escapeHtml(clip(text));
  const rows = eventLines(ctx)
    .map(
      ([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`,
    )
    .join('\n');
  return [
    '<!doctype html>',
    '<html><body style="font-family: sans-serif">',
    ctx.test ? '<p><em>This is a test message: the alert did not fire.</em></p>' : '',
    `<h2>${h(alert.name)}</h2>`,
    alert.description ? `<p>${h(alert.description)}</p>` : '',
    `<p><strong>${h(event.description)}</strong></p>`,
    `<table cellpadding="4">\n${rows}\n</table>`,
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
  const { alert, event } = ctx;
  const md = (text: string, max = MAX_FIELD) => escapeMarkdownV2(clip(text, max));
  const lines = [
    ctx.test ? `_${md('Test message: the alert did not fire.')}_` : '',
    `*${md(event.severity.toUpperCase(), 20)}* ${md('·')} *${md(alert.name, 200)}*`,
    md(event.description),
    '',
    ...eventLines(ctx).map(([label, value]) => `${md(label)}: ${md(value, 300)}`),
  ];
  return lines.filter((line, i) => line !== '' || i > 0).join('\n');
}

/**
 * The words every channel uses for a notice (episode.model.ts `Notice`), so an email, a Slack
 * message and a PagerDuty summary say the same thing: titles ("[RESOLVED] <alert>"), a group's
 * headline ("5 events: volume_spike on AAPL (3), flash_crash on BTC/USDT (2)"), one line per event,
 * how long an episode lasted ("1h 2m") and why it ended. Pure; each channel escapes for its medium.
 *
 * A group can hold hundreds of events, and every channel has a size limit, so lists are cut to fit
 * with a last line "and N more": `fitCount` finds how many items fit a channel's own measure
 * (characters, blocks, bytes), `packLines` fills a channel's text blocks line by line.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import type { AlertEvent } from '../alert-event.model.ts';
import type { Notice, ResolvedReason } from '../episode.model.ts';

export type GroupNotice = Extract<Notice, { kind: 'group' }>;
export type ResolvedNotice = Extract<Notice, { kind: 'resolved' }>;
export type AcknowledgedNotice = Extract<Notice, { kind: 'acknowledged' }>;

/** A description on an event's one line is cut here. */
export const EVENT_LINE_DESCRIPTION = 200;
/** Conditions named in a group's headline before "…". */
const HEADLINE_CONDITIONS = 3;

/** `text` cut to `max` characters (code points), the last one an ellipsis when cut. */
export function clip(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`;
}

/** Line breaks and tabs as spaces: one line of text. */
export const oneLine = (text: string): string => text.replace(/[\r\n\t]+/g, ' ').trim();

/** Characters (code points) of `text`. */
export const charCount = (text: string): number => [...text].length;

/** A duration as people say it, the two largest units: `45s`, `12m 30s`, `1h 2m`, `3d 4h`. */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const units: Array<[string, number]> = [
    ['d', Math.floor(s / 86_400)],
    ['h', Math.floor((s % 86_400) / 3_600)],
    ['m', Math.floor((s % 3_600) / 60)],
    ['s', s % 60],
  ];
  const first = units.findIndex(([, n]) => n > 0);
  if (first < 0) return '0s';
  return units
    .slice(first, first + 2)
    .filter(([, n]) => n > 0)
    .map(([unit, n]) => `${n}${unit}`)
    .join(' ');
}

const REASONS: Readonly<Record<Exclude<ResolvedReason, 'manual'>, string>> = {
  cleared: 'condition cleared',
  timeout: 'not repeated for the resolve timeout',
};

/** Why an episode ended: `condition cleared`, `not repeated for ...`, `resolved by alice: done`. */
export function resolvedReasonText(notice: ResolvedNotice): string {
  if (notice.reason !== 'manual') return REASONS[notice.reason];
  const note = notice.note ? `: ${oneLine(notice.note)}` : '';
  return `resolved by ${notice.by ?? 'someone'}${note}`;
}

/** `Resolved after 12m 30s (condition cleared)`. */
export function resolvedLine(notice: ResolvedNotice): string {
  return `Resolved after ${durationText(notice.durationSeconds)} (${resolvedReasonText(notice)})`;
}

/** `Acknowledged by alice: looking into it`. */
export function acknowledgedLine(notice: AcknowledgedNotice): string {
  return `Acknowledged by ${notice.by || 'someone'}${notice.note ? `: ${oneLine(notice.note)}` : ''}`;
}

/** An instant to the second: `2025-01-02T03:04:05Z`. */
export const timeText = (at: Date): string => `${at.toISOString().slice(0, 19)}Z`;

/** A resolved episode's start and end, as label/value pairs. */
export function resolvedTimes(notice: ResolvedNotice): Array<readonly [string, string]> {
  return [
    ['Started', timeText(notice.startedAt)],
    ['Resolved', timeText(notice.resolvedAt)],
    ['Duration', durationText(notice.durationSeconds)],
  ];
}

const LABEL_ORDER = ['watchdog', 'asset', 'event_type'];

/** A group's labels as `watchdog=volume_spike, asset=AAPL` (empty when it groups by nothing). */
export function labelsText(labels: Readonly<Record<string, string>>): string {
  const rank = (k: string) => (LABEL_ORDER.includes(k) ? LABEL_ORDER.indexOf(k) : LABEL_ORDER.length);
  return Object.keys(labels)
    .sort((a, b) => rank(a) - rank(b))
    .map((k) => `${k}=${labels[k]}`)
    .join(', ');
}

/**
 * A notice's title for `alertName`: the name for an event; a group's labels after it, and
 * `[still firing]` before it on a reminder; `[RESOLVED]` and `[ACKNOWLEDGED]` before it otherwise.
 */
export function noticeTitle(alertName: string, notice: Notice, test = false): string {
  const name = `${test ? '[test] ' : ''}${alertName}`;
  switch (notice.kind) {
    case 'event':
      return name;
    case 'group': {
      const labels = labelsText(notice.labels);
      return `${notice.repeat ? '[still firing] ' : ''}${name}${labels ? ` (${labels})` : ''}`;
    }
    case 'resolved':
      return `[RESOLVED] ${name}`;
    case 'acknowledged':
      return `[ACKNOWLEDGED] ${name}`;
  }
}

const conditionOf = (event: AlertEvent) =>
  event.asset ? `${event.type} on ${event.asset.symbol}` : event.type;

/**
 * `5 events: volume_spike on AAPL (3), flash_crash on BTC/USDT (2)`: the count and the conditions
 * in order of first appearance (at most three, then `…`); `Still firing: ` first on a reminder.
 */
export function groupHeadline(notice: GroupNotice): string {
  const counts = new Map<string, number>();
  for (const event of notice.events) {
    const condition = conditionOf(event);
    counts.set(condition, (counts.get(condition) ?? 0) + 1);
  }
  const named = [...counts]
    .slice(0, HEADLINE_CONDITIONS)
    .map(([condition, n]) => (n > 1 ? `${condition} (${n})` : condition));
  const rest = counts.size > HEADLINE_CONDITIONS ? ', …' : '';
  const n = notice.events.length;
  return `${notice.repeat ? 'Still firing: ' : ''}${n} ${n === 1 ? 'event' : 'events'}: ${named.join(', ')}${rest}`;
}

/** `2025-01-02T03:04:05Z HIGH volume_spike AAPL: Volume 5x its average` (description cut at 200). */
export function eventOneLiner(event: AlertEvent): string {
  const description = clip(oneLine(event.description), EVENT_LINE_DESCRIPTION);
  const asset = event.asset ? ` ${event.asset.symbol}` : '';
  return oneLine(
    `${timeText(event.occurredAt)} ${event.severity.toUpperCase()} ${event.type}${asset}: ${description}`,
  );
}

/** The last line of a cut list. */
export const moreLine = (left: number): string => `and ${left} more`;

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

/** The most severe of `events` (a group is as severe as its worst event). */
export function highestSeverity(events: readonly AlertEvent[]): Severity {
  let highest: Severity = 'low';
  for (const event of events)
    if (SEVERITY_RANK[event.severity] > SEVERITY_RANK[highest]) highest = event.severity;
  return highest;
}

/**
 * How many of `items` (from the start) fit: the largest count `k` for which `fits(first k, the
 * number left out)` holds, `fits` being monotonic (fewer items never fit worse). All of them when
 * they fit; 0 when not even none does.
 */
export function fitCount<T>(
  items: readonly T[],
  fits: (kept: readonly T[], left: number) => boolean,
): number {
  const n = items.length;
  if (fits(items, 0)) return n;
  let good = 0;
  let bad = n;
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (fits(items.slice(0, mid), n - mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/** `lines` with a `moreLine` in place of the ones after `count`. */
export function keptLines(lines: readonly string[], count: number): string[] {
  const kept = lines.slice(0, count);
  return count < lines.length ? [...kept, moreLine(lines.length - count)] : kept;
}

/** `lines` joined by newlines into as few texts of at most `maxChars` each as they fill (a longer line is cut). */
export function packLines(lines: readonly string[], maxChars: number): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  let length = 0;
  for (const raw of lines) {
    const line = clip(raw, maxChars);
    const size = charCount(line);
    if (current.length > 0 && length + 1 + size > maxChars) {
      chunks.push(current.join('\n'));
      current = [];
      length = 0;
    }
    length += (current.length > 0 ? 1 : 0) + size;
    current.push(line);
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}

/**
 * Recurring mute windows (e.g. outside market hours): on the given days of the week, from `start`
 * to `end` (HH:MM, wall-clock time in `timeZone`, an IANA zone). A window whose end is not after
 * its start crosses midnight: it starts on a listed day and ends the next day (Fri 16:00 - 09:30
 * holds until Saturday 09:30). Wall-clock times follow the zone's daylight saving changes: 16:00 in
 * New York is 21:00 UTC in winter and 20:00 UTC in summer. Pure: the caller gives the instant.
 */

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface MuteWindow {
  /** The days it starts on (empty: every day). */
  readonly days: readonly Weekday[];
  /** HH:MM, 00:00 to 23:59. */
  readonly start: string;
  readonly end: string;
  readonly timeZone: string;
}

const HH_MM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Why `value` is not an HH:MM time, or null. */
export function clockTimeProblem(value: string): string | null {
  return HH_MM.test(value) ? null : 'must be a time HH:MM, 00:00 to 23:59';
}

/** Why `zone` is not an IANA time zone this runtime knows, or null. */
export function timeZoneProblem(zone: string): string | null {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return null;
  } catch {
    return 'must be an IANA time zone (America/New_York, Europe/London, UTC)';
  }
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':').map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}

/** The weekday and minute of the day of `instant` on the wall clock of `timeZone`. */
export function wallClock(instant: Date, timeZone: string): { day: Weekday; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const day = part('weekday').toLowerCase().slice(0, 3) as Weekday;
  return { day, minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** Whether `instant` falls inside `window` (start inclusive, end exclusive). */
export function inMuteWindow(window: MuteWindow, instant: Date): boolean {
  const { day, minute } = wallClock(instant, window.timeZone);
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const startsOn = (d: Weekday) => window.days.length === 0 || window.days.includes(d);
  if (start < end) return startsOn(day) && minute >= start && minute < end;
  // Crossing midnight (or a whole day when start equals end): the evening part on a listed day, the
  // morning part on the day after one.
  const yesterday = WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7] as Weekday;
  return (startsOn(day) && minute >= start) || (startsOn(yesterday) && minute < end);
}

/** The index of the first of `windows` that holds `instant`, or -1. */
export function mutingWindow(windows: readonly MuteWindow[], instant: Date): number {
  return windows.findIndex((w) => inMuteWindow(w, instant));
}

import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { type MuteWindow, WEEKDAYS, type Weekday } from './mute-window.ts';
import { MAX_MUTE_WINDOWS } from './mute-window.wire.ts';

/** An alert's recurring mute windows (mute-window.ts), in and out. */

export const WeekdayEnum = builder.enumType('AlertWeekday', {
  description: 'A day of the week, on the wall clock of the window’s time zone.',
  values: enumValues(Object.fromEntries(WEEKDAYS.map((d) => [d, d])) as Record<Weekday, string>),
});

export const MuteWindowInput = builder.inputType('AlertMuteWindowInput', {
  description: `A recurring window in which the alert's firings are recorded as \`silenced\` (at most ${MAX_MUTE_WINDOWS} per alert).`,
  fields: (t) => ({
    days: t.field({
      type: [WeekdayEnum],
      description: 'The days it starts on (empty or absent: every day).',
    }),
    start: t.string({ required: true, description: 'HH:MM, wall-clock time in timeZone.' }),
    end: t.string({
      required: true,
      description: 'HH:MM; not after start: it crosses midnight and ends the next day.',
    }),
    timeZone: t.string({ required: true, description: 'An IANA time zone (America/New_York).' }),
  }),
});

export const MuteWindowRef = builder.objectRef<MuteWindow>('AlertMuteWindow').implement({
  description:
    'A recurring window (days, start, end in a time zone) in which the alert’s firings are recorded as `silenced`. Value object: not normalised.',
  fields: (t) => ({
    days: t.field({
      type: [WeekdayEnum],
      description: 'Days it starts on (empty: every day).',
      resolve: (w) => w.days,
    }),
    start: t.exposeString('start', { description: 'HH:MM.' }),
    end: t.exposeString('end', { description: 'HH:MM (not after start: the next day).' }),
    timeZone: t.exposeString('timeZone', { description: 'IANA time zone.' }),
  }),
});

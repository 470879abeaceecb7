/** An alert's `mute_windows` as clients write them (snake_case), checked field by field. */
import { z } from 'zod';
import { clockTimeProblem, timeZoneProblem, WEEKDAYS } from './mute-window.ts';

export const MAX_MUTE_WINDOWS = 10;

const clockTime = z.string().superRefine((value, ctx) => {
  const problem = clockTimeProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const muteWindowSchema = z.strictObject({
  days: z
    .array(z.enum(WEEKDAYS, { error: `expected one of ${WEEKDAYS.join(', ')}` }))
    .max(WEEKDAYS.length)
    .refine((d) => new Set(d).size === d.length, { error: 'lists a day twice' })
    .default([]),
  start: clockTime,
  end: clockTime,
  time_zone: z.string().superRefine((zone, ctx) => {
    const problem = timeZoneProblem(zone);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

export const muteWindowsSchema = z
  .array(muteWindowSchema)
  .max(MAX_MUTE_WINDOWS, { error: `at most ${MAX_MUTE_WINDOWS} windows` })
  .default([]);

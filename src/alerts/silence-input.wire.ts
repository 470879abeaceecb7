/**
 * A silence as clients write it (snake_case, REST and tool arguments; GraphQL inputs are turned
 * into this shape), checked whole: a bad field is INVALID_ARGUMENTS naming it (`ends_at`,
 * `matchers.severities.0`). The matchers are checked as an alert's `event_filter` is.
 */
import { z } from 'zod';
import { MAX_LIST } from './alert.model.ts';
import { eventFilterSchema, ID_PATTERN, issuesOf } from './alert-input.wire.ts';
import { InvalidAlertError } from './alerts.errors.ts';
import {
  MAX_SILENCE_COMMENT,
  MAX_SILENCE_SECONDS,
  type SilenceDefinition,
  type SilenceMatchers,
} from './silence.model.ts';

const instant = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time (2026-01-02T09:30:00Z)',
});

const matchersSchema = eventFilterSchema.unwrap().extend({
  alert_ids: z
    .array(z.string().regex(ID_PATTERN, { error: 'must be an alert id' }))
    .max(MAX_LIST, { error: `at most ${MAX_LIST} entries` })
    .default([]),
});

const silenceInputSchema = z.strictObject({
  matchers: matchersSchema.default({
    event_types: [],
    severities: [],
    assets: [],
    watchdogs: [],
    alert_ids: [],
  }),
  /** Absent: now. */
  starts_at: instant.nullish(),
  ends_at: instant,
  comment: z.string().trim().min(1, { error: 'must not be empty' }).max(MAX_SILENCE_COMMENT),
});

export type SilenceInputWire = z.input<typeof silenceInputSchema>;
export type CheckedSilenceWire = z.output<typeof silenceInputSchema>;
/** The argument schemas of the silence tools (the REST body's fields). */
export const silenceInputShape = silenceInputSchema.shape;

/**
 * A body's fields checked as the wire names them (INVALID_ARGUMENTS naming each), before it becomes
 * GraphQL variables; the mutation checks it again, whole, with the times (silence.service.ts).
 */
export function checkedWireSilence(body: unknown): CheckedSilenceWire {
  const parsed = silenceInputSchema.safeParse(body);
  if (!parsed.success) throw new InvalidAlertError(issuesOf(parsed.error), 'silence');
  return parsed.data;
}

/** A silence as written, read at `now`; InvalidAlertError names every bad field. */
export function parseSilenceInput(body: unknown, now: Date): SilenceDefinition {
  const parsed = silenceInputSchema.safeParse(body);
  if (!parsed.success) throw new InvalidAlertError(issuesOf(parsed.error), 'silence');
  const w = parsed.data;
  const startsAt = w.starts_at ? new Date(w.starts_at) : now;
  const endsAt = new Date(w.ends_at);
  const problem = spanProblem(startsAt, endsAt, now);
  if (problem) throw new InvalidAlertError([{ field: 'ends_at', message: problem }], 'silence');
  const matchers: SilenceMatchers = {
    eventTypes: w.matchers.event_types,
    severities: w.matchers.severities,
    assets: w.matchers.assets,
    watchdogs: w.matchers.watchdogs,
    alertIds: w.matchers.alert_ids,
  };
  return { matchers, startsAt, endsAt, comment: w.comment };
}

function spanProblem(startsAt: Date, endsAt: Date, now: Date): string | null {
  if (endsAt.getTime() <= startsAt.getTime()) return 'must be after starts_at';
  if (endsAt.getTime() <= now.getTime()) return 'must be in the future';
  if (endsAt.getTime() - startsAt.getTime() > MAX_SILENCE_SECONDS * 1_000)
    return `a silence lasts at most ${MAX_SILENCE_SECONDS / 86_400} days`;
  return null;
}

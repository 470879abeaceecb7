/**
 * Silences as the API returns them, the operations on them, and the silence form's state (strings,
 * as typed) with its conversion to AlertSilenceInput. An operator thinks of a silence as "for the
 * next two hours" as often as "until Monday 09:00", so the end is either a duration from the start
 * or a time; both become the API's `endsAt`. The API judges the input; the checks here only catch
 * what would never get that far, and the API's field errors (snake_case paths) land on the field
 * the operator typed (an `ends_at` error on the duration when the end was given as one).
 */
import type { ApiError } from '../../api.ts';
import { type Errors, list } from './form-model.ts';
import { words } from './model.ts';

export type SilenceState = 'ACTIVE' | 'PENDING' | 'EXPIRED';

export interface SilenceMatchers {
  eventTypes: string[];
  severities: string[];
  assets: string[];
  watchdogs: string[];
  alertIds: string[];
}

export interface Silence {
  id: string;
  owner: string;
  matchers: SilenceMatchers;
  startsAt: string;
  endsAt: string;
  comment: string;
  createdBy: string;
  createdAt: string;
  state: SilenceState;
}

const SILENCE_FIELDS =
  'id owner matchers { eventTypes severities assets watchdogs alertIds } startsAt endsAt comment createdBy createdAt state';
export const SILENCES_QUERY = `query($all: Boolean) { alertSilences(includeExpired: $all) { ${SILENCE_FIELDS} } }`;
export const CREATE_SILENCE = `mutation($input: AlertSilenceInput!) { createAlertSilence(input: $input) { ${SILENCE_FIELDS} } }`;
export const EXPIRE_SILENCE = `mutation($id: String!) { expireAlertSilence(id: $id) { ${SILENCE_FIELDS} } }`;

export type DurationUnit = 'MINUTES' | 'HOURS' | 'DAYS';
export const UNIT_SECONDS: Record<DurationUnit, number> = { MINUTES: 60, HOURS: 3600, DAYS: 86_400 };

export interface SilenceFormState {
  eventTypes: string[];
  severities: string[];
  watchdogs: string[];
  /** Typed lists: comma- or line-separated. */
  assets: string;
  alertIds: string;
  /** A `datetime-local` value in the browser's zone; empty: now. */
  startsAt: string;
  /** How the end is given. */
  endBy: 'DURATION' | 'TIME';
  duration: string;
  unit: DurationUnit;
  /** A `datetime-local` value, with endBy TIME. */
  endsAt: string;
  comment: string;
}

export function emptySilence(): SilenceFormState {
  return {
    eventTypes: [],
    severities: [],
    watchdogs: [],
    assets: '',
    alertIds: '',
    startsAt: '',
    endBy: 'DURATION',
    duration: '2',
    unit: 'HOURS',
    endsAt: '',
    comment: '',
  };
}

/** A `datetime-local` value as an instant (read in the browser's zone), or undefined. */
function instant(local: string): Date | undefined {
  if (!local.trim()) return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** What can be told before asking the API (keys as `silenceServerErrors` gives them). */
export function silenceChecks(s: SilenceFormState): Errors {
  const e: Errors = {};
  if (s.startsAt.trim() && !instant(s.startsAt))
    e.starts_at = 'Enter a date and time, or leave empty for now.';
  if (s.endBy === 'DURATION') {
    const n = Number(s.duration);
    if (!s.duration.trim() || !Number.isFinite(n) || n <= 0) e.duration = 'Enter a number greater than 0.';
  } else if (!instant(s.endsAt)) e.ends_at = 'Enter the date and time it ends.';
  if (!s.comment.trim()) e.comment = 'Say why (it is shown to whoever finds the alert quiet).';
  return e;
}

/** The AlertSilenceInput, its end computed from `now` when given as a duration from an empty start. */
export function toSilenceInput(s: SilenceFormState, now: Date): Record<string, unknown> {
  const start = instant(s.startsAt);
  const end =
    s.endBy === 'DURATION'
      ? new Date((start ?? now).getTime() + Number(s.duration) * UNIT_SECONDS[s.unit] * 1000)
      : instant(s.endsAt);
  return {
    matchers: {
      eventTypes: s.eventTypes,
      severities: s.severities,
      watchdogs: s.watchdogs,
      assets: list(s.assets),
      alertIds: list(s.alertIds),
    },
    ...(start ? { startsAt: start.toISOString() } : {}),
    endsAt: end?.toISOString(),
    comment: s.comment.trim(),
  };
}

const camel = { startsAt: 'starts_at', endsAt: 'ends_at', alertIds: 'alert_ids', eventTypes: 'event_types' };

/** One API field path onto the form's key: list items onto their list, the end onto how it was given. */
function silenceKey(path: string, s: SilenceFormState): string {
  const item = /^(matchers\.\w+)\.\d+$/.exec(path)?.[1];
  if (item) return item;
  if (path === 'ends_at' && s.endBy === 'DURATION') return 'duration';
  return path;
}

/**
 * The API's errors by form key. GraphQL's own coercion of a bad value names the variable path
 * (`at "input.endsAt"`) instead of a field: that is mapped too.
 */
export function silenceServerErrors(error: ApiError, s: SilenceFormState): Errors {
  const out: Errors = {};
  for (const [path, message] of Object.entries(error.fields)) {
    const key = silenceKey(path, s);
    if (!out[key]) out[key] = message;
  }
  const coerced = /at "input\.([\w.]+)"; (.*)$/.exec(error.message);
  if (coerced?.[1] && coerced[2]) {
    const path = coerced[1].replace(/[A-Za-z]+/g, (part) => camel[part as keyof typeof camel] ?? part);
    const key = silenceKey(path, s);
    if (!out[key]) out[key] = coerced[2];
  }
  return out;
}

/** The matchers in one line, for the list: "flash crash, severity high, on AAPL" or "every firing". */
export function matchersSummary(m: SilenceMatchers): string {
  const parts = [
    m.eventTypes.length ? m.eventTypes.map(words).join(' or ') : '',
    m.severities.length ? `severity ${m.severities.map(words).join('/')}` : '',
    m.assets.length ? `on ${m.assets.join(', ')}` : '',
    m.watchdogs.length ? `from ${m.watchdogs.map(words).join(', ')}` : '',
    m.alertIds.length ? `alerts ${m.alertIds.join(', ')}` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'every firing of your alerts';
}

/**
 * Silences: for a while (from `startsAt` until `endsAt`), the firings of an owner's alerts that a
 * silence's matchers pass are recorded as `silenced` and deliver nothing. The matchers are the
 * fields of a `watchdog_event` filter (AND-ed, values of one list OR-ed, empty = any; an event about
 * no asset passes an asset list, as in the filter) plus the alert ids the silence covers.
 */
import type { EventFilter } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { matchesFilter } from './matcher.ts';

/** The longest a silence may last (a year and a day: a yearly recurrence fits). */
export const MAX_SILENCE_SECONDS = 366 * 86_400;
/** Silences an owner may have that have not ended yet. */
export const MAX_SILENCES_PER_OWNER = 100;
export const MAX_SILENCE_COMMENT = 1_000;

export interface SilenceMatchers extends EventFilter {
  /** The alerts it silences (empty: every alert of the owner the other matchers pass). */
  readonly alertIds: readonly string[];
}

/** A silence as a client writes it. */
export interface SilenceDefinition {
  readonly matchers: SilenceMatchers;
  readonly startsAt: Date;
  readonly endsAt: Date;
  readonly comment: string;
}

export interface Silence extends SilenceDefinition {
  readonly owner: string;
  readonly id: string;
  /** The name of the key (principal) that created it. */
  readonly createdBy: string;
  readonly createdAt: Date;
}

export type SilenceState = 'pending' | 'active' | 'expired';

export function silenceState(silence: Pick<Silence, 'startsAt' | 'endsAt'>, now: Date): SilenceState {
  if (now.getTime() >= silence.endsAt.getTime()) return 'expired';
  return now.getTime() < silence.startsAt.getTime() ? 'pending' : 'active';
}

/** Whether `silence` silences the firing of alert `alertId` for `event` at `now`. */
export function silences(silence: Silence, alertId: string, event: AlertEvent, now: Date): boolean {
  if (silenceState(silence, now) !== 'active') return false;
  const { alertIds } = silence.matchers;
  if (alertIds.length > 0 && !alertIds.includes(alertId)) return false;
  return matchesFilter(silence.matchers, event);
}

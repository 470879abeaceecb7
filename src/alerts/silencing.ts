/**
 * Which firings are silenced: an alert that an owner's silence in force matches (silence.model.ts)
 * is held with `silence:<id>`; one whose own mute window holds the firing's time (mute-window.ts)
 * with `mute_window:<index in its list>`. Pure: the silences are read by the caller, in the
 * firing's transaction.
 */
import type { AlertKey } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { type MuteWindow, mutingWindow } from './mute-window.ts';
import { type Silence, silences } from './silence.model.ts';

export interface Partitioned<A extends AlertKey> {
  readonly held: { readonly alert: A; readonly silencedBy: string }[];
  readonly open: A[];
}

export function partitionSilenced<A extends AlertKey>(
  matched: readonly A[],
  active: readonly Silence[],
  event: AlertEvent,
  now: Date,
): Partitioned<A> {
  const held: Partitioned<A>['held'] = [];
  const open: A[] = [];
  for (const alert of matched) {
    const by = silencedBy(alert, active, event, now);
    if (by) held.push({ alert, silencedBy: by });
    else open.push(alert);
  }
  return { held, open };
}

/** What silences `alert` for `event` at `now`, or null. */
export function silencedBy(
  alert: AlertKey & { readonly muteWindows?: readonly MuteWindow[] },
  active: readonly Silence[],
  event: AlertEvent,
  now: Date,
): string | null {
  const silence = active.find((s) => s.owner === alert.owner && silences(s, alert.id, event, now));
  if (silence) return `silence:${silence.id}`;
  const window = mutingWindow(alert.muteWindows ?? [], now);
  return window >= 0 ? `mute_window:${window}` : null;
}

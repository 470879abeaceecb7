/**
 * Re-arming: a condition that persists must not become an event every cycle. A condition is one
 * (watchdog, subject, event type); its life is:
 *
 * - absent -> seen: EMIT, the condition becomes active at the finding's severity;
 * - active and seen again at the same or a lower severity: suppressed;
 * - active and seen at a higher severity than any emitted while active: EMIT (escalation), and the
 *   new severity becomes the bar;
 * - active and not seen: counts a clear cycle; after `clearCycles` consecutive clear cycles the
 *   condition is forgotten (re-armed), so its next appearance emits again. Seeing it again before
 *   then resets the count: a condition flickering around its threshold stays one event.
 *
 * Only the watchdog whose cycle is being applied ages its own conditions, so one shared state
 * serves all watchdogs. A cycle that failed (no data) must not be applied: it would look clear.
 * The state is bounded: beyond `maxEntries` the least recently seen conditions are forgotten (they
 * may then emit again). It is plain JSON data so it can be stored between cycles and instances.
 */
import { type Finding, type Severity, severityRank } from './finding.ts';

export interface RearmSettings {
  /** Consecutive cycles without the condition before it can emit again. */
  readonly clearCycles: number;
  /** Conditions remembered at most. */
  readonly maxEntries: number;
}

export const DEFAULT_REARM_SETTINGS: RearmSettings = Object.freeze({ clearCycles: 3, maxEntries: 10_000 });

export interface RearmEntry {
  readonly key: string;
  readonly watchdog: string;
  /** Highest severity emitted while active. */
  readonly severity: Severity;
  /** Consecutive cycles of this watchdog without the condition. */
  readonly clearStreak: number;
  /** State sequence number when last seen (for eviction). */
  readonly lastSeen: number;
}

export interface RearmState {
  /** Incremented by every applied cycle. */
  readonly sequence: number;
  readonly entries: readonly RearmEntry[];
}

export const EMPTY_REARM_STATE: RearmState = Object.freeze({ sequence: 0, entries: Object.freeze([]) });

export function rearmKey(watchdog: string, finding: Pick<Finding, 'subject' | 'eventType'>): string {
  return JSON.stringify([watchdog, finding.subject, finding.eventType]);
}

export interface RearmResult<F extends Finding> {
  readonly state: RearmState;
  /** The findings to turn into events, in input order. */
  readonly emit: F[];
}

/** Applies one completed cycle of `watchdog` with its findings; returns the next state and what to emit. */
export function applyCycle<F extends Finding>(
  state: RearmState,
  watchdog: string,
  findings: readonly F[],
  settings: RearmSettings = DEFAULT_REARM_SETTINGS,
): RearmResult<F> {
  const sequence = state.sequence + 1;
  const entries = new Map(state.entries.map((e) => [e.key, e]));
  const seen = new Set<string>();
  const emit: F[] = [];
  for (const f of findings) {
    const key = rearmKey(watchdog, f);
    const prior = entries.get(key);
    // Two findings for one condition in a cycle: the first decides, a higher one may still escalate.
    const escalates = !prior || severityRank(f.severity) > severityRank(prior.severity);
    if (escalates) emit.push(f);
    seen.add(key);
    entries.set(key, {
      key,
      watchdog,
      severity: escalates ? f.severity : prior!.severity,
      clearStreak: 0,
      lastSeen: sequence,
    });
  }
  for (const [key, e] of entries) {
    if (e.watchdog !== watchdog || seen.has(key)) continue;
    const clearStreak = e.clearStreak + 1;
    if (clearStreak >= settings.clearCycles) entries.delete(key);
    else entries.set(key, { ...e, clearStreak });
  }
  let kept = [...entries.values()];
  if (kept.length > settings.maxEntries) {
    kept = kept.sort((a, b) => b.lastSeen - a.lastSeen).slice(0, settings.maxEntries);
  }
  return { state: { sequence, entries: kept }, emit };
}

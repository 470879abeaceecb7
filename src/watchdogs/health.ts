/**
 * A watchdog's status, derived from its shared state row and the time: honest, so a watchdog that
 * nobody runs reads `stopped`, not healthy. See WATCHDOG_STATUSES for what each status means.
 */
import type { WatchdogState } from './states.repository.ts';
import type { WatchdogStatus } from './watchdogs-api.ts';

/** Intervals without a check before an enabled watchdog counts as stopped. */
export const STOPPED_AFTER_INTERVALS = 3;
/** Failed checks in a row before a watchdog counts as failing (fewer: degraded). */
export const FAILING_AFTER_FAILURES = 3;

/** The columns of a watchdog's state row its status is read from. */
export type HealthInput = Readonly<
  Pick<WatchdogState, 'enabled' | 'since' | 'lastCheckAt' | 'consecutiveFailures' | 'lastGaps'>
>;

export function watchdogStatus(state: HealthInput, intervalMs: number, now: Date): WatchdogStatus {
  if (!state.enabled) return 'disabled';
  const reference = state.lastCheckAt ?? state.since;
  // A check that started before `since` (a restart) still counts from the restart.
  const last = reference > state.since ? reference : state.since;
  if (now.getTime() - last.getTime() > STOPPED_AFTER_INTERVALS * intervalMs) return 'stopped';
  if (state.consecutiveFailures >= FAILING_AFTER_FAILURES) return 'failing';
  if (state.consecutiveFailures > 0 || state.lastGaps > 0) return 'degraded';
  return 'running';
}

/**
 * The alert form's noise control, as typed: whether a resolution is announced (send_resolved), how
 * long a watchdog-event condition stays open without a repeat (resolve timeout), and grouping. The
 * API's defaults (300 s; group wait 30 s, interval 300 s, repeat 4 h) are what a new alert shows,
 * so that turning grouping on starts from Alertmanager's familiar values. Grouping applies to
 * watchdog-event alerts only: for another trigger it is left out of the input (the API would refuse
 * it naming `grouping`).
 */
import type { Alert, GroupLabel, TriggerType } from './model.ts';

export interface NoiseState {
  sendResolved: boolean;
  resolveTimeoutSeconds: string;
  grouped: boolean;
  groupBy: GroupLabel[];
  groupWaitSeconds: string;
  groupIntervalSeconds: string;
  repeatIntervalSeconds: string;
}

export function noiseDefaults(): NoiseState {
  return {
    sendResolved: false,
    resolveTimeoutSeconds: '300',
    grouped: false,
    groupBy: [],
    groupWaitSeconds: '30',
    groupIntervalSeconds: '300',
    repeatIntervalSeconds: '14400',
  };
}

export function noiseFromAlert(a: Alert): NoiseState {
  const g = a.grouping;
  const defaults = noiseDefaults();
  return {
    sendResolved: a.sendResolved,
    resolveTimeoutSeconds: String(a.resolveTimeoutSeconds),
    grouped: g !== null,
    groupBy: g ? [...g.groupBy] : [],
    groupWaitSeconds: g ? String(g.groupWaitSeconds) : defaults.groupWaitSeconds,
    groupIntervalSeconds: g ? String(g.groupIntervalSeconds) : defaults.groupIntervalSeconds,
    repeatIntervalSeconds: g ? String(g.repeatIntervalSeconds) : defaults.repeatIntervalSeconds,
  };
}

const num = (value: string) => (value.trim() === '' ? undefined : Number(value));

/** The AlertInput's sendResolved, resolveTimeoutSeconds and grouping (undefined: left out). */
export function noiseInput(s: NoiseState & { triggerType: TriggerType }): Record<string, unknown> {
  const grouping =
    s.triggerType === 'WATCHDOG_EVENT' && s.grouped
      ? {
          groupBy: s.groupBy,
          groupWaitSeconds: num(s.groupWaitSeconds),
          groupIntervalSeconds: num(s.groupIntervalSeconds),
          repeatIntervalSeconds: num(s.repeatIntervalSeconds),
        }
      : undefined;
  return { sendResolved: s.sendResolved, resolveTimeoutSeconds: num(s.resolveTimeoutSeconds), grouping };
}

const whole = (value: string) => value.trim() === '' || /^\d+$/.test(value.trim());

/** Text where a whole number of seconds goes (GraphQL would refuse it without naming a field). */
export function noiseChecks(s: NoiseState & { triggerType: TriggerType }, e: Record<string, string>): void {
  const seconds = 'Must be a whole number of seconds.';
  if (!whole(s.resolveTimeoutSeconds)) e.resolve_timeout_seconds = seconds;
  if (s.triggerType !== 'WATCHDOG_EVENT' || !s.grouped) return;
  if (!whole(s.groupWaitSeconds)) e['grouping.group_wait_seconds'] = seconds;
  if (!whole(s.groupIntervalSeconds)) e['grouping.group_interval_seconds'] = seconds;
  if (!whole(s.repeatIntervalSeconds)) e['grouping.repeat_interval_seconds'] = seconds;
}

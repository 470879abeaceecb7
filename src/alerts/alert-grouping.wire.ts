/**
 * What an alert says about its notifications beyond each firing (episode.model.ts): `send_resolved`,
 * `resolve_timeout_seconds` and `grouping`, as clients write them (snake_case) and as the store
 * keeps them, checked field by field. Their defaults are Alertmanager's, so an alert written
 * without them (or stored before they existed) notifies on each firing as it always did.
 */
import { z } from 'zod';
import {
  type AlertGrouping,
  DEFAULT_RESOLVE_TIMEOUT_SECONDS,
  GROUP_LABELS,
  GROUPING_DEFAULTS,
  type GroupLabel,
} from './alert.model.ts';

/** Inclusive bounds: a wait of 0 sends a new group's first notification at once. */
export const GROUPING_RANGES = {
  groupWaitSeconds: { min: 0, max: 3_600 },
  groupIntervalSeconds: { min: 1, max: 86_400 },
  repeatIntervalSeconds: { min: 60, max: 7 * 86_400 },
} as const;

export const RESOLVE_TIMEOUT_RANGE = { min: 60, max: 86_400 } as const;

export interface GroupingWire {
  readonly group_by: readonly GroupLabel[];
  readonly group_wait_seconds: number;
  readonly group_interval_seconds: number;
  readonly repeat_interval_seconds: number;
}

const seconds = (range: { readonly min: number; readonly max: number }, fallback: number) =>
  z
    .number()
    .int({ error: 'must be a whole number of seconds' })
    .min(range.min, { error: `must be ${range.min} to ${range.max}` })
    .max(range.max, { error: `must be ${range.min} to ${range.max}` })
    .default(fallback);

const groupingSchema = z.strictObject({
  group_by: z
    .array(z.enum(GROUP_LABELS, { error: `expected one of ${GROUP_LABELS.join(', ')}` }))
    .refine((labels) => new Set(labels).size === labels.length, { error: 'lists a label twice' })
    .default([]),
  group_wait_seconds: seconds(GROUPING_RANGES.groupWaitSeconds, GROUPING_DEFAULTS.groupWaitSeconds),
  group_interval_seconds: seconds(
    GROUPING_RANGES.groupIntervalSeconds,
    GROUPING_DEFAULTS.groupIntervalSeconds,
  ),
  repeat_interval_seconds: seconds(
    GROUPING_RANGES.repeatIntervalSeconds,
    GROUPING_DEFAULTS.repeatIntervalSeconds,
  ),
});

/** The alert input's fields (alert-input.wire.ts); whether grouping fits the trigger is checked there. */
export const notificationFields = {
  send_resolved: z.boolean().default(false),
  resolve_timeout_seconds: seconds(RESOLVE_TIMEOUT_RANGE, DEFAULT_RESOLVE_TIMEOUT_SECONDS),
  /** null or absent: no grouping, each firing notifies. */
  grouping: groupingSchema.nullable().default(null),
};

export const GROUPING_TRIGGER_RULE = 'applies to watchdog_event alerts only';

export function groupingWire(grouping: AlertGrouping): GroupingWire {
  return {
    group_by: [...grouping.groupBy],
    group_wait_seconds: grouping.groupWaitSeconds,
    group_interval_seconds: grouping.groupIntervalSeconds,
    repeat_interval_seconds: grouping.repeatIntervalSeconds,
  };
}

/** A field missing (a stored row written by an older version) takes its default. */
export function groupingOfWire(wire: Partial<GroupingWire>): AlertGrouping {
  return {
    groupBy: [...(wire.group_by ?? [])],
    groupWaitSeconds: wire.group_wait_seconds ?? GROUPING_DEFAULTS.groupWaitSeconds,
    groupIntervalSeconds: wire.group_interval_seconds ?? GROUPING_DEFAULTS.groupIntervalSeconds,
    repeatIntervalSeconds: wire.repeat_interval_seconds ?? GROUPING_DEFAULTS.repeatIntervalSeconds,
  };
}

import { z } from 'zod';
import type { ToolArgs, ToolArgument, ToolDefinition } from '../platform/operations/tool.ts';
import { alertIdSchema } from './alert-input.wire.ts';
import { DEFAULT_RECORD_LIMIT, MAX_NOTE_LENGTH, MAX_RECORD_LIMIT } from './firing-record.service.ts';
import {
  ACKNOWLEDGE_FIRING,
  EPISODE_STATES,
  type EpisodeData,
  enumNames,
  episodeWire,
  FIRING_STATUSES,
  type FiringData,
  firingWire,
  LIST_EPISODES,
  LIST_FIRINGS,
  RESOLVE_FIRING,
} from './firings.wire.ts';

/**
 * The record of firings and episodes as MCP tools (and REST tool routes): the operations of
 * /api/alerts/{alert_id}/firings and /episodes, with the same snake_case answers. Acknowledging and
 * resolving need `write`, inherited from their mutations.
 */

// Times are ISO 8601, UTC (said once, in the tools' descriptions: the listing is bounded).
const isoTime = z.string();
const episodeSchema = z.object({
  episode_id: z.string(),
  incident_key: z.string(),
  state: z.enum(EPISODE_STATES),
  started_at: isoTime,
  last_event_at: isoTime,
  firings: z.number().int(),
  duration_seconds: z.number().int(),
  acknowledged_at: isoTime.nullable(),
  acknowledged_by: z.string().nullable(),
  acknowledgement_note: z.string().nullable(),
  resolved_at: isoTime.nullable(),
  resolved_reason: z.enum(['cleared', 'timeout', 'manual']).nullable(),
  resolved_by: z.string().nullable(),
  resolution_note: z.string().nullable(),
});
const firingSchema = z.object({
  firing_id: z.string(),
  alert_id: z.string(),
  status: z.enum(FIRING_STATUSES),
  kind: z.enum(['event', 'group', 'resolved', 'acknowledged']),
  event: z.record(z.string(), z.unknown()).describe('As the webhook body carries it'),
  fired_at: isoTime,
  silenced_by: z.string().nullable(),
  group_key: z.string().nullable(),
  episode: episodeSchema.nullable(),
});

const alertIdArgument: ToolArgument = { schema: alertIdSchema, description: 'The alert id' };
const limitArgument: ToolArgument = {
  schema: z.number().int().min(1).max(MAX_RECORD_LIMIT),
  default: DEFAULT_RECORD_LIMIT,
  description: `At most this many, 1 to ${MAX_RECORD_LIMIT}`,
};
const actionArguments: Record<string, ToolArgument> = {
  alertId: alertIdArgument,
  firingId: { schema: z.string().min(1), description: 'The firing (firing_id from list-alert-firings)' },
  note: {
    schema: z.string().max(MAX_NOTE_LENGTH),
    description: `Why (at most ${MAX_NOTE_LENGTH} characters)`,
  },
};

const listed = (args: ToolArgs, name: string): Record<string, unknown> => {
  const values = args[name] as readonly string[] | undefined;
  return values && values.length > 0 ? { [name]: enumNames(values) } : {};
};

const listAlertFirings: ToolDefinition<{ alertFirings: FiringData[] }> = {
  name: 'list-alert-firings',
  title: 'Alert firing record',
  description:
    'The firings of one of your alerts, newest first (times ISO 8601, UTC): what became of each, its event and its episode. A firing_id goes to acknowledge-alert-firing or resolve-alert-firing.',
  document: LIST_FIRINGS,
  arguments: {
    alertId: alertIdArgument,
    limit: limitArgument,
    status: {
      schema: z.array(z.enum(FIRING_STATUSES)).optional(),
      description: 'Only these statuses (default any)',
    },
  },
  variables: (args) => ({ alertId: args.alertId, limit: args.limit, ...listed(args, 'status') }),
  result: (data) => ({ firings: data.alertFirings.map(firingWire) }),
  outputSchema: z.object({ firings: z.array(firingSchema) }),
  annotations: { readOnlyHint: true },
};

const listAlertEpisodes: ToolDefinition<{ alertEpisodes: EpisodeData[] }> = {
  name: 'list-alert-episodes',
  title: 'Alert episodes',
  description:
    'The episodes of one of your alerts (a condition, named by incident_key, from its first firing until it resolves), the latest started first; duration_seconds runs to now while open.',
  document: LIST_EPISODES,
  arguments: {
    alertId: alertIdArgument,
    limit: limitArgument,
    state: {
      schema: z.array(z.enum(EPISODE_STATES)).optional(),
      description: 'Only these states (default any)',
    },
  },
  variables: (args) => ({ alertId: args.alertId, limit: args.limit, ...listed(args, 'state') }),
  result: (data) => ({ episodes: data.alertEpisodes.map(episodeWire) }),
  outputSchema: z.object({ episodes: z.array(episodeSchema) }),
  annotations: { readOnlyHint: true },
};

const acknowledgeAlertFiring: ToolDefinition<{ acknowledgeAlertFiring: FiringData }> = {
  name: 'acknowledge-alert-firing',
  title: 'Acknowledge an alert firing',
  description:
    'Acknowledges the episode of one of your alert’s firings: until it resolves, its condition’s firings are recorded as acknowledged and deliver nothing (PagerDuty hears of it). Again: the first stays. Refused for a firing without episode (test-send, silenced) or a resolved one.',
  document: ACKNOWLEDGE_FIRING,
  arguments: actionArguments,
  result: (data) => firingWire(data.acknowledgeAlertFiring),
  outputSchema: firingSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
};

const resolveAlertFiring: ToolDefinition<{ resolveAlertFiring: FiringData }> = {
  name: 'resolve-alert-firing',
  title: 'Resolve an alert firing',
  description:
    'Resolves the episode of one of your alert’s firings by hand (with send_resolved, every target hears of it); a resolved one is answered as it is. Refused for a firing without episode (test-send, silenced).',
  document: RESOLVE_FIRING,
  arguments: actionArguments,
  result: (data) => firingWire(data.resolveAlertFiring),
  outputSchema: firingSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
};

export const firingsTools: readonly ToolDefinition<never>[] = [
  listAlertFirings,
  listAlertEpisodes,
  acknowledgeAlertFiring,
  resolveAlertFiring,
] as readonly ToolDefinition<never>[];

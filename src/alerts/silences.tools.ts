import { z } from 'zod';
import type { ToolArgument, ToolDefinition } from '../platform/operations/tool.ts';
import { checkedWireSilence, silenceInputShape } from './silence-input.wire.ts';
import {
  CREATE_SILENCE,
  EXPIRE_SILENCE,
  LIST_SILENCES,
  type SilenceData,
  silenceVariables,
  silenceWire,
} from './silences.wire.ts';

/**
 * Silences as MCP tools (and REST tool routes): the operations of /api/silences, with arguments in
 * the REST body's snake_case shape and the same answers. Creating and expiring need `write`.
 */

const isoTime = z.string().describe('ISO 8601 time');
const silenceSchema = z.object({
  silence_id: z.string(),
  owner: z.string(),
  matchers: z.object({
    event_types: z.array(z.string()),
    severities: z.array(z.string()),
    assets: z.array(z.string()),
    watchdogs: z.array(z.string()),
    alert_ids: z.array(z.string()),
  }),
  starts_at: isoTime,
  ends_at: isoTime,
  comment: z.string(),
  created_by: z.string(),
  created_at: isoTime,
  state: z.enum(['pending', 'active', 'expired']),
});

const createArguments: Record<string, ToolArgument> = {
  matchers: {
    // Checked by the silence's schema when the tool runs (naming the field), as an alert's trigger is.
    schema: z.record(z.string(), z.unknown()).optional(),
    description:
      '{event_types, severities, assets, watchdogs, alert_ids}: the fields (and values) of an alert’s event_filter plus alert ids; lists AND-ed, values OR-ed, empty = any (absent: every firing of your alerts)',
  },
  starts_at: { schema: silenceInputShape.starts_at, description: 'ISO 8601 start (absent: now)' },
  ends_at: {
    schema: silenceInputShape.ends_at,
    description: 'ISO 8601 end: after the start, in the future, at most 366 days later',
  },
  comment: { schema: silenceInputShape.comment, description: 'Why (1-1000 characters)' },
};

const createSilence: ToolDefinition<{ createAlertSilence: SilenceData }> = {
  name: 'create-silence',
  title: 'Silence alerts for a while',
  description:
    'Creates a silence: from starts_at to ends_at, firings of your alerts that its matchers pass are recorded as silenced and deliver nothing.',
  document: CREATE_SILENCE,
  arguments: createArguments,
  variables: (args) => silenceVariables(checkedWireSilence(args)),
  result: (data) => silenceWire(data.createAlertSilence),
  outputSchema: silenceSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
};

const listSilences: ToolDefinition<{ alertSilences: SilenceData[] }> = {
  name: 'list-silences',
  title: 'List silences',
  description: 'Your silences by start (ended ones only with include_expired).',
  document: LIST_SILENCES,
  arguments: { include_expired: { description: 'True: ended silences too', default: false } },
  result: (data) => ({ silences: data.alertSilences.map(silenceWire) }),
  outputSchema: z.object({ silences: z.array(silenceSchema) }),
  annotations: { readOnlyHint: true },
};

const expireSilence: ToolDefinition<{ expireAlertSilence: SilenceData }> = {
  name: 'expire-silence',
  title: 'End a silence now',
  description: 'Ends one of your silences now: the alerts it held deliver again. Answers with it.',
  document: EXPIRE_SILENCE,
  arguments: { silence_id: { description: 'The silence id (silence_id of create-silence)' } },
  result: (data) => silenceWire(data.expireAlertSilence),
  outputSchema: silenceSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
};

export const silencesTools: readonly ToolDefinition<never>[] = [createSilence, listSilences, expireSilence];

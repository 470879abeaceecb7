/**
 * The wire's JSON shapes as schemas: the MCP tools' output schemas (and so the OpenAPI responses of
 * the tool routes), and the types the mappings of dashboard.wire.ts must write.
 */
import { z } from 'zod';
import { WATCHDOG_NAMES } from '../detectors/types.ts';
import { WATCHDOG_STATUSES } from '../watchdogs-api.ts';

const isoTime = z.string().describe('ISO 8601 time, UTC');

export const healthSchema = z.object({
  name: z.enum(WATCHDOG_NAMES),
  description: z.string(),
  enabled: z.boolean(),
  running: z.boolean().describe('Enabled and checked within the last three intervals'),
  status: z.enum(WATCHDOG_STATUSES),
  interval_seconds: z.number().int(),
  last_check: isoTime.nullable(),
  last_check_ms: z.number().nullable().describe('Wall time of the last check, in milliseconds'),
  last_event: isoTime.nullable(),
  total_checks: z.number().int().describe('Since it was last enabled or restarted'),
  events_emitted: z.number().int().describe('Since it was last enabled or restarted'),
  errors: z.number().int().describe('Failed checks since it was last enabled or restarted'),
  consecutive_failures: z.number().int(),
  last_error: z.string().nullable(),
  last_checked: z.number().int().describe('Subjects the last check looked at'),
  last_gaps: z.number().int().describe('Subjects of the last check that lacked data'),
  uptime_seconds: z.number().int().nullable().describe('Null while disabled'),
  since: isoTime.describe('When it was last enabled or restarted'),
  updated_by: z.string().nullable(),
});

/** A health record on the wire; healthWire (dashboard.wire.ts) writes exactly these keys. */
export type HealthWire = z.output<typeof healthSchema>;

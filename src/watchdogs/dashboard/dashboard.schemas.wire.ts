/**
 * The wire's JSON shapes as schemas: the MCP tools' output schemas (and so the OpenAPI responses of
 * the tool routes), and the types the mappings of dashboard.wire.ts must write.
 */
import { z } from 'zod';
import { MAX_SYMBOLS_PER_REQUEST } from '../../market-data/limits.ts';
import { ASSET_CLASSES } from '../../market-data/types.ts';
import type { ToolArgument } from '../../platform/operations/tool.ts';
import { SEVERITIES } from '../detectors/finding.ts';
import { EVENT_TYPES, WATCHDOG_NAMES } from '../registry.ts';
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

export const eventSchema = z.object({
  event_id: z.string(),
  type: z.enum(EVENT_TYPES),
  severity: z.enum(SEVERITIES),
  description: z.string(),
  asset: z
    .object({
      symbol: z.string(),
      asset_type: z.string(),
      name: z.string().optional(),
      market: z.string().optional(),
      exchange: z.string().optional(),
      currency: z.string().optional(),
      pair: z.array(z.string()).optional(),
    })
    .nullable()
    .describe('Null for a market-wide event (an exchange outage)'),
  timestamp: isoTime.describe('When the condition was seen'),
  watchdog: z.enum(WATCHDOG_NAMES),
  data: z.unknown().describe('The measured values and thresholds'),
  metadata: z.record(z.string(), z.never()),
});

export const statsSchema = z.object({
  total_events: z.number().int().describe('Events kept (within the retention period)'),
  events_by_severity: z.record(z.string(), z.number().int()),
  active_watchdogs: z.number().int().describe('Enabled watchdogs'),
  healthy_watchdogs: z.number().int().describe('Watchdogs whose status is running'),
  active_subscriptions: z.number().int().describe("Listeners on this instance's event feed"),
  timestamp: isoTime,
});

export const switchSchema = z.object({
  status: z.enum(['enabled', 'disabled', 'restarted']),
  watchdog: z.enum(WATCHDOG_NAMES),
  health: healthSchema,
});

export const monitorSchema = z.object({
  assets: z.array(
    z.union([
      z.object({
        symbol: z.string().describe('Canonical symbol'),
        requested: z.string().describe('The symbol as written'),
        asset_type: z.string(),
        price: z.number(),
        change_percent: z.number().nullable().describe('In percent: -2.43 means -2.43 %'),
        volume: z.number().nullable(),
        currency: z.string(),
        timestamp: isoTime.describe('Time of the price'),
        provider: z.string().describe('Providers whose answer was used'),
        simulated: z.boolean(),
      }),
      z.object({
        symbol: z.string(),
        requested: z.string(),
        error: z.object({ code: z.string(), message: z.string() }),
      }),
    ]),
  ),
});

/** A page of events (the events tool; the `vigil://events` resource sends the same). */
export const eventPageSchema = z.object({
  events: z.array(eventSchema),
  next_cursor: z.string().nullable().describe('Pass as `cursor` for older events; null: no more'),
});

/**
 * Arguments of the monitor-assets tool: `asset_type` is the variable of MONITOR_ASSETS it feeds,
 * and monitorToolVariables (dashboard.wire.ts) reads them.
 */
export const monitorArguments = {
  symbols: { description: `1 to ${MAX_SYMBOLS_PER_REQUEST} symbols: AAPL, BTC/USDT, EUR/USD, ^GSPC` },
  asset_type: { schema: z.enum(ASSET_CLASSES), description: 'Read every symbol as this asset type' },
  market: { description: 'Market code of listed instruments (default US)' },
} satisfies Readonly<Record<string, ToolArgument>>;

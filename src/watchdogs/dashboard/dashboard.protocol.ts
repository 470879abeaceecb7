/**
 * The protocol of /dashboard/stream. Every message is a JSON object `{type, data}`.
 *
 * Server to client:
 *   {"type":"stats","data":{total_events, events_by_severity, active_watchdogs, healthy_watchdogs,
 *     active_subscriptions, timestamp}}            on connect, then every STATS_INTERVAL_MS
 *   {"type":"event","data":{event_id, type, severity, description, asset, timestamp, watchdog, data,
 *     metadata}}                                    each watchdog event as it is stored (spec 2.4)
 *   {"type":"health","data":{"status":"healthy"|"degraded"|"unhealthy","watchdogs":[health records],
 *     "timestamp"}}                                 every STATS_INTERVAL_MS, and when a status changes
 *   {"type":"replay","data":{"count","complete"}}   after the stored events a connection asked for
 *                                                   in its URL (sent as `event` messages, oldest first,
 *                                                   after the opening health and before any live event);
 *                                                   `complete` is false when older ones were left out
 *   {"type":"pong","data":{"timestamp"}}            the answer to a ping
 *   {"type":"filter","data":{severities, event_types, watchdogs, symbols}}   a filter, as now applied
 *   {"type":"error","data":{"code","message","field"?}}  a message that could not be taken; the
 *                                                   connection stays open
 *
 * Client to server:
 *   {"type":"ping"}
 *   {"type":"filter","filter":{"severities":[...],"event_types":[...],"watchdogs":[...],"symbols":[...]}}
 *     narrows the events this connection receives (every list optional; empty or absent: any; an
 *     event about no asset passes any symbol filter); `{"filter":{}}` receives everything again.
 *
 * Anything else gets an error message. A connection receives every event until it sends a filter.
 *
 * Query parameters of the upgrade URL (dashboard.params.ts `streamParams`), all optional:
 *   severity, event_type, watchdog, symbol   the first filter (as a filter message would set it)
 *   last=N                                   replay the newest N stored events that pass it (1..1000)
 *   since=<event id | ISO 8601 date-time>    replay the stored events after that id (exclusive: a
 *                                            reconnecting client resumes without a gap or a repeat)
 *                                            or that occurred at or after that time; the newest
 *                                            `last` of them, or 1000
 * A bad one gets an error message naming the parameter, and the connection is closed with 1008.
 */
import { ValidationError } from '../../platform/errors.ts';
import { type EventFilter, parseEventQuery } from '../event-filter.ts';
import { FILTER_WIRE_KEYS, filterKeyWire, filterWire } from './dashboard.wire.ts';

/** How often stats and health are sent (health also when a watchdog's status changes). */
export const STATS_INTERVAL_MS = 10_000;
/** How often health is looked at for a change between two regular sends. */
export const HEALTH_POLL_MS = 2_000;
/** Client messages per second (sustained) and at once, before the connection is closed. */
export const MESSAGE_RATE = { perSecond: 5, burst: 20 } as const;

/** Codes of the error table (the GraphQL ErrorCode enum describes each), as every surface uses them. */
export type DashboardErrorCode = 'BAD_USER_INPUT' | 'RATE_LIMITED' | 'SUBSCRIPTION_LIMIT' | 'INTERNAL';

export type DashboardClientMessage =
  | { readonly type: 'ping' }
  | { readonly type: 'filter'; readonly filter: EventFilter };

export type ParsedMessage =
  | { readonly ok: true; readonly message: DashboardClientMessage }
  | {
      readonly ok: false;
      readonly code: DashboardErrorCode;
      readonly message: string;
      readonly field?: string;
    };

/** Longest piece of client input quoted back in an error. */
const MAX_QUOTED = 32;

function quoted(value: unknown): string {
  const text = typeof value === 'string' ? value : `(${Array.isArray(value) ? 'a list' : typeof value})`;
  return JSON.stringify(text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text);
}

export function parseDashboardMessage(raw: string): ParsedMessage {
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return { ok: false, code: 'BAD_USER_INPUT', message: 'message is not valid JSON', field: 'message' };
  }
  if (!isObject(data)) {
    return { ok: false, code: 'BAD_USER_INPUT', message: 'message must be a JSON object', field: 'message' };
  }
  if (data.type === 'ping') return { ok: true, message: { type: 'ping' } };
  if (data.type !== 'filter') {
    return {
      ok: false,
      code: 'BAD_USER_INPUT',
      message: `type: unknown message type ${quoted(data.type)}; expected ping or filter`,
      field: 'type',
    };
  }
  const given = data.filter ?? {};
  if (!isObject(given)) {
    return { ok: false, code: 'BAD_USER_INPUT', message: 'filter: must be an object', field: 'filter' };
  }
  const input: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(given)) {
    const field = FILTER_WIRE_KEYS[key];
    if (!field) {
      return {
        ok: false,
        code: 'BAD_USER_INPUT',
        message: `filter.${key.slice(0, MAX_QUOTED)}: unknown; expected ${Object.keys(FILTER_WIRE_KEYS).join(', ')}`,
        field: `filter.${key.slice(0, MAX_QUOTED)}`,
      };
    }
    input[field] = value;
  }
  try {
    const { severities, eventTypes, watchdogs, symbols } = parseEventQuery(input);
    return {
      ok: true,
      message: {
        type: 'filter',
        filter: { severities, eventTypes, watchdogs, symbols, since: undefined, until: undefined },
      },
    };
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const field = `filter.${filterKeyWire(error.field)}`;
    return {
      ok: false,
      code: 'BAD_USER_INPUT',
      message: `${field}: ${error.message.slice(error.field.length + 2)}`,
      field,
    };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const dashboardMessages = {
  stats: (data: unknown) => ({ type: 'stats', data }),
  event: (data: unknown) => ({ type: 'event', data }),
  health: (status: string, watchdogs: readonly unknown[], timestamp: Date) => ({
    type: 'health',
    data: { status, watchdogs, timestamp: timestamp.toISOString() },
  }),
  /** After the replayed events: how many, and whether older ones the request selects were left out. */
  replay: (count: number, complete: boolean) => ({ type: 'replay', data: { count, complete } }),
  pong: (timestamp: Date) => ({ type: 'pong', data: { timestamp: timestamp.toISOString() } }),
  filter: (filter: EventFilter) => ({ type: 'filter', data: filterWire(filter) }),
  error: (code: DashboardErrorCode, message: string, field?: string) => ({
    type: 'error',
    data: { code, message, ...(field ? { field } : {}) },
  }),
};

import { ValidationError } from '../platform/errors.ts';
import { SEVERITIES, type Severity } from './detectors/finding.ts';
import { isEventId } from './event-id.ts';
import { EVENT_TYPES, type EventType, WATCHDOG_NAMES, type WatchdogName } from './registry.ts';

export const DEFAULT_EVENT_LIMIT = 100;
export const MAX_EVENT_LIMIT = 1_000;
/** Entries per list filter: more symbols than this is not a filter but a scan. */
export const MAX_FILTER_VALUES = 100;
const MAX_SYMBOL_LENGTH = 64;

/** A query as a caller sends it; every field is optional and checked by `parseEventQuery`. */
export interface EventQueryInput {
  readonly limit?: number | null | undefined;
  readonly severities?: readonly string[] | null | undefined;
  readonly eventTypes?: readonly string[] | null | undefined;
  readonly symbols?: readonly string[] | null | undefined;
  readonly watchdogs?: readonly string[] | null | undefined;
  readonly since?: Date | string | null | undefined;
  readonly until?: Date | string | null | undefined;
  readonly cursor?: string | null | undefined;
}

/**
 * Fields are AND-ed, values in one list OR-ed, and an absent or empty list means any. As existing
 * clients expect, an event about no asset (an exchange outage) passes any symbol filter.
 */
export interface EventFilter {
  readonly severities: readonly Severity[];
  readonly eventTypes: readonly EventType[];
  readonly symbols: readonly string[];
  readonly watchdogs: readonly WatchdogName[];
  /** Inclusive. */
  readonly since: Date | undefined;
  /** Exclusive. */
  readonly until: Date | undefined;
}

/** The filter every event passes: a feed of everything. */
export const ANY_EVENT: EventFilter = Object.freeze({
  severities: [],
  eventTypes: [],
  watchdogs: [],
  symbols: [],
  since: undefined,
  until: undefined,
});

export interface EventQuery extends EventFilter {
  readonly limit: number;
  /** The id of the last event of the previous page: this page holds older ones. */
  readonly after: string | undefined;
}

export function parseEventQuery(input: EventQueryInput): EventQuery {
  const limit = input.limit ?? DEFAULT_EVENT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENT_LIMIT) {
    throw new ValidationError('limit', `must be an integer from 1 to ${MAX_EVENT_LIMIT}`);
  }
  const since = parseTime('since', input.since);
  const until = parseTime('until', input.until);
  if (since && until && since >= until) throw new ValidationError('until', 'must be after since');
  return {
    limit,
    severities: oneOf('severities', input.severities, SEVERITIES),
    eventTypes: oneOf('eventTypes', input.eventTypes, EVENT_TYPES),
    watchdogs: oneOf('watchdogs', input.watchdogs, WATCHDOG_NAMES),
    symbols: symbolsOf(input.symbols),
    since,
    until,
    after: input.cursor == null ? undefined : decodeEventCursor(input.cursor),
  };
}

/** Does an event pass a filter (for listeners on the live feed; the store applies the same rules in SQL). */
export function matchesEventFilter(
  event: {
    readonly severity: Severity;
    readonly eventType: EventType;
    readonly watchdog: WatchdogName;
    readonly symbol: string | null;
    readonly occurredAt: Date;
  },
  filter: EventFilter,
): boolean {
  if (filter.severities.length > 0 && !filter.severities.includes(event.severity)) return false;
  if (filter.eventTypes.length > 0 && !filter.eventTypes.includes(event.eventType)) return false;
  if (filter.watchdogs.length > 0 && !filter.watchdogs.includes(event.watchdog)) return false;
  if (filter.symbols.length > 0 && event.symbol !== null && !filter.symbols.includes(event.symbol))
    return false;
  if (filter.since && event.occurredAt < filter.since) return false;
  if (filter.until && event.occurredAt >= filter.until) return false;
  return true;
}

/** Cursors are opaque to callers, so the keyset behind them may change without breaking anyone. */
export function encodeEventCursor(id: string): string {
  return Buffer.from(`e1:${id}`).toString('base64url');
}

function decodeEventCursor(cursor: string): string {
  const text = cursor.length <= 64 ? Buffer.from(cursor, 'base64url').toString() : '';
  const id = text.startsWith('e1:') ? text.slice(3) : '';
  if (!isEventId(id)) throw new ValidationError('cursor', 'is not a cursor from a previous page');
  return id;
}

function parseTime(field: string, value: Date | string | null | undefined): Date | undefined {
  if (value == null) return undefined;
  const date = typeof value === 'string' ? new Date(value) : value;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) {
    throw new ValidationError(field, 'must be an ISO 8601 date-time');
  }
  return date;
}

function list(field: string, values: readonly string[] | null | undefined): readonly string[] {
  if (values == null) return [];
  if (!Array.isArray(values)) throw new ValidationError(field, 'must be a list');
  if (values.length > MAX_FILTER_VALUES) {
    throw new ValidationError(field, `may hold at most ${MAX_FILTER_VALUES} values`);
  }
  return [...new Set(values)];
}

function oneOf<T extends string>(
  field: string,
  values: readonly string[] | null | undefined,
  allowed: readonly T[],
): T[] {
  const out = list(field, values);
  const unknown = out.find((v) => !(allowed as readonly string[]).includes(v));
  if (unknown !== undefined) {
    throw new ValidationError(field, `unknown value; expected one of ${allowed.join(', ')}`);
  }
  return out as T[];
}

function symbolsOf(values: readonly string[] | null | undefined): string[] {
  const out = list('symbols', values).map((s) => (typeof s === 'string' ? s.trim().toUpperCase() : ''));
  if (out.some((s) => s.length === 0 || s.length > MAX_SYMBOL_LENGTH)) {
    throw new ValidationError('symbols', `each symbol must have 1 to ${MAX_SYMBOL_LENGTH} characters`);
  }
  return [...new Set(out)];
}

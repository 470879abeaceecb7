/**
 * The dashboard's wire shapes (snake_case, as clients of the earlier implementation read them) and
 * the mapping to them, from GraphQL data (the routes and tools) or from the domain's own values (the
 * stream): one mapping, so every surface answers alike. Also the reading of the routes' query
 * parameters. Pure: no I/O, no clock.
 */

import { ValidationError } from '../platform/errors.ts';
import { enumName, fromEnumName } from '../platform/graphql/enum-values.ts';
import type { EventData, HealthData, MonitorData } from './dashboard.documents.ts';
import { EVENT_TYPES, SEVERITIES, WATCHDOG_NAMES, type WatchdogName } from './detectors/types.ts';
import { type EventQuery, parseEventQuery } from './event-filter.ts';
import { WATCHDOG_STATUSES, type WatchdogStatus } from './watchdogs-api.ts';

type Time = Date | string;

const iso = (t: Time): string => (typeof t === 'string' ? new Date(t).toISOString() : t.toISOString());
const isoOrNull = (t: Time | null | undefined): string | null => (t == null ? null : iso(t));

// ---- events (spec 2.4 plus the fields of the earlier implementation) ------------------------------

export interface EventView {
  readonly id: string;
  readonly watchdog: string;
  readonly eventType: string;
  readonly severity: string;
  readonly asset: {
    readonly symbol: string;
    readonly assetType: string;
    readonly name?: string | null | undefined;
    readonly market?: string | null | undefined;
    readonly exchange?: string | null | undefined;
    readonly currency?: string | null | undefined;
    readonly pair?: readonly string[] | null | undefined;
  } | null;
  readonly description: string;
  readonly occurredAt: Time;
  readonly data: unknown;
}

export interface EventAssetWire {
  readonly symbol: string;
  readonly asset_type: string;
  readonly name?: string;
  readonly market?: string;
  readonly exchange?: string;
  readonly currency?: string;
  readonly pair?: readonly string[];
}

export interface EventWire {
  readonly event_id: string;
  readonly type: string;
  readonly severity: string;
  readonly description: string;
  /** Null for a market-wide event (an exchange outage). */
  readonly asset: EventAssetWire | null;
  /** ISO 8601, UTC. */
  readonly timestamp: string;
  readonly watchdog: string;
  readonly data: unknown;
  readonly metadata: Record<string, never>;
}

export function eventWire(e: EventView): EventWire {
  const a = e.asset;
  return {
    event_id: e.id,
    type: e.eventType,
    severity: e.severity,
    description: e.description,
    asset: a && {
      symbol: a.symbol,
      asset_type: a.assetType,
      // The optional parts appear only when known, as the earlier implementation sent them.
      ...(a.name != null ? { name: a.name } : {}),
      ...(a.market != null ? { market: a.market } : {}),
      ...(a.exchange != null ? { exchange: a.exchange } : {}),
      ...(a.currency != null ? { currency: a.currency } : {}),
      ...(a.pair != null ? { pair: [...a.pair] } : {}),
    },
    timestamp: iso(e.occurredAt),
    watchdog: e.watchdog,
    data: e.data ?? {},
    metadata: {},
  };
}

const eventTypeOf = fromEnumName(EVENT_TYPES);
const severityOf = fromEnumName(SEVERITIES);
const watchdogOf = fromEnumName(WATCHDOG_NAMES);
const statusOf = fromEnumName(WATCHDOG_STATUSES);

/** GraphQL's spelling of an event (UPPER_CASE enums) in the domain's. */
export function eventFromGraphql(d: EventData): EventView {
  return {
    ...d,
    watchdog: watchdogOf(d.watchdog),
    eventType: eventTypeOf(d.eventType),
    severity: severityOf(d.severity),
  };
}

// ---- watchdog health -------------------------------------------------------------------------------

export interface HealthView {
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly running: boolean;
  readonly status: string;
  readonly intervalSeconds: number;
  readonly lastCheck: Time | null;
  readonly lastCheckMs: number | null;
  readonly lastEvent: Time | null;
  readonly checks: number;
  readonly events: number;
  readonly errors: number;
  readonly consecutiveFailures: number;
  readonly lastChecked: number;
  readonly lastGaps: number;
  readonly lastError: string | null;
  readonly since: Time;
  readonly uptimeSeconds: number | null;
  readonly updatedBy: string | null;
}

export type HealthWire = ReturnType<typeof healthWire>;

export function healthWire(h: HealthView) {
  return {
    name: h.name,
    description: h.description,
    enabled: h.enabled,
    running: h.running,
    status: h.status,
    interval_seconds: h.intervalSeconds,
    last_check: isoOrNull(h.lastCheck),
    last_check_ms: h.lastCheckMs,
    last_event: isoOrNull(h.lastEvent),
    total_checks: h.checks,
    events_emitted: h.events,
    errors: h.errors,
    consecutive_failures: h.consecutiveFailures,
    last_error: h.lastError,
    last_checked: h.lastChecked,
    last_gaps: h.lastGaps,
    uptime_seconds: h.uptimeSeconds,
    since: iso(h.since),
    updated_by: h.updatedBy,
  };
}

export function healthFromGraphql(d: HealthData): HealthView {
  return { ...d, name: watchdogOf(d.name), status: statusOf(d.status) };
}

/** Whole seconds since it was enabled or restarted; null while it is disabled. */
export function uptimeSeconds(
  health: { readonly enabled: boolean; readonly since: Date },
  now: Date,
): number | null {
  if (!health.enabled) return null;
  // Never negative: clocks of instances differ a little.
  return Math.max(0, Math.floor((now.getTime() - health.since.getTime()) / 1000));
}

/**
 * One word for the whole set: `healthy` when every enabled watchdog is running, `unhealthy` when one
 * is failing or stopped (it reports nothing), `degraded` otherwise. Disabled ones do not count: an
 * operator turned them off.
 */
export function overallHealth(statuses: readonly WatchdogStatus[]): 'healthy' | 'degraded' | 'unhealthy' {
  if (statuses.some((s) => s === 'failing' || s === 'stopped')) return 'unhealthy';
  if (statuses.some((s) => s === 'degraded')) return 'degraded';
  return 'healthy';
}

// ---- statistics -------------------------------------------------------------------------------------

export interface StatsView {
  readonly totalEvents: number;
  readonly eventsBySeverity: Readonly<Record<string, number>>;
  readonly activeWatchdogs: number;
  readonly healthyWatchdogs: number;
  readonly activeSubscriptions: number;
  readonly timestamp: Time;
}

export function statsWire(s: StatsView) {
  return {
    total_events: s.totalEvents,
    events_by_severity: Object.fromEntries(SEVERITIES.map((sev) => [sev, s.eventsBySeverity[sev] ?? 0])),
    active_watchdogs: s.activeWatchdogs,
    healthy_watchdogs: s.healthyWatchdogs,
    active_subscriptions: s.activeSubscriptions,
    timestamp: iso(s.timestamp),
  };
}

// ---- multi-asset monitor ----------------------------------------------------------------------------

const assetTypeOf = (name: string) => name.toLowerCase();

/** One entry per symbol asked, in order: its data, or why there is none (never a null price). */
export function monitorWire(data: MonitorData) {
  return data.quotes.map((r) => {
    const symbol = r.instrument?.symbol ?? r.requested;
    if (!r.quote || !r.instrument) {
      return {
        symbol,
        requested: r.requested,
        error: r.error ?? { code: 'INTERNAL', message: 'no quote and no reason given' },
      };
    }
    return {
      symbol,
      requested: r.requested,
      asset_type: assetTypeOf(r.instrument.assetClass),
      price: r.quote.price,
      change_percent: r.quote.changePercent,
      volume: r.quote.volume,
      currency: r.quote.currency,
      timestamp: iso(r.quote.asOf),
      provider: r.lineage?.used.join(', ') ?? '',
      simulated: r.lineage?.simulated ?? false,
    };
  });
}

// ---- query parameters of GET /dashboard/events and /dashboard/assets/monitor ------------------------

/** A REST parameter for each filter field, so an error names what the client wrote. */
const PARAMETER: Readonly<Record<string, string>> = {
  severities: 'severity',
  eventTypes: 'event_type',
  watchdogs: 'watchdog',
  symbols: 'symbol',
};

/** Every value of a parameter, repeated or comma-separated (`severity=high,critical`). */
export function listParam(params: URLSearchParams, ...names: string[]): string[] | undefined {
  const raw = names.flatMap((n) => params.getAll(n));
  if (raw.length === 0) return undefined;
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function intParam(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^-?\d{1,7}$/.test(raw.trim())) throw new ValidationError(name, 'must be an integer');
  return Number(raw);
}

/**
 * The parameters of GET /dashboard/events, checked as every surface checks a filter (errors name
 * the parameter: `severity`, `event_type`, ...), and the GraphQL variables that ask for them.
 */
export function eventParams(params: URLSearchParams): {
  query: EventQuery;
  variables: Record<string, unknown>;
} {
  const input = {
    limit: intParam(params, 'limit'),
    severities: listParam(params, 'severity', 'severities'),
    eventTypes: listParam(params, 'event_type', 'event_types'),
    watchdogs: listParam(params, 'watchdog', 'watchdogs'),
    symbols: listParam(params, 'symbol', 'asset', 'assets', 'symbols'),
    since: params.get('since') ?? undefined,
    until: params.get('until') ?? undefined,
    cursor: params.get('cursor') ?? undefined,
  };
  let query: EventQuery;
  try {
    query = parseEventQuery(input);
  } catch (error) {
    if (error instanceof ValidationError && PARAMETER[error.field]) {
      throw new ValidationError(PARAMETER[error.field]!, error.message.slice(error.field.length + 2));
    }
    throw error;
  }
  const filter = {
    severities: query.severities.map(enumName),
    eventTypes: query.eventTypes.map(enumName),
    watchdogs: query.watchdogs.map(enumName),
    symbols: query.symbols,
    ...(query.since ? { since: query.since.toISOString() } : {}),
    ...(query.until ? { until: query.until.toISOString() } : {}),
  };
  return { query, variables: { filter, limit: query.limit, cursor: input.cursor ?? null } };
}

/** The parameters of GET /dashboard/assets/monitor as variables of the `quotes` query. */
export function monitorParams(params: URLSearchParams, assetClasses: readonly string[], maxSymbols: number) {
  const symbols = listParam(params, 'symbols') ?? [];
  if (symbols.length === 0)
    throw new ValidationError('symbols', 'name at least one symbol: symbols=AAPL,MSFT');
  if (symbols.length > maxSymbols) {
    throw new ValidationError('symbols', `at most ${maxSymbols} symbols, got ${symbols.length}`);
  }
  const assetType = params.get('asset_type')?.trim().toLowerCase();
  if (assetType && !assetClasses.includes(assetType)) {
    throw new ValidationError('asset_type', `must be one of ${assetClasses.join(', ')}`);
  }
  const market = params.get('market')?.trim();
  return {
    symbols,
    ...(assetType ? { asset_type: enumName(assetType) } : {}),
    ...(market ? { market } : {}),
  };
}

/** A watchdog name as URLs spell it (`price_anomaly`). */
export function isWatchdogName(name: string): name is WatchdogName {
  return (WATCHDOG_NAMES as readonly string[]).includes(name);
}

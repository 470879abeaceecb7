import { enumName, fromEnumName } from '../../platform/graphql/enum-values.ts';
import type { ToolArgs } from '../../platform/operations/tool.ts';
import { SEVERITIES } from '../detectors/finding.ts';
import type { EventFilter } from '../event-filter.ts';
import { EVENT_TYPES, WATCHDOG_NAMES } from '../registry.ts';
import { WATCHDOG_STATUSES, type WatchdogStatus } from '../watchdogs-api.ts';
import type { EventData, HealthData, HealthFields, MonitorData } from './dashboard.documents.ts';
import type { HealthWire } from './dashboard.schemas.wire.ts';

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

/** A page of events as the events tool and the `vigil://events` resource send it. */
export function eventPageWire(page: {
  readonly events: readonly EventData[];
  readonly nextCursor: string | null;
}) {
  return {
    events: page.events.map((e) => eventWire(eventFromGraphql(e))),
    next_cursor: page.nextCursor,
  };
}

// ---- stream filter (dashboard.protocol.ts) ------------------------------------------------------------

/** Filter keys as a stream client writes them, and the field of the filter each is checked as. */
export const FILTER_WIRE_KEYS: Readonly<
  Record<string, 'severities' | 'eventTypes' | 'watchdogs' | 'symbols'>
> = {
  severities: 'severities',
  event_types: 'eventTypes',
  watchdogs: 'watchdogs',
  symbols: 'symbols',
};
const FILTER_FIELD_WIRE: Readonly<Record<string, string>> = { eventTypes: 'event_types' };

/** A field of the filter as a stream client writes it (`eventTypes` is `event_types`). */
export function filterKeyWire(field: string): string {
  return FILTER_FIELD_WIRE[field] ?? field;
}

/** A filter as the stream's `filter` message echoes it. */
export function filterWire(filter: EventFilter) {
  return {
    severities: filter.severities,
    event_types: filter.eventTypes,
    watchdogs: filter.watchdogs,
    symbols: filter.symbols,
  };
}

// ---- watchdog health -------------------------------------------------------------------------------

/**
 * What healthWire reads: the health and its uptime (HealthFields), with times as Dates (the
 * domain's) or ISO strings (GraphQL data).
 */
export type HealthView = {
  readonly [K in keyof HealthFields]: HealthFields[K] extends Date
    ? Time
    : HealthFields[K] extends Date | null
      ? Time | null
      : HealthFields[K];
};

export function healthWire(h: HealthView): HealthWire {
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

/**
 * Variables of MONITOR_ASSETS: its `$asset_type` keeps the wire's spelling, since the monitor-assets
 * tool's argument is named after it. `assetType` is an asset class (`equity`).
 */
export function monitorVariables(symbols: unknown, assetType: string | undefined, market: unknown) {
  return {
    symbols,
    ...(assetType ? { asset_type: enumName(assetType) } : {}),
    ...(market ? { market } : {}),
  };
}

/** The monitor-assets tool's arguments (monitorArguments, dashboard.schemas.wire.ts) as those variables. */
export function monitorToolVariables(args: ToolArgs) {
  return monitorVariables(args.symbols, args.asset_type ? String(args.asset_type) : undefined, args.market);
}

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

/**
 * The GraphQL operations the dashboard routes and the watchdog tools run (through the operation
 * runner, as the caller), and the shapes of their data. Enum values arrive in their GraphQL
 * spelling (PRICE_ANOMALY) and times as ISO strings; dashboard.wire.ts maps both to the wire.
 */

import type { WatchdogHealth } from '../watchdogs-api.ts';

/**
 * A model as GraphQL data carries it: times as ISO strings, enum values in GraphQL's spelling
 * (plain strings).
 */
export type GraphqlData<T> = {
  readonly [K in keyof T]: T[K] extends Date
    ? string
    : T[K] extends Date | null
      ? string | null
      : T[K] extends string
        ? string
        : T[K];
};

/** The health the documents select: the model, and the uptime GraphQL computes from it. */
export type HealthFields = WatchdogHealth & { readonly uptimeSeconds: number | null };

export type HealthData = GraphqlData<HealthFields>;

/** Every field of HealthFields, once (the type refuses a missing or an unknown one), in selection order. */
const HEALTH_SELECTION: Readonly<Record<keyof HealthFields, true>> = {
  name: true,
  description: true,
  enabled: true,
  running: true,
  status: true,
  intervalSeconds: true,
  lastCheck: true,
  lastCheckMs: true,
  lastEvent: true,
  checks: true,
  events: true,
  errors: true,
  consecutiveFailures: true,
  lastChecked: true,
  lastGaps: true,
  lastError: true,
  since: true,
  uptimeSeconds: true,
  updatedBy: true,
};

const HEALTH_FIELDS = Object.keys(HEALTH_SELECTION).join(' ');

const EVENT_FIELDS =
  'id watchdog eventType severity symbol asset { symbol assetType name market exchange currency pair } ' +
  'description occurredAt data';

const STATS_FIELDS =
  'totalEvents eventsBySeverity { low medium high critical } activeWatchdogs healthyWatchdogs ' +
  'activeSubscriptions timestamp';

export interface EventData {
  readonly id: string;
  readonly watchdog: string;
  readonly eventType: string;
  readonly severity: string;
  readonly symbol: string | null;
  readonly asset: {
    readonly symbol: string;
    readonly assetType: string;
    readonly name: string | null;
    readonly market: string | null;
    readonly exchange: string | null;
    readonly currency: string | null;
    readonly pair: readonly string[] | null;
  } | null;
  readonly description: string;
  readonly occurredAt: string;
  readonly data: unknown;
}

export interface StatsData {
  readonly totalEvents: number;
  readonly eventsBySeverity: Readonly<Record<'low' | 'medium' | 'high' | 'critical', number>>;
  readonly activeWatchdogs: number;
  readonly healthyWatchdogs: number;
  readonly activeSubscriptions: number;
  readonly timestamp: string;
}

export interface MonitorData {
  readonly quotes: ReadonlyArray<{
    readonly requested: string;
    readonly instrument: { readonly symbol: string; readonly assetClass: string } | null;
    readonly quote: {
      readonly price: number;
      readonly changePercent: number | null;
      readonly volume: number | null;
      readonly currency: string;
      readonly asOf: string;
    } | null;
    readonly lineage: { readonly used: readonly string[]; readonly simulated: boolean } | null;
    readonly error: { readonly code: string; readonly message: string } | null;
  }>;
}

export const DASHBOARD_STATS = `query DashboardStats { dashboardStats { ${STATS_FIELDS} } }`;

export const WATCHDOGS = `query Watchdogs { watchdogs { ${HEALTH_FIELDS} } }`;

export const WATCHDOG = `query Watchdog($name: WatchdogName!) { watchdog(name: $name) { ${HEALTH_FIELDS} } }`;

export const WATCHDOG_EVENTS = /* GraphQL */ `
  query WatchdogEvents($filter: WatchdogEventFilter, $limit: Int, $cursor: String) {
    watchdogEvents(filter: $filter, limit: $limit, cursor: $cursor) { events { ${EVENT_FIELDS} } nextCursor }
  }`;

export const MONITOR_ASSETS = /* GraphQL */ `
  query MonitorAssets($symbols: [String!]!, $asset_type: AssetClass, $market: String) {
    quotes(symbols: $symbols, assetClass: $asset_type, market: $market) {
      requested
      instrument { symbol assetClass }
      quote { price changePercent volume currency asOf }
      lineage { used simulated }
      error { code message }
    }
  }`;

/** The three switches; each returns the watchdog's health after the change. */
export const SWITCH_DOCUMENTS = {
  enable: `mutation EnableWatchdog($name: WatchdogName!) { enableWatchdog(name: $name) { ${HEALTH_FIELDS} } }`,
  disable: `mutation DisableWatchdog($name: WatchdogName!) { disableWatchdog(name: $name) { ${HEALTH_FIELDS} } }`,
  restart: `mutation RestartWatchdog($name: WatchdogName!) { restartWatchdog(name: $name) { ${HEALTH_FIELDS} } }`,
} as const;

export type SwitchAction = keyof typeof SWITCH_DOCUMENTS;

export const SWITCH_FIELDS: Readonly<Record<SwitchAction, string>> = {
  enable: 'enableWatchdog',
  disable: 'disableWatchdog',
  restart: 'restartWatchdog',
};

/** What the response says was done (`{"status":"enabled"}`), as existing clients read it. */
export const SWITCH_STATUS: Readonly<Record<SwitchAction, string>> = {
  enable: 'enabled',
  disable: 'disabled',
  restart: 'restarted',
};

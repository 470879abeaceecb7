/** The overview's GraphQL documents, the types they return, and the names and tones it shows. */

export const WATCHDOGS = [
  'PRICE_ANOMALY',
  'UNUSUAL_VOLUME',
  'WHALE_MOVEMENT',
  'FUNDING_RATE',
  'LIQUIDITY_DROP',
  'CORRELATION_BREAKDOWN',
  'EXCHANGE_OUTAGE',
  'EARNINGS_ANOMALY',
] as const;

/** The schema's EventSeverity values, in rising order (the schema lists them alphabetically). */
export const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** PRICE_ANOMALY -> "Price anomaly". */
export function label(name: string): string {
  const words = name.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A watchdog status as one of the shared badge tones (styles.css .tone-*). */
export function statusTone(status: string): string {
  switch (status) {
    case 'RUNNING':
      return 'running';
    case 'DEGRADED':
      return 'degraded';
    case 'FAILING':
      return 'error';
    default:
      return 'stopped';
  }
}

export interface WatchdogHealth {
  readonly name: string;
  readonly description: string;
  readonly status: string;
  readonly enabled: boolean;
  readonly lastCheck: string | null;
  readonly lastEvent: string | null;
  readonly events: number;
  readonly errors: number;
  readonly consecutiveFailures: number;
  readonly lastError: string | null;
  readonly intervalSeconds: number;
}

export const WATCHDOGS_QUERY = `query OverviewWatchdogs {
  watchdogs {
    name description status enabled lastCheck lastEvent events errors consecutiveFailures lastError
    intervalSeconds
  }
}`;

export interface WatchdogEvent {
  readonly id: string;
  readonly occurredAt: string;
  readonly severity: Severity;
  readonly eventType: string;
  readonly watchdog: string;
  readonly symbol: string | null;
  readonly description: string;
  readonly data: unknown;
  readonly asset: {
    readonly symbol: string;
    readonly name: string | null;
    readonly assetType: string;
    readonly exchange: string | null;
    readonly market: string | null;
    readonly currency: string | null;
    readonly pair: readonly string[] | null;
  } | null;
}

const EVENT_FIELDS = `id occurredAt severity eventType watchdog symbol description data
  asset { symbol name assetType exchange market currency pair }`;

/** The filter as the API takes it (WatchdogEventFilter); absent lists mean "any". */
export interface EventFilter {
  watchdogs?: string[];
  severities?: string[];
  symbols?: string[];
}

export const EVENTS_QUERY = `query OverviewEvents($filter: WatchdogEventFilter, $limit: Int) {
  watchdogEvents(filter: $filter, limit: $limit) { events { ${EVENT_FIELDS} } }
}`;

export const EVENTS_SUBSCRIPTION = `subscription OverviewFeed($filter: WatchdogEventFilter, $last: Int) {
  watchdogEvents(filter: $filter, last: $last) { ${EVENT_FIELDS} }
}`;

/** Any new event, unfiltered and without replay: the signal to refresh the board and the counts. */
export const ARRIVALS_SUBSCRIPTION = `subscription OverviewArrivals {
  watchdogEvents { id }
}`;

/** One page of the last 24 h, only what counting needs. */
export const RECENT_QUERY = `query OverviewRecent($filter: WatchdogEventFilter, $cursor: String) {
  watchdogEvents(filter: $filter, limit: 1000, cursor: $cursor) {
    events { id occurredAt severity watchdog }
    nextCursor
  }
}`;

export const STATS_QUERY = `query OverviewStats {
  dashboardStats { totalEvents }
}`;

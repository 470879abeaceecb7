import { z } from 'zod';
import { MAX_SYMBOLS_PER_REQUEST } from '../market-data/limits.ts';
import { enumName } from '../platform/graphql/enum-values.ts';
import type { ToolArgs, ToolDefinition } from '../platform/operations/tool.ts';
import {
  DASHBOARD_STATS,
  type EventData,
  type HealthData,
  MONITOR_ASSETS,
  type MonitorData,
  type StatsData,
  SWITCH_DOCUMENTS,
  SWITCH_FIELDS,
  SWITCH_STATUS,
  type SwitchAction,
  WATCHDOGS,
} from './dashboard/dashboard.documents.ts';
import {
  eventPageSchema,
  healthSchema,
  monitorArguments,
  monitorSchema,
  statsSchema,
  switchSchema,
} from './dashboard/dashboard.schemas.wire.ts';
import {
  eventPageWire,
  healthFromGraphql,
  healthWire,
  monitorToolVariables,
  monitorWire,
  overallHealth,
  statsWire,
} from './dashboard/dashboard.wire.ts';
import { SEVERITIES } from './detectors/finding.ts';
import { DEFAULT_EVENT_LIMIT, MAX_EVENT_LIMIT, MAX_FILTER_VALUES } from './event-filter.ts';
import { EVENT_TYPES, WATCHDOG_NAMES } from './registry.ts';

/**
 * The dashboard as MCP tools (and REST tool routes): GraphQL documents mapped to the same wire as
 * the dashboard HTTP routes (dashboard.wire.ts). The switches need the `admin` scope, which the
 * tools inherit from their mutations.
 */

const nameArgument = { schema: z.enum(WATCHDOG_NAMES), description: 'The watchdog (price_anomaly, ...)' };
const byName = (args: ToolArgs) => (args.name === undefined ? {} : { name: enumName(String(args.name)) });
const listOf = <T extends string>(values: readonly [T, ...T[]], what: string) => ({
  schema: z.array(z.enum(values)).max(MAX_FILTER_VALUES),
  description: `${what} (any of them; absent: any)`,
});

const getDashboardStats: ToolDefinition<{ dashboardStats: StatsData }> = {
  name: 'get-dashboard-stats',
  title: 'Dashboard statistics',
  description:
    'Events kept (total and by severity), watchdogs enabled and healthy, and live listeners on the event feed.',
  document: DASHBOARD_STATS,
  result: (data) => statsWire(data.dashboardStats),
  outputSchema: statsSchema,
  annotations: { readOnlyHint: true },
};

const getWatchdogStatus: ToolDefinition<{ watchdogs: HealthData[] }> = {
  name: 'get-watchdog-status',
  title: 'Watchdog status',
  description:
    'Health of every watchdog, or of the one named: status (running, disabled, stopped, degraded, failing), ' +
    'last check, counters since it was last enabled or restarted, last error; `status` sums up the enabled ones ' +
    '(healthy, degraded or unhealthy).',
  // One operation for both: the eight records are one small read, and the name only narrows them.
  document: WATCHDOGS,
  arguments: { name: { ...nameArgument, schema: nameArgument.schema.optional() } },
  variables: () => ({}),
  result: (data, args) => {
    const watchdogs = data.watchdogs
      .map((h) => healthWire(healthFromGraphql(h)))
      .filter((h) => args.name === undefined || h.name === args.name);
    const enabled = watchdogs.filter((h) => h.enabled).map((h) => h.status);
    return { status: overallHealth(enabled), watchdogs };
  },
  outputSchema: z.object({
    status: z.enum(['healthy', 'degraded', 'unhealthy']),
    watchdogs: z.array(healthSchema),
  }),
  annotations: { readOnlyHint: true },
};

const getWatchdogEvents: ToolDefinition<{
  watchdogEvents: { events: EventData[]; nextCursor: string | null };
}> = {
  name: 'get-watchdog-events',
  title: 'Watchdog events',
  description:
    'Stored watchdog events, newest first: type, severity, description, asset, time and measured data. ' +
    'Filters are AND-ed, values inside one list OR-ed; an event about no asset passes any symbol filter. ' +
    'Pass `next_cursor` back as `cursor` for older events.',
  document: /* GraphQL */ `
    query GetWatchdogEvents($severities: [EventSeverity!], $eventTypes: [WatchdogEventType!], $watchdogs: [WatchdogName!],
        $symbols: [String!], $since: DateTime, $until: DateTime, $limit: Int, $cursor: String) {
      watchdogEvents(
        filter: { severities: $severities, eventTypes: $eventTypes, watchdogs: $watchdogs, symbols: $symbols, since: $since, until: $until }
        limit: $limit
        cursor: $cursor
      ) {
        events { id watchdog eventType severity symbol asset { symbol assetType name market exchange currency pair } description occurredAt data }
        nextCursor
      }
    }`,
  arguments: {
    severities: listOf(SEVERITIES, 'Severities'),
    eventTypes: listOf(EVENT_TYPES, 'Event types'),
    watchdogs: listOf(WATCHDOG_NAMES, 'Emitting watchdogs'),
    symbols: { description: 'Symbols as watched: AAPL, BTC/USDT (absent: any)' },
    since: { description: 'Events at or after this ISO 8601 time' },
    until: { description: 'Events before this ISO 8601 time' },
    limit: {
      schema: z.number().int().min(1).max(MAX_EVENT_LIMIT),
      default: DEFAULT_EVENT_LIMIT,
      description: `Events to return, 1 to ${MAX_EVENT_LIMIT}`,
    },
    cursor: { description: '`next_cursor` of the previous answer' },
  },
  variables: (args) => {
    const variables: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(args)) {
      if (value === undefined) continue;
      const spelled = ['severities', 'eventTypes', 'watchdogs'].includes(key);
      variables[key] = spelled ? (value as string[]).map(enumName) : value;
    }
    return variables;
  },
  result: (data) => eventPageWire(data.watchdogEvents),
  outputSchema: eventPageSchema,
  annotations: { readOnlyHint: true },
};

const monitorAssets: ToolDefinition<MonitorData> = {
  name: 'monitor-assets',
  title: 'Monitor assets',
  description:
    `Latest price, change (percent), volume and provider of up to ${MAX_SYMBOLS_PER_REQUEST} symbols, in the ` +
    'order asked; a symbol that cannot be priced gets an `error` entry instead.',
  document: MONITOR_ASSETS,
  arguments: monitorArguments,
  variables: monitorToolVariables,
  result: (data) => ({ assets: monitorWire(data) }),
  outputSchema: monitorSchema,
  annotations: { readOnlyHint: true, openWorldHint: true },
};

const SWITCH_TITLES: Readonly<Record<SwitchAction, [string, string]>> = {
  enable: ['Enable a watchdog', 'Enables a watchdog on every instance from its next cycle (persisted).'],
  disable: ['Disable a watchdog', 'Disables a watchdog on every instance from its next cycle (persisted).'],
  restart: [
    'Restart a watchdog',
    'Clears its counters and failures and the memory of reported conditions, enables it, and runs a check now.',
  ],
};

const switches = (['enable', 'disable', 'restart'] as const).map(
  (action): ToolDefinition<Record<string, HealthData>> => ({
    name: `${action}-watchdog`,
    title: SWITCH_TITLES[action][0],
    description: `${SWITCH_TITLES[action][1]} Needs the admin scope. Returns the watchdog's health after it.`,
    document: SWITCH_DOCUMENTS[action],
    arguments: { name: nameArgument },
    variables: byName,
    result: (data) => {
      const health = healthWire(healthFromGraphql(data[SWITCH_FIELDS[action]]!));
      return { status: SWITCH_STATUS[action], watchdog: health.name, health };
    },
    outputSchema: switchSchema,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: action !== 'restart' },
  }),
);

export const watchdogsTools: readonly ToolDefinition<never>[] = [
  getDashboardStats,
  getWatchdogStatus,
  getWatchdogEvents,
  monitorAssets,
  ...switches,
];

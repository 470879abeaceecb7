import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { requiresScope } from '../platform/graphql/scope-guard.ts';
import type { HealthFields } from './dashboard/dashboard.documents.ts';
import { uptimeSeconds } from './dashboard/dashboard.wire.ts';
import { SEVERITIES, type Severity } from './detectors/finding.ts';
import { WATCHDOG_SUMMARIES } from './registry.ts';
import type { WatchedSubjects } from './watchdog.service.ts';
import { watchdogsDeps } from './watchdogs.deps.ts';
import type { DashboardStats, WatchdogHealth, WatchdogStatus } from './watchdogs-api.ts';

/**
 * The watchdogs as the dashboard sees them: their health, the dashboard statistics, and the
 * operator's switches (enable, disable, restart). Events are in watchdog-events.graphql.ts.
 */

export const WatchdogNameEnum = builder.enumType('WatchdogName', {
  description: 'A watchdog, by the name the dashboard routes use (`price_anomaly` is PRICE_ANOMALY).',
  // Each value's description is its descriptor's summary (kinds/*/index.ts).
  values: enumValues(WATCHDOG_SUMMARIES),
});

export const SEVERITY_DESCRIPTIONS: Readonly<Record<Severity, string>> = {
  low: 'Worth a look.',
  medium: 'Notable: past the first threshold.',
  high: 'Serious: past the main threshold.',
  critical: 'Extreme: past the highest threshold.',
};

export const EventSeverityEnum = builder.enumType('EventSeverity', {
  description: 'How serious a watchdog event is, from LOW to CRITICAL (in that order).',
  values: enumValues(SEVERITY_DESCRIPTIONS),
});

const STATUS_DESCRIPTIONS: Readonly<Record<WatchdogStatus, string>> = {
  running: 'Enabled and checking on schedule without trouble.',
  disabled: 'Turned off by an operator (persisted, on every instance).',
  stopped:
    'Enabled, but no instance has checked it for three intervals (none runs watchdogs, or all are stuck).',
  degraded: 'The last check lacked data for some subjects, or one or two checks in a row failed.',
  failing: 'Three or more checks in a row failed.',
};

const WatchdogStatusEnum = builder.enumType('WatchdogStatus', {
  description: 'What a watchdog is doing, as far as any instance can tell.',
  values: enumValues(STATUS_DESCRIPTIONS),
});

export const WatchdogHealthRef = builder.objectRef<WatchdogHealth>('WatchdogHealth').implement({
  description:
    'Health of one watchdog. Counters count since it was last enabled or restarted. Entity: id is the watchdog name ' +
    '(`price_anomaly`).',
  fields: (t) =>
    ({
      id: t.id({ description: 'Stable id: the watchdog name, as URLs spell it.', resolve: (h) => h.name }),
      name: t.field({ type: WatchdogNameEnum, description: 'Which watchdog.', resolve: (h) => h.name }),
      description: t.exposeString('description', { description: 'What it watches, in one line.' }),
      enabled: t.exposeBoolean('enabled', {
        description: 'False when an operator disabled it (it then runs no checks on any instance).',
      }),
      running: t.exposeBoolean('running', {
        description:
          'Enabled and checked on schedule (status RUNNING, DEGRADED or FAILING): neither DISABLED nor STOPPED.',
      }),
      status: t.field({
        type: WatchdogStatusEnum,
        description: 'What it is doing.',
        resolve: (h) => h.status,
      }),
      intervalSeconds: t.exposeInt('intervalSeconds', { description: 'Seconds between two checks.' }),
      lastCheck: t.expose('lastCheck', {
        type: 'DateTime',
        nullable: true,
        description: 'When the last check finished (failed or not); null before the first.',
      }),
      lastCheckMs: t.exposeFloat('lastCheckMs', {
        nullable: true,
        description: 'Wall time of the last check, in milliseconds; null before the first.',
      }),
      lastEvent: t.expose('lastEvent', {
        type: 'DateTime',
        nullable: true,
        description: 'When it last emitted an event; null when it has emitted none since its restart.',
      }),
      checks: t.exposeInt('checks', { description: 'Checks run since it was last enabled or restarted.' }),
      events: t.exposeInt('events', {
        description: 'Events emitted since it was last enabled or restarted.',
      }),
      errors: t.exposeInt('errors', {
        description: 'Checks that failed since it was last enabled or restarted.',
      }),
      consecutiveFailures: t.exposeInt('consecutiveFailures', {
        description: 'Checks in a row that failed, up to the last one (0 after a good check).',
      }),
      lastChecked: t.exposeInt('lastChecked', {
        description: 'Subjects (symbols, pairs, venues) the last check looked at.',
      }),
      lastGaps: t.exposeInt('lastGaps', {
        description: 'Subjects of the last check that lacked data (some make the watchdog DEGRADED).',
      }),
      lastError: t.exposeString('lastError', {
        nullable: true,
        description: 'The last failure or gap, for an operator; null when the last check was clean.',
      }),
      since: t.expose('since', {
        type: 'DateTime',
        description: 'When it was last enabled or restarted (counters start here).',
      }),
      uptimeSeconds: t.int({
        nullable: true,
        description: 'Whole seconds since `since`; null while it is disabled.',
        resolve: (h, _args, ctx) => uptimeSeconds(h, watchdogsDeps(ctx).clock.now()),
      }),
      updatedBy: t.exposeString('updatedBy', {
        nullable: true,
        description: 'Client id of whoever last enabled, disabled or restarted it; null if nobody has.',
      }),
      // Every field of the model (and the uptime the documents select) has its GraphQL field.
    }) satisfies Record<keyof HealthFields | 'id', unknown>,
});

const SeverityCountsRef = builder
  .objectRef<Readonly<Record<Severity, number>>>('EventSeverityCounts')
  .implement({
    description: 'Events kept, counted by severity. Value object: not normalised.',
    fields: (t) =>
      Object.fromEntries(
        SEVERITIES.map((severity) => [
          severity,
          t.int({
            description: `Events of severity ${severity.toUpperCase()}.`,
            resolve: (counts) => counts[severity] ?? 0,
          }),
        ]),
      ) as Record<Severity, ReturnType<typeof t.int>>,
  });

const DashboardStatsRef = builder.objectRef<DashboardStats>('DashboardStats').implement({
  description: 'The dashboard at a glance. Value object: not normalised (a snapshot at `timestamp`).',
  fields: (t) => ({
    totalEvents: t.exposeInt('totalEvents', {
      description: 'Events kept (within the retention period, WATCHDOG_EVENT_RETENTION_DAYS).',
    }),
    eventsBySeverity: t.field({
      type: SeverityCountsRef,
      description: 'The same events, by severity.',
      resolve: (s) => s.eventsBySeverity,
    }),
    activeWatchdogs: t.exposeInt('activeWatchdogs', { description: 'Enabled watchdogs.' }),
    healthyWatchdogs: t.exposeInt('healthyWatchdogs', {
      description: 'Watchdogs whose status is RUNNING.',
    }),
    activeSubscriptions: t.exposeInt('activeSubscriptions', {
      description:
        "Listeners on this instance's event feed: /dashboard/stream connections, GraphQL subscriptions and MCP resource subscriptions.",
    }),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'When the numbers were taken.' }),
  }),
});

builder.queryField('watchdogs', (t) =>
  t.field({
    type: [WatchdogHealthRef],
    description: 'Health of every watchdog, in a fixed order.',
    resolve: (_root, _args, ctx) => watchdogsDeps(ctx).watchdogs.health(),
  }),
);

builder.queryField('watchdog', (t) =>
  t.field({
    type: WatchdogHealthRef,
    description: 'Health of one watchdog.',
    args: { name: t.arg({ type: WatchdogNameEnum, required: true, description: 'Which watchdog.' }) },
    resolve: (_root, { name }, ctx) => watchdogsDeps(ctx).watchdogs.healthOf(name),
  }),
);

builder.queryField('dashboardStats', (t) =>
  t.field({
    type: DashboardStatsRef,
    description: 'Event counts, watchdogs enabled and healthy, and live listeners.',
    resolve: (_root, _args, ctx) => watchdogsDeps(ctx).watchdogs.stats(),
  }),
);

const PairRef = builder.objectRef<readonly [string, string]>('WatchdogPair').implement({
  description: 'Two symbols whose correlation is watched. Value object: not normalised.',
  fields: (t) => ({
    first: t.string({ description: 'The first symbol, as configured.', resolve: (p) => p[0] }),
    second: t.string({ description: 'The second symbol, as configured.', resolve: (p) => p[1] }),
  }),
});

const WatchedRef = builder.objectRef<WatchedSubjects>('WatchdogCoverage').implement({
  description:
    'What the watchdogs watch, as configured. Each check keeps the symbols its data covers: price_anomaly and ' +
    'unusual_volume those with bars, liquidity_drop those with an order book, funding_rate and whale_movement ' +
    'crypto pairs, earnings_anomaly equities; correlation_breakdown reads the pairs. Value object: not normalised.',
  fields: (t) => ({
    symbols: t.stringList({
      description:
        'Watched symbols as configured (AAPL, BTC/USDT): WATCHDOG_SYMBOLS, by default the SCAN_UNIVERSE_US and ' +
        'SCAN_UNIVERSE_CRYPTO lists.',
      resolve: (w) => [...w.symbols],
    }),
    correlationPairs: t.field({
      type: [PairRef],
      description: 'Pairs the correlation_breakdown watchdog watches: WATCHDOG_CORRELATION_PAIRS.',
      resolve: (w) => [...w.pairs],
    }),
  }),
});

builder.queryField('watchdogCoverage', (t) =>
  t.field({
    type: WatchedRef,
    description: 'The symbols and pairs the watchdogs watch (the `list-universes` tool shows them).',
    resolve: (_root, _args, ctx) => watchdogsDeps(ctx).watchdogs.watched(),
  }),
);

const SWITCHES: ReadonlyArray<readonly [field: string, enabled: boolean, description: string]> = [
  [
    'enableWatchdog',
    true,
    'Enables a watchdog on every instance from its next cycle (persisted); enabling an enabled one changes nothing.',
  ],
  [
    'disableWatchdog',
    false,
    'Disables a watchdog on every instance from its next cycle (persisted): it runs no checks until enabled.',
  ],
];

for (const [field, enabled, description] of SWITCHES) {
  builder.mutationField(field, (t) =>
    t.field({
      type: WatchdogHealthRef,
      ...requiresScope('admin'),
      description: `${description} Returns its health after the change.`,
      args: { name: t.arg({ type: WatchdogNameEnum, required: true, description: 'Which watchdog.' }) },
      resolve: (_root, { name }, ctx) =>
        watchdogsDeps(ctx).watchdogs.setEnabled(name, enabled, ctx.viewer.clientId),
    }),
  );
}

builder.mutationField('restartWatchdog', (t) =>
  t.field({
    type: WatchdogHealthRef,
    ...requiresScope('admin'),
    description:
      'Clears its counters, failures and the memory of conditions already reported (so a persisting ' +
      'condition is reported again), enables it if it was disabled, and runs a check now. Returns its health.',
    args: { name: t.arg({ type: WatchdogNameEnum, required: true, description: 'Which watchdog.' }) },
    resolve: (_root, { name }, ctx) => watchdogsDeps(ctx).watchdogs.restart(name, ctx.viewer.clientId),
  }),
);

import { z } from 'zod';
import { defineJob } from '../platform/jobs/job.ts';
import { defineModule } from '../platform/module.ts';
import { dashboardRoutes } from './dashboard/dashboard.routes.ts';
import { DashboardStream } from './dashboard/dashboard.stream.ts';
import * as depthSamplesTables from './depth-samples.sql.ts';
import * as eventsTables from './events.sql.ts';
import * as statesTables from './states.sql.ts';
import * as watchdogEventsGraphql from './watchdog-events.graphql.ts';
import type { WatchdogsDeps } from './watchdogs.deps.ts';
import * as watchdogsGraphql from './watchdogs.graphql.ts';
import { eventsResource } from './watchdogs.mcp.ts';
import { watchdogsTools } from './watchdogs.tools.ts';

/** Hourly: deletes events older than WATCHDOG_EVENT_RETENTION_DAYS. Cron only enqueues this. */
export const eventRetentionJob = defineJob({
  name: 'watchdogs.retention',
  schema: z.object({}),
  options: { retryLimit: 1, policy: 'singleton' },
});

/**
 * Watchdogs: eight checks on market data, their health, their events (stored and published to every
 * instance), and the dashboard over them: GraphQL queries, switches and the `watchdogEvents`
 * subscription; the dashboard HTTP routes and tools (GraphQL documents run as the caller); the
 * `vigil://events` resource; and /dashboard/stream (protocol in dashboard/dashboard.protocol.ts).
 */
export const watchdogsModule = defineModule<WatchdogsDeps>({
  name: 'watchdogs',
  graphql: [watchdogsGraphql, watchdogEventsGraphql],
  tables: [eventsTables, statesTables, depthSamplesTables],
  jobs: [
    {
      job: eventRetentionJob,
      handler: (deps) => () => deps.watchdogs.deleteExpiredEvents(),
      cron: { expression: '41 * * * *', data: {} },
    },
  ],
  tools: watchdogsTools,
  resources: [eventsResource],
  routes: dashboardRoutes(),
  sockets: [
    {
      path: '/dashboard/stream',
      summary:
        'Dashboard: stats on connect and every 10 s, each watchdog event, health (every 10 s and on a change); ?last=1..1000 and/or ?since=<event id | ISO date-time> replay stored events first (then a "replay" message), ?severity=&event_type=&watchdog=&symbol= set the first filter; send {"type":"ping"} or {"type":"filter","filter":{severities,event_types,watchdogs,symbols}}.',
      onConnection: (deps) =>
        new DashboardStream({
          watchdogs: deps.watchdogs,
          clock: deps.clock,
          logger: deps.logger.child({ component: 'dashboard-stream' }),
        }).onConnection,
    },
  ],
  // The checks' job queue is worked by the runner itself, only on instances with WATCHDOGS_RUN.
  // The event feed is heard from the first request on; the checks begin once the app serves.
  start: (deps) => deps.watchdogs.startFeed(),
  warmUp: (deps) => deps.watchdogs.startChecks(),
  stop: (deps) => deps.watchdogs.stop(),
});

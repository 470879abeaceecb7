import { MAX_SYMBOLS_PER_REQUEST } from '../../market-data/limits.ts';
import { ASSET_CLASSES } from '../../market-data/types.ts';
import { NotFoundError } from '../../platform/errors.ts';
import type { RouteContext, RouteHandler } from '../../platform/http/http-routes.ts';
import { json } from '../../platform/http/responses.ts';
import type { HostInfo, ModuleRoute } from '../../platform/module.ts';
import { operationHandler, type RouteOperation } from '../../platform/rest/operation-route.ts';
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
  WATCHDOG,
  WATCHDOG_EVENTS,
  WATCHDOGS,
} from './dashboard.documents.ts';
import { eventParams, isWatchdogName, monitorParams } from './dashboard.params.ts';
import {
  eventFromGraphql,
  eventWire,
  healthFromGraphql,
  healthWire,
  monitorWire,
  statsWire,
} from './dashboard.wire.ts';

/**
 * The dashboard's HTTP routes, at the paths existing clients call. Each runs a GraphQL operation
 * through the operation runner as the caller (same validation, scopes, rate limits and error
 * codes as `/graphql`) and maps its data to the snake_case wire (dashboard.wire.ts). Errors are the
 * REST error body with the status of their code: 400 naming the parameter, 404 for an unknown name.
 */

/** A route's one operation (its access is the operation's scope) and its handler. */
interface OperationRoute {
  readonly document: string;
  readonly build: (host: HostInfo) => RouteHandler;
}

/** A handler that runs one operation and maps its data; a thrown domain error is rendered as REST. */
function operationRoute<Data>(
  document: string,
  variables: (request: Request, context: RouteContext) => RouteOperation['variables'],
  respond: (data: Data, request: Request) => Response,
): OperationRoute {
  return {
    document,
    build: operationHandler<Data>(document, variables, (data, request) => respond(data, request)),
  };
}

/** The watchdog named in the path, in GraphQL's spelling; NOT_FOUND (404) for an unknown name. */
function watchdogVariable(context: RouteContext): { name: string } {
  const name = context.params.name ?? '';
  if (!isWatchdogName(name)) throw new NotFoundError('watchdog', name.slice(0, 64));
  return { name: name.toUpperCase() };
}

const stats = operationRoute<{ dashboardStats: StatsData }>(
  DASHBOARD_STATS,
  () => ({}),
  (data) => json(statsWire(data.dashboardStats)),
);

const watchdogs = operationRoute<{ watchdogs: HealthData[] }>(
  WATCHDOGS,
  () => ({}),
  (data) => json(data.watchdogs.map((h) => healthWire(healthFromGraphql(h)))),
);

const watchdog = operationRoute<{ watchdog: HealthData }>(
  WATCHDOG,
  (_request, context) => watchdogVariable(context),
  (data) => json(healthWire(healthFromGraphql(data.watchdog))),
);

const events = operationRoute<{ watchdogEvents: { events: EventData[]; nextCursor: string | null } }>(
  WATCHDOG_EVENTS,
  (request) => eventParams(new URL(request.url).searchParams).variables,
  (data, request) => {
    const { events, nextCursor } = data.watchdogEvents;
    // The body is the list existing clients expect, so the next page travels in headers.
    const headers: Record<string, string> = {};
    if (nextCursor) {
      const next = new URL(request.url);
      next.searchParams.set('cursor', nextCursor);
      headers['x-next-cursor'] = nextCursor;
      headers.link = `<${next.pathname}${next.search}>; rel="next"`;
    }
    return json(
      events.map((e) => eventWire(eventFromGraphql(e))),
      200,
      headers,
    );
  },
);

const monitor = operationRoute<MonitorData>(
  MONITOR_ASSETS,
  (request) => monitorParams(new URL(request.url).searchParams, ASSET_CLASSES, MAX_SYMBOLS_PER_REQUEST),
  (data) => json(monitorWire(data)),
);

function switchRoute(action: SwitchAction): OperationRoute {
  return operationRoute<Record<string, HealthData>>(
    SWITCH_DOCUMENTS[action],
    (_request, context) => watchdogVariable(context),
    (data) => {
      const health = healthWire(healthFromGraphql(data[SWITCH_FIELDS[action]]!));
      return json({ status: SWITCH_STATUS[action], watchdog: health.name, health });
    },
  );
}

export function dashboardRoutes<Deps>(): ModuleRoute<Deps>[] {
  const route = (
    methods: 'GET' | 'POST',
    path: string,
    { document, build }: OperationRoute,
    summary: string,
  ): ModuleRoute<Deps> => ({
    methods,
    path,
    summary,
    handler: (_deps, host) => build(host),
    // The route needs its operation's scope: it refuses early, before any work.
    operation: document,
  });
  return [
    route(
      'GET',
      '/dashboard/stats',
      stats,
      'Dashboard statistics: total_events, events_by_severity, active/healthy watchdogs, active_subscriptions.',
    ),
    route('GET', '/dashboard/watchdogs', watchdogs, 'Health of every watchdog.'),
    route('GET', '/dashboard/watchdogs/:name', watchdog, 'Health of one watchdog (404 for an unknown name).'),
    route(
      'GET',
      '/dashboard/events',
      events,
      'Stored events, newest first (?limit=1..1000&severity=&event_type=&watchdog=&symbol=&since=&until=&cursor=; lists comma-separated); the next page in X-Next-Cursor and Link.',
    ),
    route(
      'GET',
      '/dashboard/assets/monitor',
      monitor,
      'Latest data of comma-separated symbols (?symbols=A,B&asset_type=&market=), in the order asked; an error entry for a symbol that failed.',
    ),
    ...(['enable', 'disable', 'restart'] as const).map((action) =>
      route(
        'POST',
        `/dashboard/watchdogs/:name/${action}`,
        switchRoute(action),
        `${action[0]!.toUpperCase()}${action.slice(1)} a watchdog: {"status":"${SWITCH_STATUS[action]}","watchdog":name,"health":{...}}.`,
      ),
    ),
  ];
}

import { AppError, ValidationError } from '../platform/errors.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonObject } from '../platform/http/body.ts';
import type { RouteContext, RouteHandler } from '../platform/http/http-routes.ts';
import { json } from '../platform/http/responses.ts';
import type { HostInfo, ModuleRoute } from '../platform/module.ts';
import { operationHandler, type RouteOperation } from '../platform/rest/operation-route.ts';
import { MAX_NOTE_LENGTH, MAX_RECORD_LIMIT } from './firing-record.service.ts';
import {
  ACKNOWLEDGE_FIRING,
  EPISODE_STATES,
  type EpisodeData,
  enumNames,
  episodeWire,
  FIRING_STATUSES,
  type FiringData,
  firingWire,
  LIST_EPISODES,
  LIST_FIRINGS,
  RESOLVE_FIRING,
} from './firings.wire.ts';

/**
 * The record of an alert's firings and episodes over HTTP, under the alert's path
 * (/api/alerts/{alert_id}/firings, /episodes), and acknowledging or resolving the episode of one
 * firing. Each runs its GraphQL operation as the caller (same checks, scopes and error codes as
 * `/graphql`): listing needs `read`, acknowledging and resolving `write`; an alert or firing that
 * is unknown or another owner's is a 404. Query parameters are checked here, so a bad one is named
 * as the wire names it (`limit`, `status`, `state`), not as a GraphQL variable.
 */

type Variables = RouteOperation['variables'];

function operationRoute<Data>(
  document: string,
  variables: (request: Request, context: RouteContext) => Variables | Promise<Variables>,
  respond: (data: Data) => Response,
): (host: HostInfo) => RouteHandler {
  return operationHandler<Data>(document, variables, (data) => respond(data));
}

const alertOf = (context: RouteContext) => ({ alertId: context.params.alert_id ?? '' });

function limitParam(search: URLSearchParams): Variables {
  const raw = search.get('limit');
  if (raw === null || raw === '') return {};
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_RECORD_LIMIT)
    throw new ValidationError('limit', `must be a whole number from 1 to ${MAX_RECORD_LIMIT}`);
  return { limit: n };
}

/** `?name=a,b` or `?name=a&name=b`, each one of `allowed`, as the GraphQL enum's names; absent: any. */
function listParam(search: URLSearchParams, name: string, allowed: readonly string[]): Variables {
  const values = search
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim().toLowerCase())
    .filter((v) => v !== '');
  const unknown = values.find((v) => !allowed.includes(v));
  if (unknown !== undefined)
    throw new ValidationError(
      name,
      `${JSON.stringify(unknown.slice(0, 40))} is not one of ${allowed.join(', ')}`,
    );
  return values.length > 0 ? { [name]: enumNames([...new Set(values)]) } : {};
}

/** The optional body `{"note": ...}` (empty or `{}`: no note); anything else in it is refused by name. */
async function actionVariables(request: Request, context: RouteContext): Promise<Variables> {
  const read = await readJsonObject(request, { limitBytes: DEFAULT_BODY_LIMIT_BYTES, emptyAsObject: true });
  if (!read.ok) throw new AppError(read.failure.code, read.failure.message, read.failure.details);
  const { note, ...rest } = read.value;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new ValidationError(unknown, 'is not a field of this request (note)');
  if (note !== undefined && note !== null && typeof note !== 'string')
    throw new AppError('INVALID_ARGUMENTS', 'note: must be a string', {
      issues: [{ field: 'note', message: `must be a string of at most ${MAX_NOTE_LENGTH} characters` }],
      field: 'note',
    });
  return {
    ...alertOf(context),
    firingId: context.params.firing_id ?? '',
    ...(typeof note === 'string' ? { note } : {}),
  };
}

const listFirings = operationRoute<{ alertFirings: FiringData[] }>(
  LIST_FIRINGS,
  (request, context) => {
    const search = new URL(request.url).searchParams;
    return { ...alertOf(context), ...limitParam(search), ...listParam(search, 'status', FIRING_STATUSES) };
  },
  (data) => json(data.alertFirings.map(firingWire)),
);

const listEpisodes = operationRoute<{ alertEpisodes: EpisodeData[] }>(
  LIST_EPISODES,
  (request, context) => {
    const search = new URL(request.url).searchParams;
    return { ...alertOf(context), ...limitParam(search), ...listParam(search, 'state', EPISODE_STATES) };
  },
  (data) => json(data.alertEpisodes.map(episodeWire)),
);

const acknowledge = operationRoute<{ acknowledgeAlertFiring: FiringData }>(
  ACKNOWLEDGE_FIRING,
  actionVariables,
  (data) => json(firingWire(data.acknowledgeAlertFiring)),
);

const resolve = operationRoute<{ resolveAlertFiring: FiringData }>(RESOLVE_FIRING, actionVariables, (data) =>
  json(firingWire(data.resolveAlertFiring)),
);

export function firingsRoutes<Deps>(): ModuleRoute<Deps>[] {
  const route = (
    methods: 'GET' | 'POST',
    path: string,
    operation: string,
    build: (host: HostInfo) => RouteHandler,
    summary: string,
  ): ModuleRoute<Deps> => ({ methods, path, summary, handler: (_deps, host) => build(host), operation });
  const alert = '/api/alerts/:alert_id';
  const firing = `${alert}/firings/:firing_id`;
  return [
    route(
      'GET',
      `${alert}/firings`,
      LIST_FIRINGS,
      listFirings,
      `The alert's firings, newest first, each with its event and episode (?limit=1..${MAX_RECORD_LIMIT}, default 50; ?status=fired,silenced,... for some statuses only).`,
    ),
    route(
      'GET',
      `${alert}/episodes`,
      LIST_EPISODES,
      listEpisodes,
      `The alert's episodes, the latest started first (?state=firing,acknowledged,resolved; ?limit=1..${MAX_RECORD_LIMIT}, default 50).`,
    ),
    route(
      'POST',
      `${firing}/acknowledge`,
      ACKNOWLEDGE_FIRING,
      acknowledge,
      'Acknowledge the episode of a firing (body optional: {"note"}): the firing with its episode; 404 for an unknown firing, 409 FIRING_HAS_NO_EPISODE or EPISODE_RESOLVED.',
    ),
    route(
      'POST',
      `${firing}/resolve`,
      RESOLVE_FIRING,
      resolve,
      'Resolve the episode of a firing by hand (body optional: {"note"}): the firing with its episode; 404 for an unknown firing, 409 FIRING_HAS_NO_EPISODE.',
    ),
  ];
}

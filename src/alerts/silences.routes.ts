import { AppError, ValidationError } from '../platform/errors.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonObject } from '../platform/http/body.ts';
import type { RouteContext, RouteHandler } from '../platform/http/http-routes.ts';
import { json } from '../platform/http/responses.ts';
import type { HostInfo, ModuleRoute } from '../platform/module.ts';
import { operationHandler, type RouteOperation } from '../platform/rest/operation-route.ts';
import { checkedWireSilence } from './silence-input.wire.ts';
import {
  CREATE_SILENCE,
  DELETE_SILENCE,
  EXPIRE_SILENCE,
  LIST_SILENCES,
  type SilenceData,
  silenceVariables,
  silenceWire,
} from './silences.wire.ts';

/**
 * The silences' HTTP routes, at /api/silences (not under /api/alerts, where `silences` would read
 * as an alert id). Each runs its GraphQL operation as the caller (same validation, scopes and error
 * codes as `/graphql`): listing needs `read`, the rest `write`; another owner's silence is a 404.
 */

type Variables = RouteOperation['variables'];

function operationRoute<Data>(
  document: string,
  variables: (request: Request, context: RouteContext) => Variables | Promise<Variables>,
  respond: (data: Data) => Response,
): (host: HostInfo) => RouteHandler {
  return operationHandler<Data>(document, variables, (data) => respond(data));
}

const pathId = (context: RouteContext) => ({ silence_id: context.params.silence_id ?? '' });

function includeExpired(request: Request): Variables {
  const raw = new URL(request.url).searchParams.get('include_expired');
  if (raw === null || raw === '') return {};
  if (/^(true|1)$/i.test(raw)) return { include_expired: true };
  if (/^(false|0)$/i.test(raw)) return { include_expired: false };
  throw new ValidationError('include_expired', 'must be true or false');
}

async function silenceBody(request: Request): Promise<Variables> {
  const read = await readJsonObject(request, { limitBytes: DEFAULT_BODY_LIMIT_BYTES, emptyAsObject: false });
  if (!read.ok) throw new AppError(read.failure.code, read.failure.message, read.failure.details);
  return silenceVariables(checkedWireSilence(read.value));
}

export function silencesRoutes<Deps>(): ModuleRoute<Deps>[] {
  const route = (
    methods: 'GET' | 'POST' | 'DELETE',
    path: string,
    operation: string,
    build: (host: HostInfo) => RouteHandler,
    summary: string,
  ): ModuleRoute<Deps> => ({ methods, path, summary, handler: (_deps, host) => build(host), operation });
  const one = '/api/silences/:silence_id';
  return [
    route(
      'GET',
      '/api/silences',
      LIST_SILENCES,
      operationRoute<{ alertSilences: SilenceData[] }>(LIST_SILENCES, includeExpired, (d) =>
        json(d.alertSilences.map(silenceWire)),
      ),
      "The caller's silences by start; ?include_expired=true for ended ones too.",
    ),
    route(
      'POST',
      '/api/silences',
      CREATE_SILENCE,
      operationRoute<{ createAlertSilence: SilenceData }>(CREATE_SILENCE, silenceBody, (d) =>
        json(silenceWire(d.createAlertSilence), 201),
      ),
      'Create a silence (body: matchers, starts_at, ends_at, comment): 201 with it; 422 naming invalid fields.',
    ),
    route(
      'POST',
      `${one}/expire`,
      EXPIRE_SILENCE,
      operationRoute<{ expireAlertSilence: SilenceData }>(
        EXPIRE_SILENCE,
        (_r, c) => pathId(c),
        (d) => json(silenceWire(d.expireAlertSilence)),
      ),
      'End a silence now: the silence (404 if unknown or not the caller’s).',
    ),
    route(
      'DELETE',
      one,
      DELETE_SILENCE,
      operationRoute<{ deleteAlertSilence: string }>(
        DELETE_SILENCE,
        (_r, c) => pathId(c),
        (d) => json({ status: 'deleted', silence_id: d.deleteAlertSilence }),
      ),
      'Delete a silence: {"status":"deleted","silence_id"}.',
    ),
  ];
}

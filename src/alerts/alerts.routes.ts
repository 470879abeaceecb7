import { AppError, ValidationError } from '../platform/errors.ts';
import { DEFAULT_BODY_LIMIT_BYTES, readJsonObject } from '../platform/http/body.ts';
import type { RouteContext, RouteHandler } from '../platform/http/http-routes.ts';
import { json } from '../platform/http/responses.ts';
import type { HostInfo, ModuleRoute } from '../platform/module.ts';
import { operationHandler, type RouteOperation } from '../platform/rest/operation-route.ts';
import { checkedWireAlert } from './alert-input.wire.ts';
import { REDELIVER_ALERT, type RedeliveryData, redeliveryWire } from './alert-redelivery.wire.ts';
import {
  ALERT_DELIVERIES,
  type AlertData,
  type AttemptData,
  CREATE_ALERT,
  DELETE_ALERT,
  DISABLE_ALERT,
  ENABLE_ALERT,
  GET_ALERT,
  LIST_ALERTS,
  REPLACE_ALERT,
  TEST_ALERT,
  type TestSendData,
} from './alerts.documents.ts';
import { MAX_DELIVERY_LIMIT } from './alerts.graphql.ts';
import { alertVariables, alertWire, attemptWire, testSendWire } from './alerts.wire.ts';

/**
 * The alerts' HTTP routes, at the paths existing clients call (/api/alerts...). Each runs a GraphQL
 * operation through the operation runner as the caller (same validation, scopes, rate limits and
 * error codes as `/graphql`) and maps its data to the snake_case wire. Errors are the REST error
 * body with the status of their code: 422 with `details.issues` for an invalid alert, 400 naming
 * the field for a duplicate or mismatched id, 404 for an alert that is unknown or someone else's.
 *
 * A body is checked by the alert's schema before it becomes variables, so that a value of the wrong
 * type is refused as the wire names it (GraphQL would name a camelCase variable); the mutation
 * checks it again, whole, with the rules that need the database or the FK-DSL.
 */

type Json = Record<string, unknown>;
type Variables = RouteOperation['variables'];

/** A route's one operation (its access is the operation's scope) and its handler. */
interface OperationRoute {
  readonly document: string;
  readonly build: (host: HostInfo) => RouteHandler;
}

/** A handler that runs one operation and maps its data; a thrown domain error is rendered as REST. */
function operationRoute<Data>(
  document: string,
  variables: (request: Request, context: RouteContext) => Variables | Promise<Variables>,
  respond: (data: Data, context: RouteContext) => Response,
): OperationRoute {
  return {
    document,
    build: operationHandler<Data>(document, variables, (data, _request, context) => respond(data, context)),
  };
}

/** The JSON object body, bounded; refused as 400, 413 or 415 like the tool routes' bodies. */
async function body(request: Request): Promise<Json> {
  const read = await readJsonObject(request, { limitBytes: DEFAULT_BODY_LIMIT_BYTES, emptyAsObject: false });
  if (!read.ok) throw new AppError(read.failure.code, read.failure.message, read.failure.details);
  return read.value;
}

const pathId = (context: RouteContext) => ({ alert_id: context.params.alert_id ?? '' });

function booleanParam(search: URLSearchParams, name: string): boolean | undefined {
  const raw = search.get(name);
  if (raw === null || raw === '') return undefined;
  if (/^(true|1)$/i.test(raw)) return true;
  if (/^(false|0)$/i.test(raw)) return false;
  throw new ValidationError(name, 'must be true or false');
}

function limitParam(search: URLSearchParams): number | undefined {
  const raw = search.get('limit');
  if (raw === null || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_DELIVERY_LIMIT)
    throw new ValidationError('limit', `must be a whole number from 1 to ${MAX_DELIVERY_LIMIT}`);
  return n;
}

const create = operationRoute<{ createAlert: AlertData }>(
  CREATE_ALERT,
  async (request) => alertVariables(checkedWireAlert(await body(request))),
  (data) => json(alertWire(data.createAlert), 201),
);

const list = operationRoute<{ alerts: AlertData[] }>(
  LIST_ALERTS,
  (request) => {
    const enabledOnly = booleanParam(new URL(request.url).searchParams, 'enabled_only');
    return enabledOnly === undefined ? {} : { enabled_only: enabledOnly };
  },
  (data) => json(data.alerts.map(alertWire)),
);

const get = operationRoute<{ alert: AlertData }>(
  GET_ALERT,
  (_request, context) => pathId(context),
  (data) => json(alertWire(data.alert)),
);

const replace = operationRoute<{ updateAlert: AlertData }>(
  REPLACE_ALERT,
  async (request, context) => {
    const { alert_id } = pathId(context);
    const given = await body(request);
    // A body without alert_id is the path's alert; one naming another id is refused (400).
    const alert = checkedWireAlert(given.alert_id === undefined ? { ...given, alert_id } : given);
    return { ...alertVariables(alert), alert_id, body_alert_id: alert.alert_id };
  },
  (data) => json(alertWire(data.updateAlert)),
);

const remove = operationRoute<{ deleteAlert: string }>(
  DELETE_ALERT,
  (_request, context) => pathId(context),
  (data) => json({ status: 'deleted', alert_id: data.deleteAlert }),
);

function switchRoute(enabled: boolean): OperationRoute {
  const field = enabled ? 'enableAlert' : 'disableAlert';
  return operationRoute<Record<'enableAlert' | 'disableAlert', AlertData>>(
    enabled ? ENABLE_ALERT : DISABLE_ALERT,
    (_request, context) => pathId(context),
    (data) => {
      const alert = alertWire(data[field]);
      return json({ status: enabled ? 'enabled' : 'disabled', alert_id: alert.alert_id, alert });
    },
  );
}

const test = operationRoute<{ testAlert: TestSendData }>(
  TEST_ALERT,
  (_request, context) => pathId(context),
  (data) => json(testSendWire(data.testAlert)),
);

const deliveries = operationRoute<{ alertDeliveries: AttemptData[] }>(
  ALERT_DELIVERIES,
  (request, context) => {
    const limit = limitParam(new URL(request.url).searchParams);
    return { ...pathId(context), ...(limit ? { limit } : {}) };
  },
  (data) => json(data.alertDeliveries.map(attemptWire)),
);

/** The body is optional: `{"delivery_id": ...}` for one delivery, nothing (or `{}`) for every failed one. */
const redeliver = operationRoute<RedeliveryData>(
  REDELIVER_ALERT,
  async (request, context) => {
    const read = await readJsonObject(request, { limitBytes: DEFAULT_BODY_LIMIT_BYTES, emptyAsObject: true });
    if (!read.ok) throw new AppError(read.failure.code, read.failure.message, read.failure.details);
    const { delivery_id, ...rest } = read.value;
    const unknown = Object.keys(rest);
    if (unknown.length > 0)
      throw new ValidationError(unknown[0] ?? '', 'is not a field of a redelivery (delivery_id)');
    if (
      delivery_id !== undefined &&
      delivery_id !== null &&
      (typeof delivery_id !== 'string' || delivery_id === '')
    )
      throw new ValidationError('delivery_id', 'must be a delivery id (a non-empty string)');
    return { ...pathId(context), ...(typeof delivery_id === 'string' ? { delivery_id } : {}) };
  },
  (data) => json(redeliveryWire(data)),
);

export function alertsRoutes<Deps>(): ModuleRoute<Deps>[] {
  const route = (
    methods: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    { document, build }: OperationRoute,
    summary: string,
  ): ModuleRoute<Deps> => ({
    methods,
    path,
    summary,
    handler: (_deps, host) => build(host),
    // The route needs its operation's scope: it refuses early, before reading a body.
    operation: document,
  });
  const one = '/api/alerts/:alert_id';
  return [
    route(
      'POST',
      '/api/alerts',
      create,
      'Create an alert (body: the alert, snake_case): 201 with it, secrets as has_* flags; 422 naming invalid fields, 400 for an id in use.',
    ),
    route(
      'GET',
      '/api/alerts',
      list,
      "The caller's alerts, oldest first (?enabled_only=true for enabled ones).",
    ),
    route('GET', one, get, 'One alert (404 if unknown or not the caller’s).'),
    route(
      'PUT',
      one,
      replace,
      'Replace an alert whole (body: the alert; alert_id may be left out, else must match the path). A secret left out is kept, null removes it.',
    ),
    route('DELETE', one, remove, 'Delete an alert and its records: {"status":"deleted","alert_id"}.'),
    route(
      'POST',
      `${one}/enable`,
      switchRoute(true),
      'Enable an alert: {"status":"enabled","alert_id","alert"}.',
    ),
    route(
      'POST',
      `${one}/disable`,
      switchRoute(false),
      'Disable an alert: {"status":"disabled","alert_id","alert"}.',
    ),
    route(
      'POST',
      `${one}/test`,
      test,
      'Send a sample event to every target of each method now: {alert_id, results:[{method, target, delivery_id, status, response_code, latency_ms, error}]}.',
    ),
    route(
      'GET',
      `${one}/deliveries`,
      deliveries,
      `Delivery attempts, newest first, each with its target and event (?limit=1..${MAX_DELIVERY_LIMIT}, default 100).`,
    ),
    route(
      'POST',
      `${one}/redeliver`,
      redeliver,
      'Redeliver failed deliveries (body optional: {"delivery_id"} for one, else every failed one): {alert_id, redelivered:[{delivery_id, method, target, attempts}], skipped:[... reason]}; 400 naming a delivery that is not failed, 404 for an unknown one.',
    ),
  ];
}

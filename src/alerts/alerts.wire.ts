/**
 * The alert between its two spellings: the wire (snake_case, lower-case values: REST bodies and
 * tool arguments) and GraphQL (camelCase, UPPER_CASE enum names). A key that is absent stays absent
 * and a `null` stays `null` both ways, because for a secret the two mean different things (keep the
 * stored one, remove it).
 */
import { enumName, fromEnumName } from '../platform/graphql/enum-values.ts';
import { EVENT_TYPES, SEVERITIES, WATCHDOG_NAMES } from '../watchdogs/watchdog-event.ts';
import { DELIVERY_METHODS, PRICE_DIRECTIONS, TRIGGER_TYPES } from './alert.model.ts';
import { InvalidAlertError } from './alerts.errors.ts';

type Json = Record<string, unknown>;

const toCamel = (key: string) => key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
const toSnake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The same keys renamed (values untouched), only those present. */
function renamed(value: Json, rename: (key: string) => string): Json {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), v]));
}

/** Objects are renamed; null, and anything malformed, is passed on for the schema to name. */
const nested = (value: unknown, rename: (key: string) => string, more?: (out: Json, from: Json) => void) => {
  if (!isObject(value)) return value;
  const out = renamed(value, rename);
  more?.(out, value);
  return out;
};

const spelled = (value: unknown) => (typeof value === 'string' ? enumName(value) : value);
const spelledList = (value: unknown) => (Array.isArray(value) ? value.map(spelled) : value);

// ---------------------------------------------------------------- wire -> GraphQL variables

/** A wire alert (a REST body, tool arguments) as the GraphQL `AlertInput`. */
export function alertInputOfWire(alert: Json): Json {
  const out = renamed(alert, toCamel);
  if ('delivery_methods' in alert) out.deliveryMethods = spelledList(alert.delivery_methods);
  if ('trigger' in alert) out.trigger = triggerInputOfWire(alert.trigger);
  if ('email_config' in alert) out.emailConfig = nested(alert.email_config, toCamel);
  if ('chat_config' in alert) out.chatConfig = nested(alert.chat_config, toCamel);
  if ('webhook_config' in alert) {
    out.webhookConfig = nested(alert.webhook_config, toCamel, (o, from) => {
      if (isObject(from.headers))
        o.headers = Object.entries(from.headers).map(([name, value]) => ({ name, value }));
    });
  }
  return out;
}

export function triggerInputOfWire(trigger: unknown): unknown {
  return nested(trigger, toCamel, (o, from) => {
    if ('type' in from) o.type = spelled(from.type);
    if ('direction' in from) o.direction = spelled(from.direction);
    if ('event_filter' in from) {
      o.eventFilter = nested(from.event_filter, toCamel, (f, filter) => {
        for (const key of ['event_types', 'severities', 'watchdogs'] as const) {
          if (key in filter) f[toCamel(key)] = spelledList(filter[key]);
        }
      });
    }
  });
}

/** The variables of the alert documents (alerts.documents.ts): wire names, GraphQL values. */
export function alertVariables(alert: Json): Json {
  return renamed(alertInputOfWire(alert), toSnake);
}

// ---------------------------------------------------------------- GraphQL input -> wire

/**
 * A GraphQL `AlertInput` (enum values already internal) as the wire alert the store parses. Headers
 * arrive as a list; a name given twice (in any case) is refused rather than one silently winning.
 */
export function wireOfAlertInput(input: Json): Json {
  const out = renamed(input, toSnake);
  if (isObject(input.trigger)) {
    out.trigger = nested(input.trigger, toSnake, (t, from) => {
      if ('eventFilter' in from) t.event_filter = nested(from.eventFilter, toSnake);
    });
  }
  if ('emailConfig' in input) out.email_config = nested(input.emailConfig, toSnake);
  if ('chatConfig' in input) out.chat_config = nested(input.chatConfig, toSnake);
  if ('webhookConfig' in input) {
    out.webhook_config = nested(input.webhookConfig, toSnake, (w, from) => {
      if (Array.isArray(from.headers))
        w.headers = headerRecord(from.headers as { name: string; value: string }[]);
    });
  }
  return out;
}

function headerRecord(headers: readonly { name: string; value: string }[]): Record<string, string> {
  const seen = new Set<string>();
  const record: Record<string, string> = {};
  for (const { name, value } of headers) {
    if (seen.has(name.toLowerCase())) {
      throw new InvalidAlertError([
        { field: `webhook_config.headers.${name}`, message: 'is given twice (header names ignore case)' },
      ]);
    }
    seen.add(name.toLowerCase());
    record[name] = value;
  }
  return record;
}

// ---------------------------------------------------------------- GraphQL data -> wire

/** The fields the surfaces select of an `Alert` (alertWire reads exactly these). */
export const ALERT_FIELDS =
  'alertId name description enabled ' +
  'trigger { type eventFilter { eventTypes severities assets watchdogs } symbol priceThreshold direction ' +
  'hysteresisPercent volumeThreshold condition checkIntervalSeconds } deliveryMethods ' +
  'emailConfig { smtpHost smtpPort smtpUser hasPassword useTls fromEmail toEmails } ' +
  'chatConfig { chatIds hasBotToken } ' +
  'webhookConfig { url method headers { name value } hasAuthToken hasSigningSecret } ' +
  'cooldownSeconds createdAt updatedAt lastTriggered triggerCount owner';

export const ATTEMPT_FIELDS = 'deliveryId attempt method status responseCode latencyMs error attemptedAt';
export const TEST_FIELDS = 'alertId results { method deliveryId status responseCode latencyMs error }';

const fromType = fromEnumName(TRIGGER_TYPES);
const fromMethod = fromEnumName(DELIVERY_METHODS);
const fromEventType = fromEnumName(EVENT_TYPES);
const fromSeverity = fromEnumName(SEVERITIES);
const fromWatchdog = fromEnumName(WATCHDOG_NAMES);
const fromDirection = fromEnumName(PRICE_DIRECTIONS);
const lower = (name: string) => name.toLowerCase();

/** Snake keys of an object, dropping the null ones (a trigger has only its own type's fields). */
function compact(value: Json): Json {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== null)
      .map(([k, v]) => [toSnake(k), v]),
  );
}

/** An `Alert` as selected by ALERT_FIELDS, in the wire shape (AlertView). */
export function alertWire(alert: Json): Json {
  const trigger = alert.trigger as Json;
  const filter = trigger.eventFilter as Json | null;
  const email = alert.emailConfig as Json | null;
  const chat = alert.chatConfig as Json | null;
  const webhook = alert.webhookConfig as Json | null;
  const { owner, ...rest } = alert;
  const out = renamed(rest, toSnake);
  out.trigger = compact({
    ...trigger,
    type: fromType(trigger.type as string),
    eventFilter: filter && {
      event_types: (filter.eventTypes as string[]).map(fromEventType),
      severities: (filter.severities as string[]).map(fromSeverity),
      assets: filter.assets,
      watchdogs: (filter.watchdogs as string[]).map(fromWatchdog),
    },
    direction: typeof trigger.direction === 'string' ? fromDirection(trigger.direction) : null,
  });
  out.delivery_methods = (alert.deliveryMethods as string[]).map(fromMethod);
  out.email_config = email && renamed(email, toSnake);
  out.chat_config = chat && renamed(chat, toSnake);
  out.webhook_config = webhook && {
    ...renamed(webhook, toSnake),
    headers: Object.fromEntries(
      (webhook.headers as { name: string; value: string }[]).map((h) => [h.name, h.value]),
    ),
  };
  if (typeof owner === 'string') out.owner = owner;
  return out;
}

/** An `AlertDeliveryAttempt` (ATTEMPT_FIELDS) or an `AlertTestResult` in the wire shape. */
export function attemptWire(attempt: Json): Json {
  const out = renamed(attempt, toSnake);
  out.method = fromMethod(attempt.method as string);
  out.status = lower(attempt.status as string);
  return out;
}

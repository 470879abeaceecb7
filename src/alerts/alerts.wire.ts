/**
 * The alert between its two spellings: the wire (snake_case, lower-case values: REST bodies and
 * tool arguments) and GraphQL (camelCase, UPPER_CASE enum names). A key that is absent stays absent
 * and a `null` stays `null` both ways, because for a secret the two mean different things (keep the
 * stored one, remove it).
 */
import { enumName, fromEnumName } from '../platform/graphql/enum-values.ts';
import { EVENT_TYPES, SEVERITIES, WATCHDOG_NAMES } from '../watchdogs/watchdog-event.ts';
import {
  DELIVERY_METHODS,
  type DeliveryMethod,
  GROUP_LABELS,
  type GroupLabel,
  PRICE_DIRECTIONS,
  type PriceDirection,
  TRIGGER_TYPES,
  type TriggerType,
} from './alert.model.ts';
import type { EventFilterWire } from './alert-config.wire.ts';
import type { GroupingWire } from './alert-grouping.wire.ts';
import type { AlertData, AttemptData, TestSendData, TriggerData } from './alerts.documents.ts';
import { InvalidAlertError } from './alerts.errors.ts';
import { ATTEMPT_STATUSES } from './delivery/delivery.model.ts';

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

const isHeader = (value: unknown): value is { name: string; value: string } =>
  isObject(value) && typeof value.name === 'string' && typeof value.value === 'string';

const spelled = (value: unknown) => (typeof value === 'string' ? enumName(value) : value);
const spelledList = (value: unknown) => (Array.isArray(value) ? value.map(spelled) : value);

// ---------------------------------------------------------------- wire -> GraphQL variables

/** A wire alert (a REST body, tool arguments) as the GraphQL `AlertInput`. */
export function alertInputOfWire(alert: Readonly<Json>): Json {
  const out = renamed(alert, toCamel);
  if ('delivery_methods' in alert) out.deliveryMethods = spelledList(alert.delivery_methods);
  if ('trigger' in alert) out.trigger = triggerInputOfWire(alert.trigger);
  if ('email_config' in alert) out.emailConfig = nested(alert.email_config, toCamel);
  if ('chat_config' in alert) out.chatConfig = nested(alert.chat_config, toCamel);
  if ('slack_config' in alert) out.slackConfig = nested(alert.slack_config, toCamel);
  if ('discord_config' in alert) out.discordConfig = nested(alert.discord_config, toCamel);
  if ('teams_config' in alert) out.teamsConfig = nested(alert.teams_config, toCamel);
  if ('pagerduty_config' in alert) out.pagerdutyConfig = nested(alert.pagerduty_config, toCamel);
  if ('alertmanager_config' in alert) out.alertmanagerConfig = nested(alert.alertmanager_config, toCamel);
  if (Array.isArray(alert.mute_windows))
    out.muteWindows = alert.mute_windows.map((w) =>
      nested(w, toCamel, (o, from) => {
        o.days = spelledList(from.days);
      }),
    );
  if ('grouping' in alert) {
    out.grouping = nested(alert.grouping, toCamel, (o, from) => {
      if ('group_by' in from) o.groupBy = spelledList(from.group_by);
    });
  }
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
export function alertVariables(alert: Readonly<Json>): Json {
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
  if ('slackConfig' in input) out.slack_config = nested(input.slackConfig, toSnake);
  if (Array.isArray(input.muteWindows)) out.mute_windows = input.muteWindows.map((w) => nested(w, toSnake));
  if ('discordConfig' in input) out.discord_config = nested(input.discordConfig, toSnake);
  if ('teamsConfig' in input) out.teams_config = nested(input.teamsConfig, toSnake);
  if ('pagerdutyConfig' in input) out.pagerduty_config = nested(input.pagerdutyConfig, toSnake);
  if ('alertmanagerConfig' in input) out.alertmanager_config = nested(input.alertmanagerConfig, toSnake);
  if ('grouping' in input) out.grouping = nested(input.grouping, toSnake);
  if ('webhookConfig' in input) {
    out.webhook_config = nested(input.webhookConfig, toSnake, (w, from) => {
      if (Array.isArray(from.headers) && from.headers.every(isHeader)) w.headers = headerRecord(from.headers);
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

const fromType = fromEnumName(TRIGGER_TYPES);
const fromMethod = fromEnumName(DELIVERY_METHODS);
const fromEventType = fromEnumName(EVENT_TYPES);
const fromSeverity = fromEnumName(SEVERITIES);
const fromWatchdog = fromEnumName(WATCHDOG_NAMES);
const fromDirection = fromEnumName(PRICE_DIRECTIONS);
const fromStatus = fromEnumName(ATTEMPT_STATUSES);
const fromGroupLabel = fromEnumName<GroupLabel>(GROUP_LABELS);

/** A trigger as answered: its type and its own type's fields only. */
export interface TriggerView {
  readonly type: TriggerType;
  readonly event_filter?: EventFilterWire;
  readonly symbol?: string;
  readonly price_threshold?: number;
  readonly direction?: PriceDirection;
  readonly hysteresis_percent?: number;
  readonly volume_threshold?: number;
  readonly condition?: string;
  readonly check_interval_seconds?: number;
}

/** An alert as every surface answers it: what was written, a secret only as `has_<name>`. */
export interface AlertView {
  readonly alert_id: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly trigger: TriggerView;
  readonly delivery_methods: DeliveryMethod[];
  readonly email_config: {
    readonly smtp_host: string | null;
    readonly smtp_port: number | null;
    readonly smtp_user: string | null;
    readonly has_password: boolean;
    readonly use_tls: boolean;
    readonly from_email: string | null;
    readonly to_emails: readonly string[];
  } | null;
  readonly chat_config: { readonly chat_ids: readonly string[]; readonly has_bot_token: boolean } | null;
  readonly webhook_config: {
    readonly url: string;
    readonly method: string;
    readonly headers: Readonly<Record<string, string>>;
    readonly has_auth_token: boolean;
    readonly has_signing_secret: boolean;
  } | null;
  readonly slack_config: { readonly has_webhook_url: boolean } | null;
  readonly discord_config: { readonly has_webhook_url: boolean } | null;
  readonly teams_config: { readonly has_webhook_url: boolean } | null;
  readonly alertmanager_config: { readonly url: string } | null;
  readonly pagerduty_config: { readonly has_routing_key: boolean } | null;
  readonly cooldown_seconds: number;
  readonly mute_windows: Array<{ days: string[]; start: string; end: string; time_zone: string }>;
  readonly send_resolved: boolean;
  readonly resolve_timeout_seconds: number;
  readonly grouping: GroupingWire | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_triggered: string | null;
  readonly trigger_count: number;
  /** Shown to admins on other owners' alerts. */
  readonly owner?: string;
}

/** An `Alert` as selected by ALERT_FIELDS, in the wire shape. */
export function alertWire(alert: AlertData): AlertView {
  const { emailConfig: email, chatConfig: chat, webhookConfig: webhook } = alert;
  const { slackConfig: slack, discordConfig: discord, teamsConfig: teams } = alert;
  const alertmanager = alert.alertmanagerConfig;
  const pagerduty = alert.pagerdutyConfig;
  return {
    alert_id: alert.alertId,
    name: alert.name,
    description: alert.description,
    enabled: alert.enabled,
    trigger: triggerView(alert.trigger),
    delivery_methods: alert.deliveryMethods.map(fromMethod),
    email_config: email && {
      smtp_host: email.smtpHost,
      smtp_port: email.smtpPort,
      smtp_user: email.smtpUser,
      has_password: email.hasPassword,
      use_tls: email.useTls,
      from_email: email.fromEmail,
      to_emails: email.toEmails,
    },
    chat_config: chat && { chat_ids: chat.chatIds, has_bot_token: chat.hasBotToken },
    webhook_config: webhook && {
      url: webhook.url,
      method: webhook.method,
      headers: Object.fromEntries(webhook.headers.map((h) => [h.name, h.value])),
      has_auth_token: webhook.hasAuthToken,
      has_signing_secret: webhook.hasSigningSecret,
    },
    slack_config: slack && { has_webhook_url: slack.hasWebhookUrl },
    discord_config: discord && { has_webhook_url: discord.hasWebhookUrl },
    teams_config: teams && { has_webhook_url: teams.hasWebhookUrl },
    alertmanager_config: alertmanager && { url: alertmanager.url },
    pagerduty_config: pagerduty && { has_routing_key: pagerduty.hasRoutingKey },
    cooldown_seconds: alert.cooldownSeconds,
    mute_windows: alert.muteWindows.map((w) => ({
      days: w.days.map((d) => d.toLowerCase()),
      start: w.start,
      end: w.end,
      time_zone: w.timeZone,
    })),
    send_resolved: alert.sendResolved,
    resolve_timeout_seconds: alert.resolveTimeoutSeconds,
    grouping: alert.grouping && {
      group_by: alert.grouping.groupBy.map(fromGroupLabel),
      group_wait_seconds: alert.grouping.groupWaitSeconds,
      group_interval_seconds: alert.grouping.groupIntervalSeconds,
      repeat_interval_seconds: alert.grouping.repeatIntervalSeconds,
    },
    created_at: alert.createdAt,
    updated_at: alert.updatedAt,
    last_triggered: alert.lastTriggered,
    trigger_count: alert.triggerCount,
    ...(alert.owner !== null ? { owner: alert.owner } : {}),
  };
}

/** GraphQL answers every trigger field; the wire keeps those of the trigger's type (the non-null ones). */
function triggerView(t: TriggerData): TriggerView {
  const filter = t.eventFilter;
  return {
    type: fromType(t.type),
    ...(filter && {
      event_filter: {
        event_types: filter.eventTypes.map(fromEventType),
        severities: filter.severities.map(fromSeverity),
        assets: filter.assets,
        watchdogs: filter.watchdogs.map(fromWatchdog),
      },
    }),
    ...(t.symbol !== null && { symbol: t.symbol }),
    ...(t.priceThreshold !== null && { price_threshold: t.priceThreshold }),
    ...(t.direction !== null && { direction: fromDirection(t.direction) }),
    ...(t.hysteresisPercent !== null && { hysteresis_percent: t.hysteresisPercent }),
    ...(t.volumeThreshold !== null && { volume_threshold: t.volumeThreshold }),
    ...(t.condition !== null && { condition: t.condition }),
    ...(t.checkIntervalSeconds !== null && { check_interval_seconds: t.checkIntervalSeconds }),
  };
}

/** An `AlertDeliveryAttempt` (ATTEMPT_FIELDS) in the wire shape. */
export function attemptWire(attempt: AttemptData) {
  const { event } = attempt;
  return {
    delivery_id: attempt.deliveryId,
    attempt: attempt.attempt,
    method: fromMethod(attempt.method),
    target: attempt.target,
    event: event && {
      event_id: event.eventId,
      type: event.type,
      watchdog: event.watchdog === null ? null : fromWatchdog(event.watchdog),
    },
    status: fromStatus(attempt.status),
    response_code: attempt.responseCode,
    latency_ms: attempt.latencyMs,
    error: attempt.error,
    attempted_at: attempt.attemptedAt,
  };
}

/** A test-send's answer (TEST_FIELDS) in the wire shape. */
export function testSendWire(test: TestSendData) {
  return {
    alert_id: test.alertId,
    results: test.results.map((r) => ({
      method: fromMethod(r.method),
      target: r.target,
      delivery_id: r.deliveryId,
      status: fromStatus(r.status),
      response_code: r.responseCode,
      latency_ms: r.latencyMs,
      error: r.error,
    })),
  };
}

import { z } from 'zod';
import type { ToolArgument, ToolDefinition } from '../platform/operations/tool.ts';
import { DEFAULT_RESOLVE_TIMEOUT_SECONDS, DELIVERY_METHODS, TRIGGER_TYPES } from './alert.model.ts';
import { RESOLVE_TIMEOUT_RANGE } from './alert-grouping.wire.ts';
import { alertIdSchema, alertInputSchema } from './alert-input.wire.ts';
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
  TEST_ALERT,
  type TestSendData,
  UPDATE_ALERT,
} from './alerts.documents.ts';
import { DEFAULT_DELIVERY_LIMIT, MAX_DELIVERY_LIMIT } from './alerts.graphql.ts';
import { alertVariables, alertWire, attemptWire, testSendWire } from './alerts.wire.ts';

/**
 * Alerts as MCP tools (and REST tool routes): the same GraphQL documents as the /api/alerts routes,
 * with arguments in the wire shape of the REST body (snake_case, checked field by field by the
 * store's schema) and the same answers. Writes need the `write` scope, inherited from their
 * mutations.
 */

const isoTime = z.string().describe('ISO 8601 time, UTC');

const alertSchema = z.object({
  alert_id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  trigger: z.record(z.string(), z.unknown()).describe('type and the fields of that type'),
  delivery_methods: z.array(z.enum(DELIVERY_METHODS)),
  email_config: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('has_password says whether a password is stored; it is never returned'),
  chat_config: z.record(z.string(), z.unknown()).nullable().describe('has_bot_token instead of the token'),
  webhook_config: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('has_auth_token and has_signing_secret instead of the secrets'),
  slack_config: z.record(z.string(), z.unknown()).nullable().describe('has_webhook_url'),
  discord_config: z.record(z.string(), z.unknown()).nullable().describe('has_webhook_url'),
  teams_config: z.record(z.string(), z.unknown()).nullable().describe('has_webhook_url'),
  alertmanager_config: z.record(z.string(), z.unknown()).nullable(),
  pagerduty_config: z.record(z.string(), z.unknown()).nullable().describe('has_routing_key'),
  cooldown_seconds: z.number().int(),
  mute_windows: z.array(
    z.object({ days: z.array(z.string()), start: z.string(), end: z.string(), time_zone: z.string() }),
  ),
  send_resolved: z.boolean(),
  resolve_timeout_seconds: z.number().int(),
  grouping: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe('group_by, group_wait_seconds, group_interval_seconds, repeat_interval_seconds; null: none'),
  created_at: isoTime,
  updated_at: isoTime,
  last_triggered: isoTime.nullable(),
  trigger_count: z.number().int(),
  owner: z.string().optional().describe("Shown to admins on other owners' alerts"),
});

const attemptSchema = z.object({
  delivery_id: z.string().describe('One per target per firing; the X-Vigil-Delivery header'),
  attempt: z.number().int().optional(),
  method: z.enum(DELIVERY_METHODS),
  target: z
    .string()
    .nullable()
    .describe(
      'Chat id, email recipient or webhook URL; null on deliveries recorded before they were per target',
    ),
  event: z
    .object({ event_id: z.string(), type: z.string(), watchdog: z.string().nullable() })
    .nullable()
    .optional()
    .describe('The event delivered'),
  status: z.enum(['delivered', 'retry', 'failed']),
  response_code: z.number().int().nullable(),
  latency_ms: z.number().int().describe('Milliseconds'),
  error: z.string().nullable(),
  attempted_at: isoTime.optional(),
});

const switchSchema = z.object({
  status: z.enum(['enabled', 'disabled']),
  alert_id: z.string(),
  alert: alertSchema,
});

const SECRETS =
  'Secrets (email_config.smtp_password, chat_config.bot_token, webhook_config.auth_token, ' +
  'webhook_config.signing_secret, slack_config.webhook_url, discord_config.webhook_url, teams_config.webhook_url, pagerduty_config.routing_key) are write-only: answers carry has_* flags instead.';

/** The alert's fields as arguments: each checked by the store's schema, as the REST body is. */
const { shape } = alertInputSchema;
const alertArguments: Record<string, ToolArgument> = {
  alert_id: { schema: alertIdSchema, description: 'Id you choose: 1-64 letters, digits, _ . : -' },
  name: { schema: shape.name, description: 'Name, 1 to 200 characters' },
  description: { schema: shape.description, description: 'What it is for (default empty)' },
  enabled: { schema: shape.enabled, description: 'Default true' },
  trigger: {
    schema: shape.trigger,
    description:
      `{type: ${TRIGGER_TYPES.join(' | ')}, ...}: watchdog_event takes event_filter {event_types, severities, ` +
      'assets, watchdogs}; price_threshold takes symbol, price_threshold, direction (above|below), ' +
      'hysteresis_percent; volume_threshold takes symbol, volume_threshold; custom_condition takes condition ' +
      '(FK-DSL), check_interval_seconds',
  },
  delivery_methods: {
    schema: shape.delivery_methods,
    description:
      'email, chat, webhook, slack, discord, teams, alertmanager and/or pagerduty, each with its config',
  },
  email_config: {
    schema: shape.email_config,
    description:
      '{smtp_host, smtp_port (587), smtp_user, smtp_password, use_tls (true), from_email, to_emails}',
  },
  chat_config: { schema: shape.chat_config, description: '{bot_token, chat_ids}' },
  webhook_config: {
    schema: shape.webhook_config,
    description: '{url, method (POST|PUT), headers {name: value}, auth_token, signing_secret}',
  },
  slack_config: {
    schema: shape.slack_config,
    description: '{webhook_url} (hooks.slack.com)',
  },
  discord_config: {
    schema: shape.discord_config,
    description: '{webhook_url} (discord.com/api/webhooks)',
  },
  teams_config: {
    schema: shape.teams_config,
    description: '{webhook_url} (*.webhook.office.com, *.logic.azure.com)',
  },
  alertmanager_config: { schema: shape.alertmanager_config, description: '{url}' },
  pagerduty_config: { schema: shape.pagerduty_config, description: '{routing_key}' },
  cooldown_seconds: {
    schema: shape.cooldown_seconds,
    description: 'Seconds between two firings (default 60)',
  },
  mute_windows: {
    schema: shape.mute_windows,
    description:
      '[{days, start, end, time_zone}]: recurring windows (days mon..sun, HH:MM, an IANA zone; an end not after the start ends the next day) in which its firings are recorded as silenced',
  },
  send_resolved: {
    schema: shape.send_resolved,
    description: 'true: a resolved notice to every target when an episode resolves (default false)',
  },
  resolve_timeout_seconds: {
    schema: shape.resolve_timeout_seconds,
    description: `watchdog_event: seconds without a repeat after which an episode resolves (${RESOLVE_TIMEOUT_RANGE.min}..${RESOLVE_TIMEOUT_RANGE.max}, default ${DEFAULT_RESOLVE_TIMEOUT_SECONDS})`,
  },
  grouping: {
    schema: shape.grouping,
    description:
      'watchdog_event only: firings grouped into one notice per group (group_by [] = one group); null (default): each firing notifies',
  },
};

const idArgument: ToolArgument = { schema: alertIdSchema, description: 'The alert id' };
const write = { readOnlyHint: false, destructiveHint: false } as const;

const createAlert: ToolDefinition<{ createAlert: AlertData }> = {
  name: 'create-alert',
  title: 'Create an alert',
  description: `Creates an alert: a trigger, delivery methods and a cooldown. An alert_id you already use is refused. ${SECRETS}`,
  document: CREATE_ALERT,
  arguments: alertArguments,
  variables: (args) => alertVariables(args),
  result: (data) => alertWire(data.createAlert),
  outputSchema: alertSchema,
  annotations: { ...write, idempotentHint: false },
};

const updateAlert: ToolDefinition<{ updateAlert: AlertData }> = {
  name: 'update-alert',
  title: 'Replace an alert',
  description: `Replaces the alert alert_id names, whole (fields left out take their defaults). A secret left out keeps its stored value; null removes it. ${SECRETS}`,
  document: UPDATE_ALERT,
  arguments: alertArguments,
  variables: (args) => alertVariables(args),
  result: (data) => alertWire(data.updateAlert),
  outputSchema: alertSchema,
  annotations: { ...write, idempotentHint: true },
};

const listAlerts: ToolDefinition<{ alerts: AlertData[] }> = {
  name: 'list-alerts',
  title: 'List alerts',
  description: 'Your alerts, oldest first, secrets as has_* flags.',
  document: LIST_ALERTS,
  arguments: { enabled_only: { schema: z.boolean(), default: false, description: 'Only enabled alerts' } },
  result: (data) => ({ alerts: data.alerts.map(alertWire) }),
  outputSchema: z.object({ alerts: z.array(alertSchema) }),
  annotations: { readOnlyHint: true },
};

const getAlert: ToolDefinition<{ alert: AlertData }> = {
  name: 'get-alert',
  title: 'Get an alert',
  description: 'One of your alerts (NOT_FOUND for an unknown id), secrets as has_* flags.',
  document: GET_ALERT,
  arguments: { alert_id: idArgument },
  result: (data) => alertWire(data.alert),
  outputSchema: alertSchema,
  annotations: { readOnlyHint: true },
};

const deleteAlert: ToolDefinition<{ deleteAlert: string }> = {
  name: 'delete-alert',
  title: 'Delete an alert',
  description: 'Deletes one of your alerts and its firing and delivery records.',
  document: DELETE_ALERT,
  arguments: { alert_id: idArgument },
  result: (data) => ({ status: 'deleted', alert_id: data.deleteAlert }),
  outputSchema: z.object({ status: z.literal('deleted'), alert_id: z.string() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
};

const switches = ([true, false] as const).map(
  (enabled): ToolDefinition<Record<'enableAlert' | 'disableAlert', AlertData>> => ({
    name: enabled ? 'enable-alert' : 'disable-alert',
    title: enabled ? 'Enable an alert' : 'Disable an alert',
    description: enabled
      ? 'Enables one of your alerts: it fires again on matching events.'
      : 'Disables one of your alerts: it does not fire until enabled (test-alert still works).',
    document: enabled ? ENABLE_ALERT : DISABLE_ALERT,
    arguments: { alert_id: idArgument },
    result: (data) => {
      const alert = alertWire(data[enabled ? 'enableAlert' : 'disableAlert']);
      return { status: enabled ? 'enabled' : 'disabled', alert_id: alert.alert_id, alert };
    },
    outputSchema: switchSchema,
    annotations: { ...write, idempotentHint: true },
  }),
);

const testAlert: ToolDefinition<{ testAlert: TestSendData }> = {
  name: 'test-alert',
  title: 'Test-send an alert',
  description:
    'Sends a sample event by each of the alert’s methods now (even when disabled or cooling down) and answers with one result per target (each chat id, recipient and webhook); the attempts are recorded, not retried.',
  document: TEST_ALERT,
  arguments: { alert_id: idArgument },
  result: (data) => testSendWire(data.testAlert),
  outputSchema: z.object({ alert_id: z.string(), results: z.array(attemptSchema) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};

const getAlertDeliveries: ToolDefinition<{ alertDeliveries: AttemptData[] }> = {
  name: 'get-alert-deliveries',
  title: 'Alert delivery record',
  description:
    'Every delivery attempt of one of your alerts (test-sends too), newest first, each naming its target and event.',
  document: ALERT_DELIVERIES,
  arguments: {
    alert_id: idArgument,
    limit: {
      schema: z.number().int().min(1).max(MAX_DELIVERY_LIMIT),
      default: DEFAULT_DELIVERY_LIMIT,
      description: `Attempts to return, 1 to ${MAX_DELIVERY_LIMIT}`,
    },
  },
  result: (data) => ({ deliveries: data.alertDeliveries.map(attemptWire) }),
  outputSchema: z.object({ deliveries: z.array(attemptSchema) }),
  annotations: { readOnlyHint: true },
};

const redeliveredSchema = z.object({
  delivery_id: z.string().describe('The same delivery id (X-Vigil-Delivery) as its earlier attempts'),
  method: z.enum(DELIVERY_METHODS),
  target: z.string().nullable(),
  attempts: z.number().int().describe('Attempts made before this redelivery'),
});

const redeliverAlert: ToolDefinition<RedeliveryData> = {
  name: 'redeliver-alert',
  title: 'Redeliver failed alert deliveries',
  description:
    'Puts failed deliveries of one of your alerts back in the queue: the one delivery_id names (from get-alert-deliveries), or every failed one. Each keeps its id and earlier attempts and gets ALERT_DELIVERY_MAX_ATTEMPTS more; one whose target was removed from the alert is skipped, saying why. A delivery_id that is not failed is refused naming its status.',
  document: REDELIVER_ALERT,
  arguments: {
    alert_id: idArgument,
    delivery_id: {
      schema: z.string().min(1),
      description: 'One delivery to redeliver; left out: every failed delivery of the alert',
    },
  },
  result: (data) => redeliveryWire(data),
  outputSchema: z.object({
    alert_id: z.string(),
    redelivered: z.array(redeliveredSchema),
    skipped: z.array(redeliveredSchema.extend({ reason: z.string() })),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
};

export const alertsTools: readonly ToolDefinition<never>[] = [
  createAlert,
  listAlerts,
  getAlert,
  updateAlert,
  deleteAlert,
  ...switches,
  testAlert,
  getAlertDeliveries,
  redeliverAlert,
] as readonly ToolDefinition<never>[];

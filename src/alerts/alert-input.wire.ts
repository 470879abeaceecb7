/**
 * An alert as clients write it (the compatibility shape, snake_case), checked field by field and
 * read into the model (AlertDefinition). The same schema checks the REST body, the GraphQL input
 * (converted to this shape) and the MCP arguments, so a rule and its message, naming the
 * snake_case field, are the same everywhere. Secrets are write-only: they are read here and never
 * appear in anything this module returns.
 */
import { z } from 'zod';
import { EVENT_TYPES, SEVERITIES, WATCHDOG_NAMES } from '../watchdogs/watchdog-event.ts';
import {
  type AlertDefinition,
  DEFAULT_CHECK_INTERVAL_SECONDS,
  DEFAULT_COOLDOWN_SECONDS,
  DEFAULT_HYSTERESIS_PERCENT,
  DELIVERY_METHODS,
  MAX_COOLDOWN_SECONDS,
  MAX_LIST,
  PRICE_DIRECTIONS,
  SECRET_NAMES,
  type SecretChanges,
  type SecretName,
  TRIGGER_TYPES,
  WEBHOOK_METHODS,
} from './alert.model.ts';
import {
  chatOfWire,
  emailOfWire,
  muteWindowOfWire,
  triggerOfWire,
  webhookOfWire,
} from './alert-config.wire.ts';
import { GROUPING_TRIGGER_RULE, groupingOfWire, notificationFields } from './alert-grouping.wire.ts';
import { type FieldIssue, InvalidAlertError } from './alerts.errors.ts';
import { botTokenProblem } from './delivery/chat-endpoint.ts';
import { headerProblem } from './delivery/webhook-headers.rules.ts';
import { muteWindowsSchema } from './mute-window.wire.ts';

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

const text = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: `at most ${max} characters` });
const secret = z.string().min(1, { error: 'must not be empty' }).max(4_096).nullable().optional();
/** A bot token is one segment of the bot API's path (see chat-endpoint.ts). */
const botToken = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(4_096)
  .superRefine((token, ctx) => {
    const problem = botTokenProblem(token);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .nullable()
  .optional();
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .max(MAX_LIST, { error: `at most ${MAX_LIST} entries` })
    .default([]);
const symbol = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .transform((s) => s.toUpperCase());
const email = z.email({ error: 'must be an email address' });

/** `https://user:pass@host/`: the sender refuses such a URL (credentials go in auth_token or headers). */
function carriesCredentials(url: string): boolean {
  if (!URL.canParse(url)) return false;
  const parsed = new URL(url);
  return parsed.username !== '' || parsed.password !== '';
}

export const alertIdSchema = z.string().regex(ID_PATTERN, {
  error: 'must be 1-64 letters, digits, _ . : - (starting with a letter or digit)',
});

export const eventFilterSchema = z
  .strictObject({
    event_types: list(z.enum(EVENT_TYPES, { error: `expected one of ${EVENT_TYPES.join(', ')}` })),
    severities: list(z.enum(SEVERITIES, { error: `expected one of ${SEVERITIES.join(', ')}` })),
    assets: list(symbol),
    watchdogs: list(z.enum(WATCHDOG_NAMES, { error: `expected one of ${WATCHDOG_NAMES.join(', ')}` })),
  })
  .default({ event_types: [], severities: [], assets: [], watchdogs: [] });

const trigger = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('watchdog_event'), event_filter: eventFilterSchema }),
    z.strictObject({
      type: z.literal('price_threshold'),
      symbol,
      price_threshold: z.number().positive({ error: 'must be a positive price' }),
      /** Fires when the price crosses the threshold in this direction. */
      direction: z.enum(PRICE_DIRECTIONS).default('above'),
      /** Re-arms once the price is back this far (percent of the threshold) on the other side. */
      hysteresis_percent: z.number().min(0).max(50).default(DEFAULT_HYSTERESIS_PERCENT),
    }),
    z.strictObject({
      type: z.literal('volume_threshold'),
      symbol,
      volume_threshold: z.number().positive({ error: 'must be a positive volume' }),
    }),
    z.strictObject({
      type: z.literal('custom_condition'),
      /** An FK-DSL statement whose result is true when the alert should fire. */
      condition: z.string().trim().min(1).max(2_000),
      check_interval_seconds: z.number().int().min(60).max(86_400).default(DEFAULT_CHECK_INTERVAL_SECONDS),
    }),
  ],
  { error: `type must be one of ${TRIGGER_TYPES.join(', ')}` },
);

const emailConfig = z.strictObject({
  smtp_host: text(253).min(1).optional(),
  smtp_port: z.number().int().min(1).max(65_535).optional(),
  smtp_user: text(320).min(1).optional(),
  smtp_password: secret,
  /** false: plain SMTP (a local relay); true: STARTTLS, or implicit TLS on port 465. */
  use_tls: z.boolean().default(true),
  from_email: email.optional(),
  to_emails: z.array(email).min(1, { error: 'name at least one recipient' }).max(MAX_LIST),
});

const chatConfig = z.strictObject({
  bot_token: botToken,
  chat_ids: z
    .array(z.union([z.string().trim().min(1).max(64), z.number().int()]).transform(String))
    .min(1, { error: 'name at least one chat id' })
    .max(MAX_LIST),
});

export const webhookConfig = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2_048)
    .refine((url) => !carriesCredentials(url), {
      error: 'must not carry credentials: use auth_token or headers',
    }),
  method: z.enum(WEBHOOK_METHODS).default('POST'),
  headers: z
    .record(z.string(), z.string().max(1_024))
    .default({})
    .refine((h) => Object.keys(h).length <= MAX_LIST, { error: `at most ${MAX_LIST} headers` })
    .superRefine((headers, ctx) => {
      // Each issue names its header (`webhook_config.headers.Connection`).
      for (const [name, value] of Object.entries(headers)) {
        const problem = headerProblem(name, value);
        if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      }
    }),
  auth_token: secret,
  signing_secret: secret,
});

/**
 * Slack's, Discord's and Teams': the URL alone. Its host is checked against the server's settings when the
 * alert is written (hook-url.rules.ts).
 */
const hookConfig = z.strictObject({
  webhook_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2_048)
    .refine((url) => !carriesCredentials(url), { error: 'must not carry credentials' })
    .nullable()
    .optional(),
});

/** An Alertmanager webhook receiver: checked as a webhook's URL is. */
const alertmanagerConfig = z.strictObject({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2_048)
    .refine((url) => !carriesCredentials(url), { error: 'must not carry credentials' }),
});

/** An Events API v2 integration key (32 characters as PagerDuty issues them; bounded loosely). */
const pagerdutyConfig = z.strictObject({
  routing_key: z
    .string()
    .regex(/^[A-Za-z0-9_-]{20,64}$/, {
      error: 'must be a PagerDuty integration key (20-64 letters and digits)',
    })
    .nullable()
    .optional(),
});

export const alertInputSchema = z
  .strictObject({
    alert_id: alertIdSchema,
    name: text(200).min(1, { error: 'must not be empty' }),
    description: text(2_000).default(''),
    enabled: z.boolean().default(true),
    trigger,
    delivery_methods: z
      .array(z.enum(DELIVERY_METHODS, { error: `expected one of ${DELIVERY_METHODS.join(', ')}` }))
      .min(1, { error: 'name at least one delivery method' })
      .max(DELIVERY_METHODS.length)
      .refine((m) => new Set(m).size === m.length, { error: 'lists a method twice' }),
    email_config: emailConfig.nullable().optional(),
    chat_config: chatConfig.nullable().optional(),
    webhook_config: webhookConfig.nullable().optional(),
    slack_config: hookConfig.nullable().optional(),
    discord_config: hookConfig.nullable().optional(),
    teams_config: hookConfig.nullable().optional(),
    alertmanager_config: alertmanagerConfig.nullable().optional(),
    pagerduty_config: pagerdutyConfig.nullable().optional(),
    cooldown_seconds: z.number().int().min(0).max(MAX_COOLDOWN_SECONDS).default(DEFAULT_COOLDOWN_SECONDS),
    mute_windows: muteWindowsSchema,
    ...notificationFields,
  })
  .superRefine((alert, ctx) => {
    for (const method of alert.delivery_methods) {
      const key = `${method}_config` as const;
      if (!alert[key])
        ctx.addIssue({ code: 'custom', path: [key], message: `is required for ${method} delivery` });
    }
    // A group gathers watchdog events; a threshold or condition alert has one condition to notify.
    if (alert.grouping && alert.trigger.type !== 'watchdog_event')
      ctx.addIssue({ code: 'custom', path: ['grouping'], message: GROUPING_TRIGGER_RULE });
  });

/** A checked wire alert: defaults applied, symbols upper-cased, chat ids as strings. */
export type AlertInputWire = z.output<typeof alertInputSchema>;

/** The issues of a failed parse, each naming its field as a dotted path (`email_config.to_emails.0`). */
export function issuesOf(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || '(body)',
    message: issue.message,
  }));
}

/** A wire alert checked whole; InvalidAlertError names every bad field. */
export function checkedWireAlert(body: unknown): AlertInputWire {
  const parsed = alertInputSchema.safeParse(body);
  if (!parsed.success) throw new InvalidAlertError(issuesOf(parsed.error));
  return parsed.data;
}

/** A body as written by a client, as the alert it defines; InvalidAlertError names every bad field. */
export function parseAlertInput(body: unknown): AlertDefinition {
  return definitionOfWire(checkedWireAlert(body));
}

export function definitionOfWire(alert: AlertInputWire): AlertDefinition {
  const email = alert.email_config ?? null;
  const chat = alert.chat_config ?? null;
  const webhook = alert.webhook_config ?? null;
  const slack = alert.slack_config ?? null;
  const discord = alert.discord_config ?? null;
  const teams = alert.teams_config ?? null;
  const alertmanager = alert.alertmanager_config ?? null;
  const pagerduty = alert.pagerduty_config ?? null;
  return {
    id: alert.alert_id,
    name: alert.name,
    description: alert.description,
    enabled: alert.enabled,
    trigger: triggerOfWire(alert.trigger),
    deliveryMethods: alert.delivery_methods,
    email: email && emailOfWire(email),
    chat: chat && chatOfWire(chat),
    webhook: webhook && webhookOfWire(webhook),
    slack: slack && {},
    discord: discord && {},
    teams: teams && {},
    alertmanager: alertmanager && { url: alertmanager.url },
    pagerduty: pagerduty && {},
    cooldownSeconds: alert.cooldown_seconds,
    muteWindows: alert.mute_windows.map(muteWindowOfWire),
    sendResolved: alert.send_resolved,
    resolveTimeoutSeconds: alert.resolve_timeout_seconds,
    grouping: alert.grouping && groupingOfWire(alert.grouping),
    secrets: secretChanges({
      smtpPassword: email?.smtp_password,
      botToken: chat?.bot_token,
      authToken: webhook?.auth_token,
      signingSecret: webhook?.signing_secret,
      slackWebhookUrl: slack?.webhook_url,
      discordWebhookUrl: discord?.webhook_url,
      teamsWebhookUrl: teams?.webhook_url,
      pagerdutyRoutingKey: pagerduty?.routing_key,
    }),
  };
}

/** Only the secrets written (a value or null): one left out is absent, and keeps the stored one. */
function secretChanges(written: Readonly<Record<SecretName, string | null | undefined>>): SecretChanges {
  const changes: { [K in SecretName]?: string | null } = {};
  for (const name of SECRET_NAMES) {
    const value = written[name];
    if (value !== undefined) changes[name] = value;
  }
  return changes;
}

import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { WatchdogEventTypeEnum } from '../watchdogs/watchdog-events.graphql.ts';
import { EventSeverityEnum, WatchdogNameEnum } from '../watchdogs/watchdogs.graphql.ts';
import {
  DEFAULT_CHECK_INTERVAL_SECONDS,
  DEFAULT_HYSTERESIS_PERCENT,
  DEFAULT_SMTP_PORT,
  type DeliveryMethod,
  type TriggerType,
} from './alert.schema.ts';
import type { AlertView } from './alert.view.ts';

/**
 * The alert as GraphQL returns it: the stored alert (AlertView) in camelCase. Secrets are never
 * readable: a config says only whether one is stored (`hasPassword`, `hasBotToken`, ...).
 */

type Json = Record<string, unknown>;
const str = (o: Json, key: string) => (typeof o[key] === 'string' ? (o[key] as string) : null);
const num = (o: Json, key: string) => (typeof o[key] === 'number' ? (o[key] as number) : null);
const strings = (o: Json, key: string) => (Array.isArray(o[key]) ? (o[key] as string[]) : []);

const TRIGGER_TYPE_DESCRIPTIONS: Readonly<Record<TriggerType, string>> = {
  watchdog_event: 'Fires on each watchdog event that passes `eventFilter`.',
  price_threshold: 'Fires when the price of `symbol` crosses `priceThreshold` in `direction`.',
  volume_threshold: 'Fires when the traded volume of `symbol` exceeds `volumeThreshold`.',
  custom_condition:
    'Fires when the FK-DSL statement `condition` holds, checked every `checkIntervalSeconds`.',
};

export const AlertTriggerTypeEnum = builder.enumType('AlertTriggerType', {
  description: 'What makes an alert fire.',
  values: enumValues(TRIGGER_TYPE_DESCRIPTIONS),
});

const METHOD_DESCRIPTIONS: Readonly<Record<DeliveryMethod, string>> = {
  email: 'An email over SMTP (`emailConfig`).',
  chat: 'A message through the chat bot API to each chat id (`chatConfig`).',
  webhook: 'An HTTP request with a JSON body to a URL (`webhookConfig`).',
};

export const AlertDeliveryMethodEnum = builder.enumType('AlertDeliveryMethod', {
  description: 'How an alert is delivered.',
  values: enumValues(METHOD_DESCRIPTIONS),
});

export const PriceDirectionEnum = builder.enumType('AlertPriceDirection', {
  description: 'Which way the price must cross its threshold.',
  values: enumValues({
    above: 'From below the threshold to at or above it.',
    below: 'From above the threshold to at or below it.',
  }),
});

export const WebhookMethodEnum = builder.enumType('AlertWebhookMethod', {
  description: 'HTTP method of a webhook request.',
  values: enumValues({ POST: 'HTTP POST (the default).', PUT: 'HTTP PUT.' }),
});

const EventFilterRef = builder.objectRef<Json>('AlertEventFilter').implement({
  description:
    'Which watchdog events fire the alert: lists are AND-ed, values inside one list OR-ed; an empty list matches any. Value object: not normalised.',
  fields: (t) => ({
    eventTypes: t.field({
      type: [WatchdogEventTypeEnum],
      description: 'Event types (empty: any).',
      resolve: (f) => strings(f, 'event_types') as never,
    }),
    severities: t.field({
      type: [EventSeverityEnum],
      description: 'Severities (empty: any).',
      resolve: (f) => strings(f, 'severities') as never,
    }),
    assets: t.stringList({
      description: 'Symbols as watched, upper case: AAPL, BTC/USDT (empty: any).',
      resolve: (f) => strings(f, 'assets'),
    }),
    watchdogs: t.field({
      type: [WatchdogNameEnum],
      description: 'Emitting watchdogs (empty: any).',
      resolve: (f) => strings(f, 'watchdogs') as never,
    }),
  }),
});

const TriggerRef = builder.objectRef<Json>('AlertTrigger').implement({
  description:
    'What makes the alert fire; the fields of other trigger types are null. Value object: not normalised (it belongs to its alert).',
  fields: (t) => ({
    type: t.field({
      type: AlertTriggerTypeEnum,
      description: 'The kind of trigger.',
      resolve: (g) => g.type as TriggerType,
    }),
    eventFilter: t.field({
      type: EventFilterRef,
      nullable: true,
      description: 'WATCHDOG_EVENT: which events fire it.',
      resolve: (g) => (g.event_filter as Json | undefined) ?? null,
    }),
    symbol: t.string({
      nullable: true,
      description: 'PRICE_THRESHOLD, VOLUME_THRESHOLD: the symbol watched, upper case.',
      resolve: (g) => str(g, 'symbol'),
    }),
    priceThreshold: t.float({
      nullable: true,
      description: "PRICE_THRESHOLD: the price, in the instrument's currency.",
      resolve: (g) => num(g, 'price_threshold'),
    }),
    direction: t.field({
      type: PriceDirectionEnum,
      nullable: true,
      description: 'PRICE_THRESHOLD: which way the price must cross it.',
      resolve: (g) => (str(g, 'direction') as 'above' | 'below' | null) ?? null,
    }),
    hysteresisPercent: t.float({
      nullable: true,
      description: `PRICE_THRESHOLD: percent of the threshold the price must move back before it can fire again (default ${DEFAULT_HYSTERESIS_PERCENT}).`,
      resolve: (g) => num(g, 'hysteresis_percent'),
    }),
    volumeThreshold: t.float({
      nullable: true,
      description: 'VOLUME_THRESHOLD: the volume, in units traded.',
      resolve: (g) => num(g, 'volume_threshold'),
    }),
    condition: t.string({
      nullable: true,
      description: 'CUSTOM_CONDITION: the FK-DSL statement.',
      resolve: (g) => str(g, 'condition'),
    }),
    checkIntervalSeconds: t.int({
      nullable: true,
      description: `CUSTOM_CONDITION: seconds between two checks (default ${DEFAULT_CHECK_INTERVAL_SECONDS}).`,
      resolve: (g) => num(g, 'check_interval_seconds'),
    }),
  }),
});

const EmailConfigRef = builder.objectRef<Json>('AlertEmailConfig').implement({
  description:
    'Email delivery. A field left out uses the server setting (SMTP_HOST, SMTP_PORT, ...). Value object: not normalised.',
  fields: (t) => ({
    smtpHost: t.string({
      nullable: true,
      description: 'SMTP server; null: SMTP_HOST.',
      resolve: (c) => str(c, 'smtp_host'),
    }),
    smtpPort: t.int({
      nullable: true,
      description: `SMTP port; null: ${DEFAULT_SMTP_PORT} with smtpHost, else SMTP_PORT.`,
      resolve: (c) => num(c, 'smtp_port'),
    }),
    smtpUser: t.string({
      nullable: true,
      description: 'SMTP login; null: none (or SMTP_USER).',
      resolve: (c) => str(c, 'smtp_user'),
    }),
    hasPassword: t.boolean({
      description: 'Whether an SMTP password is stored (the password itself is never returned).',
      resolve: (c) => c.has_password === true,
    }),
    useTls: t.boolean({
      description:
        'True (default): STARTTLS, or implicit TLS on port 465; false: plain SMTP (a local relay).',
      resolve: (c) => c.use_tls !== false,
    }),
    fromEmail: t.string({
      nullable: true,
      description: 'Sender; null: SMTP_FROM_EMAIL.',
      resolve: (c) => str(c, 'from_email'),
    }),
    toEmails: t.stringList({ description: 'Recipients.', resolve: (c) => strings(c, 'to_emails') }),
  }),
});

const ChatConfigRef = builder.objectRef<Json>('AlertChatConfig').implement({
  description: 'Chat delivery through the bot API. Value object: not normalised.',
  fields: (t) => ({
    chatIds: t.stringList({
      description: 'Chats that get the message.',
      resolve: (c) => strings(c, 'chat_ids'),
    }),
    hasBotToken: t.boolean({
      description: 'Whether a bot token is stored (never returned); false: CHAT_BOT_TOKEN is used.',
      resolve: (c) => c.has_bot_token === true,
    }),
  }),
});

const HeaderRef = builder.objectRef<{ name: string; value: string }>('AlertHttpHeader').implement({
  description: 'One custom HTTP header. Value object: not normalised.',
  fields: (t) => ({
    name: t.exposeString('name', { description: 'Header name, as written.' }),
    value: t.exposeString('value', { description: 'Header value.' }),
  }),
});

const WebhookConfigRef = builder.objectRef<Json>('AlertWebhookConfig').implement({
  description: 'Webhook delivery: a JSON body sent to `url`. Value object: not normalised.',
  fields: (t) => ({
    url: t.string({ description: 'Target http(s) URL.', resolve: (c) => str(c, 'url') ?? '' }),
    method: t.field({
      type: WebhookMethodEnum,
      description: 'HTTP method (default POST).',
      resolve: (c) => (str(c, 'method') as 'POST' | 'PUT' | null) ?? 'POST',
    }),
    headers: t.field({
      type: [HeaderRef],
      description: 'Custom headers sent with each request.',
      resolve: (c) =>
        Object.entries((c.headers as Record<string, string> | undefined) ?? {}).map(([name, value]) => ({
          name,
          value,
        })),
    }),
    hasAuthToken: t.boolean({
      description: 'Whether a bearer token is stored (sent as `Authorization: Bearer`; never returned).',
      resolve: (c) => c.has_auth_token === true,
    }),
    hasSigningSecret: t.boolean({
      description: 'Whether a signing secret is stored (it signs each body; never returned).',
      resolve: (c) => c.has_signing_secret === true,
    }),
  }),
});

export const AlertRef = builder.objectRef<AlertView>('Alert').implement({
  description:
    "An alert: a trigger, how it is delivered, and a cooldown. It belongs to whoever created it; other callers' alerts are NOT_FOUND.",
  fields: (t) => ({
    id: t.id({
      description:
        'Stable id for caches: `alertId`, or `owner/alertId` for an alert of another owner (admins see those).',
      resolve: (a) => (a.owner ? `${a.owner}/${a.alert_id}` : a.alert_id),
    }),
    alertId: t.string({ description: 'The id its creator chose.', resolve: (a) => a.alert_id }),
    name: t.exposeString('name', { description: 'Name, 1 to 200 characters.' }),
    description: t.exposeString('description', { description: 'What it is for (may be empty).' }),
    enabled: t.exposeBoolean('enabled', { description: 'False: it never fires (a test-send still works).' }),
    trigger: t.field({ type: TriggerRef, description: 'What makes it fire.', resolve: (a) => a.trigger }),
    deliveryMethods: t.field({
      type: [AlertDeliveryMethodEnum],
      description: 'Each is used, concurrently, when it fires.',
      resolve: (a) => a.delivery_methods,
    }),
    emailConfig: t.field({
      type: EmailConfigRef,
      nullable: true,
      description: 'Email settings; null when none are stored.',
      resolve: (a) => a.email_config,
    }),
    chatConfig: t.field({
      type: ChatConfigRef,
      nullable: true,
      description: 'Chat settings; null when none are stored.',
      resolve: (a) => a.chat_config,
    }),
    webhookConfig: t.field({
      type: WebhookConfigRef,
      nullable: true,
      description: 'Webhook settings; null when none are stored.',
      resolve: (a) => a.webhook_config,
    }),
    cooldownSeconds: t.int({
      description: 'Seconds after firing during which it does not fire again.',
      resolve: (a) => a.cooldown_seconds,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was created.',
      resolve: (a) => a.created_at,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When it was last changed.',
      resolve: (a) => a.updated_at,
    }),
    lastTriggered: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last fired; null if never.',
      resolve: (a) => a.last_triggered,
    }),
    triggerCount: t.int({ description: 'Times it fired.', resolve: (a) => a.trigger_count }),
    owner: t.string({
      nullable: true,
      description: "Its owner's principal id, shown to admins for other owners' alerts; null otherwise.",
      resolve: (a) => a.owner ?? null,
    }),
  }),
});

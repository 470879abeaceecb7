import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { WatchdogEventTypeEnum } from '../watchdogs/watchdog-events.graphql.ts';
import { EventSeverityEnum, WatchdogNameEnum } from '../watchdogs/watchdogs.graphql.ts';
import {
  type Alert,
  type AlertmanagerConfig,
  type AlertTrigger,
  type ChatConfig,
  DEFAULT_CHECK_INTERVAL_SECONDS,
  DEFAULT_HYSTERESIS_PERCENT,
  DEFAULT_RESOLVE_TIMEOUT_SECONDS,
  DEFAULT_SMTP_PORT,
  type DeliveryMethod,
  type DiscordConfig,
  type EmailConfig,
  type EventFilter,
  hasSecret,
  type PagerDutyConfig,
  type SlackConfig,
  type TeamsConfig,
  type TriggerType,
  type WebhookConfig,
} from './alert.model.ts';
import { GroupingRef } from './alert-grouping.graphql.ts';
import { RESOLVE_TIMEOUT_RANGE } from './alert-grouping.wire.ts';
import { MuteWindowRef } from './mute-window.graphql.ts';

/**
 * The alert as GraphQL returns it: the stored alert (alert.model.ts). Secrets are never readable: a
 * config says only whether one is stored (`hasPassword`, `hasBotToken`, ...).
 */

/** A method's configuration with the alert it belongs to (which knows the secrets that are set). */
interface Configured<C> {
  readonly config: C;
  readonly alert: Alert;
}

const configured = <C>(alert: Alert, config: C | null): Configured<C> | null =>
  config === null ? null : { config, alert };

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
  slack: 'A Block Kit message to a Slack incoming webhook (`slackConfig`).',
  discord: 'An embed to a Discord webhook (`discordConfig`).',
  teams: 'An Adaptive Card to a Microsoft Teams webhook or Workflows (`teamsConfig`).',
  pagerduty: 'A PagerDuty Events API v2 trigger (`pagerdutyConfig`).',
  alertmanager: "Alertmanager's webhook body (version 4) to a URL (`alertmanagerConfig`).",
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

const EventFilterRef = builder.objectRef<EventFilter>('AlertEventFilter').implement({
  description:
    'Which watchdog events fire the alert: lists are AND-ed, values inside one list OR-ed; an empty list matches any. Value object: not normalised.',
  fields: (t) => ({
    eventTypes: t.field({
      type: [WatchdogEventTypeEnum],
      description: 'Event types (empty: any).',
      resolve: (f) => f.eventTypes,
    }),
    severities: t.field({
      type: [EventSeverityEnum],
      description: 'Severities (empty: any).',
      resolve: (f) => f.severities,
    }),
    assets: t.stringList({
      description: 'Symbols as watched, upper case: AAPL, BTC/USDT (empty: any).',
      resolve: (f) => f.assets,
    }),
    watchdogs: t.field({
      type: [WatchdogNameEnum],
      description: 'Emitting watchdogs (empty: any).',
      resolve: (f) => f.watchdogs,
    }),
  }),
});

const TriggerRef = builder.objectRef<AlertTrigger>('AlertTrigger').implement({
  description:
    'What makes the alert fire; the fields of other trigger types are null. Value object: not normalised (it belongs to its alert).',
  fields: (t) => ({
    type: t.field({
      type: AlertTriggerTypeEnum,
      description: 'The kind of trigger.',
      resolve: (g) => g.type,
    }),
    eventFilter: t.field({
      type: EventFilterRef,
      nullable: true,
      description: 'WATCHDOG_EVENT: which events fire it.',
      resolve: (g) => (g.type === 'watchdog_event' ? g.eventFilter : null),
    }),
    symbol: t.string({
      nullable: true,
      description: 'PRICE_THRESHOLD, VOLUME_THRESHOLD: the symbol watched, upper case.',
      resolve: (g) => (g.type === 'price_threshold' || g.type === 'volume_threshold' ? g.symbol : null),
    }),
    priceThreshold: t.float({
      nullable: true,
      description: "PRICE_THRESHOLD: the price, in the instrument's currency.",
      resolve: (g) => (g.type === 'price_threshold' ? g.priceThreshold : null),
    }),
    direction: t.field({
      type: PriceDirectionEnum,
      nullable: true,
      description: 'PRICE_THRESHOLD: which way the price must cross it.',
      resolve: (g) => (g.type === 'price_threshold' ? g.direction : null),
    }),
    hysteresisPercent: t.float({
      nullable: true,
      description: `PRICE_THRESHOLD: percent of the threshold the price must move back before it can fire again (default ${DEFAULT_HYSTERESIS_PERCENT}).`,
      resolve: (g) => (g.type === 'price_threshold' ? g.hysteresisPercent : null),
    }),
    volumeThreshold: t.float({
      nullable: true,
      description: 'VOLUME_THRESHOLD: the volume, in units traded.',
      resolve: (g) => (g.type === 'volume_threshold' ? g.volumeThreshold : null),
    }),
    condition: t.string({
      nullable: true,
      description: 'CUSTOM_CONDITION: the FK-DSL statement.',
      resolve: (g) => (g.type === 'custom_condition' ? g.condition : null),
    }),
    checkIntervalSeconds: t.int({
      nullable: true,
      description: `CUSTOM_CONDITION: seconds between two checks (default ${DEFAULT_CHECK_INTERVAL_SECONDS}).`,
      resolve: (g) => (g.type === 'custom_condition' ? g.checkIntervalSeconds : null),
    }),
  }),
});

const EmailConfigRef = builder.objectRef<Configured<EmailConfig>>('AlertEmailConfig').implement({
  description:
    'Email delivery. A field left out uses the server setting (SMTP_HOST, SMTP_PORT, ...). Value object: not normalised.',
  fields: (t) => ({
    smtpHost: t.string({
      nullable: true,
      description: 'SMTP server; null: SMTP_HOST.',
      resolve: (c) => c.config.smtpHost ?? null,
    }),
    smtpPort: t.int({
      nullable: true,
      description: `SMTP port; null: ${DEFAULT_SMTP_PORT} with smtpHost, else SMTP_PORT.`,
      resolve: (c) => c.config.smtpPort ?? null,
    }),
    smtpUser: t.string({
      nullable: true,
      description: 'SMTP login; null: none (or SMTP_USER).',
      resolve: (c) => c.config.smtpUser ?? null,
    }),
    hasPassword: t.boolean({
      description: 'Whether an SMTP password is stored (the password itself is never returned).',
      resolve: (c) => hasSecret(c.alert, 'smtpPassword'),
    }),
    useTls: t.boolean({
      description:
        'True (default): STARTTLS, or implicit TLS on port 465; false: plain SMTP (a local relay).',
      resolve: (c) => c.config.useTls,
    }),
    fromEmail: t.string({
      nullable: true,
      description: 'Sender; null: SMTP_FROM_EMAIL.',
      resolve: (c) => c.config.fromEmail ?? null,
    }),
    toEmails: t.stringList({ description: 'Recipients.', resolve: (c) => c.config.toEmails }),
  }),
});

const ChatConfigRef = builder.objectRef<Configured<ChatConfig>>('AlertChatConfig').implement({
  description: 'Chat delivery through the bot API. Value object: not normalised.',
  fields: (t) => ({
    chatIds: t.stringList({
      description: 'Chats that get the message.',
      resolve: (c) => c.config.chatIds,
    }),
    hasBotToken: t.boolean({
      description: 'Whether a bot token is stored (never returned); false: CHAT_BOT_TOKEN is used.',
      resolve: (c) => hasSecret(c.alert, 'botToken'),
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

const WebhookConfigRef = builder.objectRef<Configured<WebhookConfig>>('AlertWebhookConfig').implement({
  description: 'Webhook delivery: a JSON body sent to `url`. Value object: not normalised.',
  fields: (t) => ({
    url: t.string({ description: 'Target http(s) URL.', resolve: (c) => c.config.url }),
    method: t.field({
      type: WebhookMethodEnum,
      description: 'HTTP method (default POST).',
      resolve: (c) => c.config.method,
    }),
    headers: t.field({
      type: [HeaderRef],
      description: 'Custom headers sent with each request.',
      resolve: (c) => Object.entries(c.config.headers).map(([name, value]) => ({ name, value })),
    }),
    hasAuthToken: t.boolean({
      description: 'Whether a bearer token is stored (sent as `Authorization: Bearer`; never returned).',
      resolve: (c) => hasSecret(c.alert, 'authToken'),
    }),
    hasSigningSecret: t.boolean({
      description: 'Whether a signing secret is stored (it signs each body; never returned).',
      resolve: (c) => hasSecret(c.alert, 'signingSecret'),
    }),
  }),
});

const SlackConfigRef = builder.objectRef<Configured<SlackConfig>>('AlertSlackConfig').implement({
  description: 'Slack delivery to an incoming webhook. Value object: not normalised.',
  fields: (t) => ({
    hasWebhookUrl: t.boolean({
      description: 'Whether the webhook URL is stored (it carries a token: never returned).',
      resolve: (c) => hasSecret(c.alert, 'slackWebhookUrl'),
    }),
  }),
});

const DiscordConfigRef = builder.objectRef<Configured<DiscordConfig>>('AlertDiscordConfig').implement({
  description: 'Discord delivery to a webhook. Value object: not normalised.',
  fields: (t) => ({
    hasWebhookUrl: t.boolean({
      description: 'Whether the webhook URL is stored (it carries a token: never returned).',
      resolve: (c) => hasSecret(c.alert, 'discordWebhookUrl'),
    }),
  }),
});

const TeamsConfigRef = builder.objectRef<Configured<TeamsConfig>>('AlertTeamsConfig').implement({
  description: 'Microsoft Teams delivery to a webhook. Value object: not normalised.',
  fields: (t) => ({
    hasWebhookUrl: t.boolean({
      description: 'Whether the webhook URL is stored (it carries a signature: never returned).',
      resolve: (c) => hasSecret(c.alert, 'teamsWebhookUrl'),
    }),
  }),
});

const AlertmanagerConfigRef = builder
  .objectRef<Configured<AlertmanagerConfig>>('AlertAlertmanagerConfig')
  .implement({
    description: 'Delivery of Alertmanager webhook bodies to a receiver. Value object: not normalised.',
    fields: (t) => ({
      url: t.string({ description: 'Receiver http(s) URL.', resolve: (c) => c.config.url }),
    }),
  });

const PagerDutyConfigRef = builder.objectRef<Configured<PagerDutyConfig>>('AlertPagerDutyConfig').implement({
  description: 'PagerDuty Events API v2 delivery. Value object: not normalised.',
  fields: (t) => ({
    hasRoutingKey: t.boolean({
      description: 'Whether the routing key is stored (never returned).',
      resolve: (c) => hasSecret(c.alert, 'pagerdutyRoutingKey'),
    }),
  }),
});

/** Another owner's alert (only admins list those): its owner is shown, and its id qualified by it. */
const foreignOwner = (alert: Alert, viewerId: string): string | null =>
  alert.owner === viewerId ? null : alert.owner;

export const AlertRef = builder.objectRef<Alert>('Alert').implement({
  description:
    "An alert: a trigger, how it is delivered, and a cooldown. It belongs to whoever created it; other callers' alerts are NOT_FOUND.",
  fields: (t) => ({
    id: t.id({
      description:
        'Stable id for caches: `alertId`, or `owner/alertId` for an alert of another owner (admins see those).',
      resolve: (a, _args, ctx) => {
        const owner = foreignOwner(a, ctx.viewer.principal.id);
        return owner ? `${owner}/${a.id}` : a.id;
      },
    }),
    alertId: t.string({ description: 'The id its creator chose.', resolve: (a) => a.id }),
    name: t.exposeString('name', { description: 'Name, 1 to 200 characters.' }),
    description: t.exposeString('description', { description: 'What it is for (may be empty).' }),
    enabled: t.exposeBoolean('enabled', { description: 'False: it never fires (a test-send still works).' }),
    trigger: t.field({ type: TriggerRef, description: 'What makes it fire.', resolve: (a) => a.trigger }),
    deliveryMethods: t.field({
      type: [AlertDeliveryMethodEnum],
      description: 'Each is used, concurrently, when it fires.',
      resolve: (a) => a.deliveryMethods,
    }),
    emailConfig: t.field({
      type: EmailConfigRef,
      nullable: true,
      description: 'Email settings; null when none are stored.',
      resolve: (a) => configured(a, a.email),
    }),
    chatConfig: t.field({
      type: ChatConfigRef,
      nullable: true,
      description: 'Chat settings; null when none are stored.',
      resolve: (a) => configured(a, a.chat),
    }),
    webhookConfig: t.field({
      type: WebhookConfigRef,
      nullable: true,
      description: 'Webhook settings; null when none are stored.',
      resolve: (a) => configured(a, a.webhook),
    }),
    slackConfig: t.field({
      type: SlackConfigRef,
      nullable: true,
      description: 'Slack settings; null when none are stored.',
      resolve: (a) => configured(a, a.slack),
    }),
    discordConfig: t.field({
      type: DiscordConfigRef,
      nullable: true,
      description: 'Discord settings; null when none are stored.',
      resolve: (a) => configured(a, a.discord),
    }),
    teamsConfig: t.field({
      type: TeamsConfigRef,
      nullable: true,
      description: 'Teams settings; null when none are stored.',
      resolve: (a) => configured(a, a.teams),
    }),
    pagerdutyConfig: t.field({
      type: PagerDutyConfigRef,
      nullable: true,
      description: 'PagerDuty settings; null when none are stored.',
      resolve: (a) => configured(a, a.pagerduty),
    }),
    alertmanagerConfig: t.field({
      type: AlertmanagerConfigRef,
      nullable: true,
      description: 'Alertmanager receiver settings; null when none are stored.',
      resolve: (a) => configured(a, a.alertmanager),
    }),
    cooldownSeconds: t.exposeInt('cooldownSeconds', {
      description: 'Seconds after firing during which it does not fire again.',
    }),
    muteWindows: t.field({
      type: [MuteWindowRef],
      description: 'Recurring windows in which its firings are recorded as `silenced` (empty: none).',
      resolve: (a) => a.muteWindows ?? [],
    }),
    sendResolved: t.boolean({
      description:
        'Whether a `resolved` notification goes to every target when an episode of its condition resolves (default false).',
      resolve: (a) => a.sendResolved ?? false,
    }),
    resolveTimeoutSeconds: t.int({
      description: `WATCHDOG_EVENT: seconds without a repeat of a condition's event after which its episode resolves, ${RESOLVE_TIMEOUT_RANGE.min} to ${RESOLVE_TIMEOUT_RANGE.max} (default ${DEFAULT_RESOLVE_TIMEOUT_SECONDS}).`,
      resolve: (a) => a.resolveTimeoutSeconds ?? DEFAULT_RESOLVE_TIMEOUT_SECONDS,
    }),
    grouping: t.field({
      type: GroupingRef,
      nullable: true,
      description:
        'WATCHDOG_EVENT: how its firings are gathered into groups; null (default): each firing notifies.',
      resolve: (a) => a.grouping ?? null,
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was created.',
      resolve: (a) => a.createdAt,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      description: 'When it was last changed.',
      resolve: (a) => a.updatedAt,
    }),
    lastTriggered: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last fired; null if never.',
      resolve: (a) => a.lastTriggered,
    }),
    triggerCount: t.exposeInt('triggerCount', { description: 'Times it fired.' }),
    owner: t.string({
      nullable: true,
      description: "Its owner's principal id, shown to admins for other owners' alerts; null otherwise.",
      resolve: (a, _args, ctx) => foreignOwner(a, ctx.viewer.principal.id),
    }),
  }),
});

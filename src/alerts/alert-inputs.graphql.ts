import { builder } from '../builder.ts';
import { WatchdogEventTypeEnum } from '../watchdogs/watchdog-events.graphql.ts';
import { EventSeverityEnum, WatchdogNameEnum } from '../watchdogs/watchdogs.graphql.ts';
import {
  DEFAULT_CHECK_INTERVAL_SECONDS,
  DEFAULT_COOLDOWN_SECONDS,
  DEFAULT_HYSTERESIS_PERCENT,
  DEFAULT_RESOLVE_TIMEOUT_SECONDS,
  DEFAULT_SMTP_PORT,
  MAX_COOLDOWN_SECONDS,
  MAX_LIST,
} from './alert.model.ts';
import { GroupingInput } from './alert-grouping.graphql.ts';
import { RESOLVE_TIMEOUT_RANGE } from './alert-grouping.wire.ts';
import {
  AlertDeliveryMethodEnum,
  AlertTriggerTypeEnum,
  PriceDirectionEnum,
  WebhookMethodEnum,
} from './alert-types.graphql.ts';
import { MuteWindowInput } from './mute-window.graphql.ts';

/**
 * An alert as GraphQL clients write it: the wire alert (alert-input.wire.ts) in camelCase. The
 * resolver turns it into the wire shape and the one zod schema checks it, so a rule and its message
 * (naming the snake_case field) are the same on every surface. No default is declared here for the
 * same reason: the schema applies them.
 *
 * Secrets (smtpPassword, botToken, authToken, signingSecret) are write-only. On update, a secret
 * left out keeps its stored value (no answer ever shows it, so a client cannot send it back), and
 * `null` removes it.
 */

const LIST = `at most ${MAX_LIST}; empty or absent: any`;
const SECRET_RULE = 'Write-only. On update: absent keeps the stored one, null removes it.';

const EventFilterInput = builder.inputType('AlertEventFilterInput', {
  description: 'Which watchdog events fire the alert: lists are AND-ed, values inside one list OR-ed.',
  fields: (t) => ({
    eventTypes: t.field({ type: [WatchdogEventTypeEnum], description: `Event types (${LIST}).` }),
    severities: t.field({ type: [EventSeverityEnum], description: `Severities (${LIST}).` }),
    assets: t.stringList({ description: `Symbols as watched, AAPL or BTC/USDT (${LIST}).` }),
    watchdogs: t.field({ type: [WatchdogNameEnum], description: `Emitting watchdogs (${LIST}).` }),
  }),
});

const TriggerInput = builder.inputType('AlertTriggerInput', {
  description:
    'What makes the alert fire. Give only the fields of its `type`; another type’s field is refused.',
  fields: (t) => ({
    type: t.field({ type: AlertTriggerTypeEnum, required: true, description: 'The kind of trigger.' }),
    eventFilter: t.field({
      type: EventFilterInput,
      description: 'WATCHDOG_EVENT: which events fire it (absent: every event).',
    }),
    symbol: t.string({
      description: 'PRICE_THRESHOLD, VOLUME_THRESHOLD: the symbol to watch (AAPL, BTC/USDT).',
    }),
    priceThreshold: t.float({
      description: "PRICE_THRESHOLD: a positive price, in the instrument's currency.",
    }),
    direction: t.field({
      type: PriceDirectionEnum,
      description: 'PRICE_THRESHOLD: which way the price must cross it (default ABOVE).',
    }),
    hysteresisPercent: t.float({
      description: `PRICE_THRESHOLD: percent of the threshold (0 to 50) the price must move back before it can fire again (default ${DEFAULT_HYSTERESIS_PERCENT}).`,
    }),
    volumeThreshold: t.float({ description: 'VOLUME_THRESHOLD: a positive volume, in units traded.' }),
    condition: t.string({
      description:
        'CUSTOM_CONDITION: an FK-DSL statement that is true when the alert should fire (up to 2000 characters).',
    }),
    checkIntervalSeconds: t.int({
      description: `CUSTOM_CONDITION: seconds between two checks, 60 to 86400 (default ${DEFAULT_CHECK_INTERVAL_SECONDS}).`,
    }),
  }),
});

const EmailConfigInput = builder.inputType('AlertEmailConfigInput', {
  description:
    'Email delivery. A field left out uses the server setting (SMTP_HOST, SMTP_PORT, SMTP_USER, ...).',
  fields: (t) => ({
    smtpHost: t.string({ description: 'SMTP server (absent: SMTP_HOST).' }),
    smtpPort: t.int({
      description: `SMTP port, 1 to 65535 (absent: ${DEFAULT_SMTP_PORT} with smtpHost, else SMTP_PORT).`,
    }),
    smtpUser: t.string({ description: 'SMTP login (absent: none, or SMTP_USER without smtpHost).' }),
    smtpPassword: t.string({ description: `SMTP password. ${SECRET_RULE}` }),
    useTls: t.boolean({
      description:
        'True (default): STARTTLS, or implicit TLS on port 465; false: plain SMTP (a local relay).',
    }),
    fromEmail: t.string({ description: 'Sender address (absent: SMTP_FROM_EMAIL).' }),
    toEmails: t.stringList({ required: true, description: `Recipients, 1 to ${MAX_LIST} addresses.` }),
  }),
});

const ChatConfigInput = builder.inputType('AlertChatConfigInput', {
  description: 'Chat delivery through the bot API.',
  fields: (t) => ({
    botToken: t.string({ description: `Bot token (absent on create: CHAT_BOT_TOKEN). ${SECRET_RULE}` }),
    chatIds: t.stringList({ required: true, description: `Chats to message, 1 to ${MAX_LIST}.` }),
  }),
});

const HeaderInput = builder.inputType('AlertHttpHeaderInput', {
  description: 'One custom HTTP header.',
  fields: (t) => ({
    name: t.string({
      required: true,
      description: 'Header name (a token; not Host, Content-*, Authorization, X-Vigil-*).',
    }),
    value: t.string({ required: true, description: 'Header value: one line, up to 1024 characters.' }),
  }),
});

const WebhookConfigInput = builder.inputType('AlertWebhookConfigInput', {
  description: 'Webhook delivery: a JSON body with the event sent to `url`.',
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'Target http(s) URL (private addresses are refused unless allowed).',
    }),
    method: t.field({ type: WebhookMethodEnum, description: 'HTTP method (default POST).' }),
    headers: t.field({
      type: [HeaderInput],
      description: `Custom headers, at most ${MAX_LIST}, each name once (case-insensitive).`,
    }),
    authToken: t.string({ description: `Sent as \`Authorization: Bearer <token>\`. ${SECRET_RULE}` }),
    signingSecret: t.string({ description: `Key that signs each body (HMAC-SHA256). ${SECRET_RULE}` }),
  }),
});

const SlackConfigInput = builder.inputType('AlertSlackConfigInput', {
  description: 'Slack delivery: a Block Kit message to an incoming webhook.',
  fields: (t) => ({
    webhookUrl: t.string({
      description: `Incoming webhook URL (https://hooks.slack.com/services/..., or a host ALERT_DELIVERY_ALLOWED_HOSTS lists), required unless one is stored. It carries a token. ${SECRET_RULE}`,
    }),
  }),
});

const DiscordConfigInput = builder.inputType('AlertDiscordConfigInput', {
  description: 'Discord delivery: an embed posted to a webhook.',
  fields: (t) => ({
    webhookUrl: t.string({
      description: `Webhook URL (https://discord.com/api/webhooks/..., or a host ALERT_DELIVERY_ALLOWED_HOSTS lists), required unless one is stored. It carries a token. ${SECRET_RULE}`,
    }),
  }),
});

const TeamsConfigInput = builder.inputType('AlertTeamsConfigInput', {
  description: 'Microsoft Teams delivery: an Adaptive Card posted to an incoming webhook or Workflows.',
  fields: (t) => ({
    webhookUrl: t.string({
      description: `Webhook URL (https://<name>.webhook.office.com/..., https://<name>.logic.azure.com/..., or a host ALERT_DELIVERY_ALLOWED_HOSTS lists), required unless one is stored. It carries a signature. ${SECRET_RULE}`,
    }),
  }),
});

const AlertmanagerConfigInput = builder.inputType('AlertAlertmanagerConfigInput', {
  description: "Alertmanager delivery: Alertmanager's webhook body (version 4) sent to `url`.",
  fields: (t) => ({
    url: t.string({
      required: true,
      description: 'Receiver http(s) URL (private addresses are refused unless allowed).',
    }),
  }),
});

const PagerDutyConfigInput = builder.inputType('AlertPagerDutyConfigInput', {
  description: 'PagerDuty delivery: an Events API v2 trigger.',
  fields: (t) => ({
    routingKey: t.string({
      description: `The integration's routing key (20-64 letters and digits), required unless one is stored. ${SECRET_RULE}`,
    }),
  }),
});

export const AlertInput = builder.inputType('AlertInput', {
  description:
    'A whole alert (create, or the full replacement on update). Secrets are write-only: on update, one left out keeps its stored value and null removes it.',
  fields: (t) => ({
    alertId: t.string({
      description:
        'Id chosen by the client: 1 to 64 letters, digits, _ . : - (starting with a letter or digit). Required on create; on update it may be left out, and must equal `id` if given.',
    }),
    name: t.string({ required: true, description: 'Name, 1 to 200 characters.' }),
    description: t.string({ description: 'What it is for, up to 2000 characters (default empty).' }),
    enabled: t.boolean({ description: 'False: it never fires (default true).' }),
    trigger: t.field({ type: TriggerInput, required: true, description: 'What makes it fire.' }),
    deliveryMethods: t.field({
      type: [AlertDeliveryMethodEnum],
      required: true,
      description: 'How it is delivered, each at most once; each needs its config.',
    }),
    emailConfig: t.field({ type: EmailConfigInput, description: 'Required with EMAIL.' }),
    chatConfig: t.field({ type: ChatConfigInput, description: 'Required with CHAT.' }),
    webhookConfig: t.field({ type: WebhookConfigInput, description: 'Required with WEBHOOK.' }),
    slackConfig: t.field({ type: SlackConfigInput, description: 'Required with SLACK.' }),
    discordConfig: t.field({ type: DiscordConfigInput, description: 'Required with DISCORD.' }),
    teamsConfig: t.field({ type: TeamsConfigInput, description: 'Required with TEAMS.' }),
    pagerdutyConfig: t.field({ type: PagerDutyConfigInput, description: 'Required with PAGERDUTY.' }),
    alertmanagerConfig: t.field({
      type: AlertmanagerConfigInput,
      description: 'Required with ALERTMANAGER.',
    }),
    cooldownSeconds: t.int({
      description: `Seconds after firing during which it does not fire again, 0 to ${MAX_COOLDOWN_SECONDS} (default ${DEFAULT_COOLDOWN_SECONDS}).`,
    }),
    muteWindows: t.field({
      type: [MuteWindowInput],
      description: 'Recurring windows in which its firings are silenced (absent: none).',
    }),
    sendResolved: t.boolean({
      description:
        'True: when an episode of its condition resolves, a `resolved` notification goes to every target (default false).',
    }),
    resolveTimeoutSeconds: t.int({
      description: `WATCHDOG_EVENT: seconds without a repeat of a condition's event after which its episode resolves, ${RESOLVE_TIMEOUT_RANGE.min} to ${RESOLVE_TIMEOUT_RANGE.max} (default ${DEFAULT_RESOLVE_TIMEOUT_SECONDS}).`,
    }),
    grouping: t.field({
      type: GroupingInput,
      description:
        'WATCHDOG_EVENT only (on another trigger INVALID_ARGUMENTS naming `grouping`): firings gathered into groups notified together. Absent or null (default): each firing notifies.',
    }),
  }),
});

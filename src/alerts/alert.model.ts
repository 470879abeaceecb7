/**
 * The alert as the alerts domain works with it: what makes it fire (its trigger), how it is
 * delivered (one typed configuration per method), and what the store keeps beside it. Every surface
 * reads and writes this model; the snake_case shapes clients and storage use are translated at the
 * edges (alert-input.wire.ts, alert-config.wire.ts, alerts.wire.ts).
 */
import type { EventType, Severity, WatchdogName } from '../watchdogs/watchdog-event.ts';
import type { MuteWindow } from './mute-window.ts';

export const DELIVERY_METHODS = [
  'email',
  'chat',
  'webhook',
  'slack',
  'discord',
  'teams',
  'alertmanager',
  'pagerduty',
] as const;
export type DeliveryMethod = (typeof DELIVERY_METHODS)[number];

export const TRIGGER_TYPES = [
  'watchdog_event',
  'price_threshold',
  'volume_threshold',
  'custom_condition',
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export const PRICE_DIRECTIONS = ['above', 'below'] as const;
export type PriceDirection = (typeof PRICE_DIRECTIONS)[number];

export const WEBHOOK_METHODS = ['POST', 'PUT'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

export const DEFAULT_COOLDOWN_SECONDS = 60;
export const MAX_COOLDOWN_SECONDS = 7 * 86_400;
export const DEFAULT_SMTP_PORT = 587;
/** Recipients, chat ids, headers, filter values: bounded so one alert cannot fan out without end. */
export const MAX_LIST = 50;
export const DEFAULT_HYSTERESIS_PERCENT = 0.5;
export const DEFAULT_CHECK_INTERVAL_SECONDS = 60;

/** Lists are AND-ed, the values of one list OR-ed; an empty list means any. */
export interface EventFilter {
  readonly eventTypes: readonly EventType[];
  readonly severities: readonly Severity[];
  /** Upper case. */
  readonly assets: readonly string[];
  readonly watchdogs: readonly WatchdogName[];
}

export interface WatchdogEventTrigger {
  readonly type: 'watchdog_event';
  readonly eventFilter: EventFilter;
}

export interface PriceThresholdTrigger {
  readonly type: 'price_threshold';
  /** Upper case. */
  readonly symbol: string;
  readonly priceThreshold: number;
  /** Fires when the price crosses the threshold in this direction. */
  readonly direction: PriceDirection;
  /** Re-arms once the price is back this far (percent of the threshold) on the other side. */
  readonly hysteresisPercent: number;
}

export interface VolumeThresholdTrigger {
  readonly type: 'volume_threshold';
  /** Upper case. */
  readonly symbol: string;
  readonly volumeThreshold: number;
}

export interface CustomConditionTrigger {
  readonly type: 'custom_condition';
  /** An FK-DSL SCAN statement that holds when it matches an instrument. */
  readonly condition: string;
  readonly checkIntervalSeconds: number;
}

export type ThresholdTrigger = PriceThresholdTrigger | VolumeThresholdTrigger;

export type AlertTrigger = WatchdogEventTrigger | ThresholdTrigger | CustomConditionTrigger;

/** A field left out uses the server's SMTP settings. */
export interface EmailConfig {
  readonly smtpHost?: string;
  readonly smtpPort?: number;
  readonly smtpUser?: string;
  /** false: plain SMTP (a local relay); true: STARTTLS, or implicit TLS on port 465. */
  readonly useTls: boolean;
  readonly fromEmail?: string;
  readonly toEmails: readonly string[];
}

export interface ChatConfig {
  readonly chatIds: readonly string[];
}

export interface WebhookConfig {
  readonly url: string;
  readonly method: WebhookMethod;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * A Slack incoming webhook. Its URL is its credential (anyone holding it can post to the channel),
 * so it is a secret (`slackWebhookUrl`): this configuration holds nothing else.
 */
export type SlackConfig = Readonly<Record<string, never>>;

/** A Discord webhook: like Slack's, its URL is its credential (`discordWebhookUrl`). */
export type DiscordConfig = Readonly<Record<string, never>>;

/** A Microsoft Teams incoming webhook or Workflows URL: its signature is in it (`teamsWebhookUrl`). */
export type TeamsConfig = Readonly<Record<string, never>>;

/** PagerDuty Events API v2: the integration's routing key is a secret (`pagerdutyRoutingKey`). */
export type PagerDutyConfig = Readonly<Record<string, never>>;

/** A receiver of Alertmanager's webhook body (version 4): anything built for Alertmanager. */
export interface AlertmanagerConfig {
  readonly url: string;
}

/** The write-only values of an alert: written, used to deliver, never answered. */
export const SECRET_NAMES = [
  'smtpPassword',
  'botToken',
  'authToken',
  'signingSecret',
  'slackWebhookUrl',
  'discordWebhookUrl',
  'teamsWebhookUrl',
  'pagerdutyRoutingKey',
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];
export type AlertSecrets = { readonly [K in SecretName]?: string };

/** The method whose configuration holds each secret (a secret goes when its configuration goes). */
export const SECRET_METHOD: Readonly<Record<SecretName, DeliveryMethod>> = {
  smtpPassword: 'email',
  botToken: 'chat',
  authToken: 'webhook',
  signingSecret: 'webhook',
  slackWebhookUrl: 'slack',
  discordWebhookUrl: 'discord',
  teamsWebhookUrl: 'teams',
  pagerdutyRoutingKey: 'pagerduty',
};

/**
 * A secret as written: a value sets it, `null` removes it, and a secret left out (absent) keeps the
 * stored one while its configuration remains (no answer shows it, so a client cannot send it back).
 */
export type SecretChanges = { readonly [K in SecretName]?: string | null };

/** The configuration of each method; null when none is given. */
export interface DeliveryConfigs {
  readonly email: EmailConfig | null;
  readonly chat: ChatConfig | null;
  readonly webhook: WebhookConfig | null;
  readonly slack: SlackConfig | null;
  readonly discord: DiscordConfig | null;
  readonly teams: TeamsConfig | null;
  readonly alertmanager: AlertmanagerConfig | null;
  readonly pagerduty: PagerDutyConfig | null;
}

/** An alert as a client writes it (create, or the whole alert on replace). */
export interface AlertDefinition extends DeliveryConfigs {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly trigger: AlertTrigger;
  readonly deliveryMethods: readonly DeliveryMethod[];
  readonly cooldownSeconds: number;
  /** Recurring windows in which its firings are silenced (mute-window.ts); absent: none. */
  readonly muteWindows?: readonly MuteWindow[];
  /** Whether a `resolved` notification is sent when an episode of its condition ends (episode.model.ts); absent: false. */
  readonly sendResolved?: boolean;
  /** Watchdog-event conditions: seconds without a repeat after which an episode resolves; absent: 300. */
  readonly resolveTimeoutSeconds?: number;
  /** Watchdog-event alerts: firings grouped into one notification per group (group.model.ts); absent or null: each firing notifies. */
  readonly grouping?: AlertGrouping | null;
  readonly secrets: SecretChanges;
}

/** Secrets as stored: which are set (answers say so), and the sealed values (see secrets.ts). */
export interface StoredSecrets {
  readonly names: readonly SecretName[];
  readonly sealed: string | null;
}

/** An alert as stored, owned by the principal that created it. */
export interface Alert extends DeliveryConfigs {
  readonly owner: string;
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly trigger: AlertTrigger;
  readonly deliveryMethods: readonly DeliveryMethod[];
  readonly cooldownSeconds: number;
  /** Recurring windows in which its firings are silenced (mute-window.ts); absent: none. */
  readonly muteWindows?: readonly MuteWindow[];
  /** Whether a `resolved` notification is sent when an episode of its condition ends (episode.model.ts); absent: false. */
  readonly sendResolved?: boolean;
  /** Watchdog-event conditions: seconds without a repeat after which an episode resolves; absent: 300. */
  readonly resolveTimeoutSeconds?: number;
  /** Watchdog-event alerts: firings grouped into one notification per group (group.model.ts); absent or null: each firing notifies. */
  readonly grouping?: AlertGrouping | null;
  readonly secrets: StoredSecrets;
  /** Threshold and condition triggers: whether the condition must clear before it can fire again. */
  readonly armed: boolean;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** The cooldown's clock. */
  readonly lastTriggered: Date | null;
  readonly triggerCount: number;
}

export function hasSecret(alert: Alert, name: SecretName): boolean {
  return alert.secrets.names.includes(name);
}

/** What a group of firings is keyed by (Alertmanager's `group_by`): the event's watchdog, asset, type. */
export const GROUP_LABELS = ['watchdog', 'asset', 'event_type'] as const;
export type GroupLabel = (typeof GROUP_LABELS)[number];

/**
 * Grouping as Alertmanager does it: a new group waits `groupWaitSeconds` and sends one notification
 * listing its events; new events then notify at most once per `groupIntervalSeconds`; a group still
 * unresolved is notified again after `repeatIntervalSeconds` without news.
 */
export interface AlertGrouping {
  /** Empty: one group for every firing of the alert. */
  readonly groupBy: readonly GroupLabel[];
  readonly groupWaitSeconds: number;
  readonly groupIntervalSeconds: number;
  readonly repeatIntervalSeconds: number;
}

/** Alertmanager's defaults. */
export const GROUPING_DEFAULTS = {
  groupWaitSeconds: 30,
  groupIntervalSeconds: 300,
  repeatIntervalSeconds: 4 * 3600,
} as const;

/** Alertmanager's `resolve_timeout`: a watchdog-event condition not repeated for this long has resolved. */
export const DEFAULT_RESOLVE_TIMEOUT_SECONDS = 300;

/** An alert is addressed by its owner and the id its owner chose. */
export interface AlertKey {
  readonly owner: string;
  readonly id: string;
}

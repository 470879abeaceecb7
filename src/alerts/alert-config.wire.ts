/**
 * An alert's trigger and delivery configurations in the compatibility spelling (snake_case), and
 * the model each one is. Clients write this shape (alert-input.wire.ts checks it) and the store
 * keeps it as written, minus the secrets (the `config` column of alerts.sql.ts), so stored alerts
 * read back exactly as they were stored.
 */
import type { EventType, Severity, WatchdogName } from '../watchdogs/watchdog-event.ts';
import {
  type AlertGrouping,
  type AlertmanagerConfig,
  type AlertTrigger,
  type ChatConfig,
  DEFAULT_RESOLVE_TIMEOUT_SECONDS,
  type DeliveryConfigs,
  type DiscordConfig,
  type EmailConfig,
  type PagerDutyConfig,
  type PriceDirection,
  type SlackConfig,
  type TeamsConfig,
  type WebhookConfig,
  type WebhookMethod,
} from './alert.model.ts';
import { type GroupingWire, groupingOfWire, groupingWire } from './alert-grouping.wire.ts';
import type { MuteWindow, Weekday } from './mute-window.ts';

export interface EventFilterWire {
  readonly event_types: readonly EventType[];
  readonly severities: readonly Severity[];
  readonly assets: readonly string[];
  readonly watchdogs: readonly WatchdogName[];
}

export type TriggerWire =
  | { readonly type: 'watchdog_event'; readonly event_filter: EventFilterWire }
  | {
      readonly type: 'price_threshold';
      readonly symbol: string;
      readonly price_threshold: number;
      readonly direction: PriceDirection;
      readonly hysteresis_percent: number;
    }
  | { readonly type: 'volume_threshold'; readonly symbol: string; readonly volume_threshold: number }
  | {
      readonly type: 'custom_condition';
      readonly condition: string;
      readonly check_interval_seconds: number;
    };

export interface EmailConfigWire {
  readonly smtp_host?: string | undefined;
  readonly smtp_port?: number | undefined;
  readonly smtp_user?: string | undefined;
  readonly use_tls: boolean;
  readonly from_email?: string | undefined;
  readonly to_emails: readonly string[];
}

export interface ChatConfigWire {
  readonly chat_ids: readonly string[];
}

export interface WebhookConfigWire {
  readonly url: string;
  readonly method: WebhookMethod;
  readonly headers: Readonly<Record<string, string>>;
}

export interface AlertmanagerConfigWire {
  readonly url: string;
}

/** Empty: the webhook URL is a secret (Slack's, Discord's and Teams' alike). */
export type SlackConfigWire = Readonly<Record<string, never>>;

/** What a client wrote, minus the secrets (kept sealed apart, see secrets.ts). */
export interface StoredAlertConfig {
  readonly trigger: TriggerWire;
  readonly email_config: EmailConfigWire | null;
  readonly chat_config: ChatConfigWire | null;
  readonly webhook_config: WebhookConfigWire | null;
  /** Absent on rows stored before Slack delivery existed. */
  readonly slack_config?: SlackConfigWire | null;
  /** Absent on rows stored before Discord delivery existed. */
  readonly discord_config?: SlackConfigWire | null;
  /** Absent on rows stored before Teams delivery existed. */
  readonly teams_config?: SlackConfigWire | null;
  /** Absent on rows stored before PagerDuty delivery existed. */
  readonly pagerduty_config?: SlackConfigWire | null;
  /** Absent on rows stored before Alertmanager delivery existed. */
  readonly alertmanager_config?: AlertmanagerConfigWire | null;
  /** Absent on rows stored before mute windows existed (and when there are none). */
  readonly mute_windows?: MuteWindowWire[];
  /** Absent on rows stored before resolved notifications existed (and when false). */
  readonly send_resolved?: boolean;
  /** Absent on rows stored before episodes existed (and when it is the default). */
  readonly resolve_timeout_seconds?: number;
  /** Absent on rows stored before grouping existed (and when there is none). */
  readonly grouping?: GroupingWire | null;
}

/** What an alert keeps beside its trigger and delivery configurations. */
export interface AlertSettings {
  readonly muteWindows: readonly MuteWindow[];
  readonly sendResolved: boolean;
  readonly resolveTimeoutSeconds: number;
  readonly grouping: AlertGrouping | null;
}

export interface MuteWindowWire {
  readonly days: Weekday[];
  readonly start: string;
  readonly end: string;
  readonly time_zone: string;
}

export function muteWindowWire(w: MuteWindow): MuteWindowWire {
  return { days: [...w.days], start: w.start, end: w.end, time_zone: w.timeZone };
}

export function muteWindowOfWire(w: MuteWindowWire): MuteWindow {
  return { days: w.days, start: w.start, end: w.end, timeZone: w.time_zone };
}

/** The mute windows of a stored alert (none on rows stored before they existed). */
export function muteWindowsOfStored(stored: StoredAlertConfig): MuteWindow[] {
  return (stored.mute_windows ?? []).map(muteWindowOfWire);
}

/** A stored alert's settings; one stored before a setting existed reads back with its default. */
export function settingsOfStored(stored: StoredAlertConfig): AlertSettings {
  return {
    muteWindows: muteWindowsOfStored(stored),
    sendResolved: stored.send_resolved ?? false,
    resolveTimeoutSeconds: stored.resolve_timeout_seconds ?? DEFAULT_RESOLVE_TIMEOUT_SECONDS,
    grouping: stored.grouping ? groupingOfWire(stored.grouping) : null,
  };
}

/** Settings as a definition carries them: one left out takes its default. */
type WrittenSettings = { readonly [K in keyof AlertSettings]?: AlertSettings[K] | undefined };

/** Only the settings that differ from their defaults are written, so a row says what was chosen. */
function storedSettings(settings: WrittenSettings) {
  const { muteWindows = [], sendResolved = false, grouping = null } = settings;
  const resolveTimeout = settings.resolveTimeoutSeconds ?? DEFAULT_RESOLVE_TIMEOUT_SECONDS;
  return {
    ...(muteWindows.length > 0 ? { mute_windows: muteWindows.map(muteWindowWire) } : {}),
    ...(sendResolved ? { send_resolved: true } : {}),
    ...(resolveTimeout !== DEFAULT_RESOLVE_TIMEOUT_SECONDS
      ? { resolve_timeout_seconds: resolveTimeout }
      : {}),
    ...(grouping ? { grouping: groupingWire(grouping) } : {}),
  };
}

export function triggerOfWire(trigger: TriggerWire): AlertTrigger {
  switch (trigger.type) {
    case 'watchdog_event': {
      const filter = trigger.event_filter;
      return {
        type: 'watchdog_event',
        eventFilter: {
          eventTypes: filter.event_types,
          severities: filter.severities,
          assets: filter.assets,
          watchdogs: filter.watchdogs,
        },
      };
    }
    case 'price_threshold':
      return {
        type: 'price_threshold',
        symbol: trigger.symbol,
        priceThreshold: trigger.price_threshold,
        direction: trigger.direction,
        hysteresisPercent: trigger.hysteresis_percent,
      };
    case 'volume_threshold':
      return { type: 'volume_threshold', symbol: trigger.symbol, volumeThreshold: trigger.volume_threshold };
    case 'custom_condition':
      return {
        type: 'custom_condition',
        condition: trigger.condition,
        checkIntervalSeconds: trigger.check_interval_seconds,
      };
  }
}

export function triggerWire(trigger: AlertTrigger): TriggerWire {
  switch (trigger.type) {
    case 'watchdog_event': {
      const filter = trigger.eventFilter;
      return {
        type: 'watchdog_event',
        event_filter: {
          event_types: filter.eventTypes,
          severities: filter.severities,
          assets: filter.assets,
          watchdogs: filter.watchdogs,
        },
      };
    }
    case 'price_threshold':
      return {
        type: 'price_threshold',
        symbol: trigger.symbol,
        price_threshold: trigger.priceThreshold,
        direction: trigger.direction,
        hysteresis_percent: trigger.hysteresisPercent,
      };
    case 'volume_threshold':
      return { type: 'volume_threshold', symbol: trigger.symbol, volume_threshold: trigger.volumeThreshold };
    case 'custom_condition':
      return {
        type: 'custom_condition',
        condition: trigger.condition,
        check_interval_seconds: trigger.checkIntervalSeconds,
      };
  }
}

/** The optional settings appear only when given, as they were written. */
export function emailOfWire(config: EmailConfigWire): EmailConfig {
  return {
    ...(config.smtp_host !== undefined ? { smtpHost: config.smtp_host } : {}),
    ...(config.smtp_port !== undefined ? { smtpPort: config.smtp_port } : {}),
    ...(config.smtp_user !== undefined ? { smtpUser: config.smtp_user } : {}),
    useTls: config.use_tls,
    ...(config.from_email !== undefined ? { fromEmail: config.from_email } : {}),
    toEmails: config.to_emails,
  };
}

export function emailWire(config: EmailConfig): EmailConfigWire {
  return {
    ...(config.smtpHost !== undefined ? { smtp_host: config.smtpHost } : {}),
    ...(config.smtpPort !== undefined ? { smtp_port: config.smtpPort } : {}),
    ...(config.smtpUser !== undefined ? { smtp_user: config.smtpUser } : {}),
    use_tls: config.useTls,
    ...(config.fromEmail !== undefined ? { from_email: config.fromEmail } : {}),
    to_emails: config.toEmails,
  };
}

export function chatOfWire(config: ChatConfigWire): ChatConfig {
  return { chatIds: config.chat_ids };
}

export function chatWire(config: ChatConfig): ChatConfigWire {
  return { chat_ids: config.chatIds };
}

export function webhookOfWire(config: WebhookConfigWire): WebhookConfig {
  return { url: config.url, method: config.method, headers: config.headers };
}

export function webhookWire(config: WebhookConfig): WebhookConfigWire {
  return { url: config.url, method: config.method, headers: config.headers };
}

/** `configs` is an alert definition: its settings left out (undefined) are stored as their defaults. */
export function storedConfig(
  trigger: AlertTrigger,
  configs: DeliveryConfigs & WrittenSettings,
): StoredAlertConfig {
  return {
    ...storedSettings(configs),
    trigger: triggerWire(trigger),
    email_config: configs.email && emailWire(configs.email),
    chat_config: configs.chat && chatWire(configs.chat),
    webhook_config: configs.webhook && webhookWire(configs.webhook),
    slack_config: configs.slack && ({} satisfies SlackConfigWire),
    discord_config: configs.discord && ({} satisfies SlackConfigWire),
    teams_config: configs.teams && ({} satisfies SlackConfigWire),
    pagerduty_config: configs.pagerduty && ({} satisfies SlackConfigWire),
    alertmanager_config: configs.alertmanager && { url: configs.alertmanager.url },
  };
}

export function configOfStored(stored: StoredAlertConfig): DeliveryConfigs & { trigger: AlertTrigger } {
  return {
    trigger: triggerOfWire(stored.trigger),
    email: stored.email_config && emailOfWire(stored.email_config),
    chat: stored.chat_config && chatOfWire(stored.chat_config),
    webhook: stored.webhook_config && webhookOfWire(stored.webhook_config),
    slack: stored.slack_config ? ({} satisfies SlackConfig) : null,
    discord: stored.discord_config ? ({} satisfies DiscordConfig) : null,
    teams: stored.teams_config ? ({} satisfies TeamsConfig) : null,
    pagerduty: stored.pagerduty_config ? ({} satisfies PagerDutyConfig) : null,
    alertmanager: stored.alertmanager_config
      ? ({ url: stored.alertmanager_config.url } satisfies AlertmanagerConfig)
      : null,
  };
}

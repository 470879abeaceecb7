/**
 * The targets of an alert's methods: each chat id, each email recipient, the webhook URL. Each one
 * is a unit of delivery of its own (its own attempts, deadline, retry schedule and record), so a
 * slow or refusing target never holds up the others, and a retry never goes to a target that
 * already accepted. A firing stores one delivery per target (`deliveryUnitsSql` in
 * delivery.repository.ts says the same in SQL); a test-send sends to each.
 */
import type { Alert, DeliveryMethod } from '../alert.model.ts';

export interface DeliveryUnit {
  readonly method: DeliveryMethod;
  /** Null when the method has no configuration (its delivery fails, naming what is missing). */
  readonly target: string | null;
}

type Configured = Pick<
  Alert,
  | 'deliveryMethods'
  | 'email'
  | 'chat'
  | 'webhook'
  | 'slack'
  | 'discord'
  | 'teams'
  | 'alertmanager'
  | 'pagerduty'
>;

/**
 * The one target of a Slack configuration, as recorded: its URL is a secret and must not be stored
 * in clear with each delivery.
 */
export const SLACK_TARGET = 'slack webhook';
/** The same for Discord. */
export const DISCORD_TARGET = 'discord webhook';
/** The same for Teams. */
export const TEAMS_TARGET = 'teams webhook';
/** The same for PagerDuty (its routing key is the secret). */
export const PAGERDUTY_TARGET = 'pagerduty events';

/** The targets of one method, each once. */
export function targetsOf(alert: Configured, method: DeliveryMethod): readonly string[] {
  switch (method) {
    case 'chat':
      return [...new Set(alert.chat?.chatIds ?? [])];
    case 'email':
      return [...new Set(alert.email?.toEmails ?? [])];
    case 'webhook':
      return alert.webhook ? [alert.webhook.url] : [];
    case 'slack':
      return alert.slack ? [SLACK_TARGET] : [];
    case 'discord':
      return alert.discord ? [DISCORD_TARGET] : [];
    case 'teams':
      return alert.teams ? [TEAMS_TARGET] : [];
    case 'pagerduty':
      return alert.pagerduty ? [PAGERDUTY_TARGET] : [];
    case 'alertmanager':
      return alert.alertmanager ? [alert.alertmanager.url] : [];
  }
}

/** One unit per target of each of the alert's methods (one with no target for a method without configuration). */
export function deliveryUnitsOf(alert: Configured): DeliveryUnit[] {
  return alert.deliveryMethods.flatMap((method): DeliveryUnit[] => {
    const targets = targetsOf(alert, method);
    return targets.length > 0 ? targets.map((target) => ({ method, target })) : [{ method, target: null }];
  });
}

/**
 * Where a delivery goes, as its fairness sees it (destination-health.ts pauses one that keeps
 * failing): a webhook's host and port; an SMTP server (the alert's own, or the server's); a chat
 * bot (the alert's own token, or the server's). A bot is its own destination because the bot API
 * limits each bot on its own: one owner's bot being throttled pauses no one else's.
 */
export function destinationOf(alert: Alert, method: DeliveryMethod, target: string | null): string {
  switch (method) {
    case 'webhook': {
      const url = target ?? alert.webhook?.url ?? '';
      try {
        return `webhook ${new URL(url).host}`;
      } catch {
        return 'webhook (no URL)';
      }
    }
    case 'email': {
      const host = alert.email?.smtpHost;
      return host === undefined
        ? 'smtp (server)'
        : `smtp ${host.toLowerCase()}:${alert.email?.smtpPort ?? ''}`;
    }
    case 'chat':
      return alert.secrets.names.includes('botToken')
        ? `chat ${alert.owner}/${alert.id}`
        : 'chat (server bot)';
    case 'slack':
      // Each incoming webhook is rate limited on its own (about one message a second).
      return `slack ${alert.owner}/${alert.id}`;
    case 'discord':
      // Discord limits each webhook on its own too (its rate-limit bucket is the webhook).
      return `discord ${alert.owner}/${alert.id}`;
    case 'teams':
      return `teams ${alert.owner}/${alert.id}`;
    case 'pagerduty':
      // PagerDuty limits each routing key on its own.
      return `pagerduty ${alert.owner}/${alert.id}`;
    case 'alertmanager': {
      const url = target ?? alert.alertmanager?.url ?? '';
      return URL.canParse(url) ? `webhook ${new URL(url).host}` : 'webhook (no URL)';
    }
  }
}

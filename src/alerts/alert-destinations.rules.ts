/**
 * What an alert's delivery settings must satisfy beyond the wire schema, judged against the
 * server's settings when the alert is written: settings that could never be delivered, or would
 * send a credential where it must not go, are refused with the field and the reason instead of
 * failing at every attempt. (The senders apply the same rules again; host names are checked when
 * delivering, since what they resolve to can change.)
 */
import type { AlertSecrets, DeliveryConfigs } from './alert.model.ts';
import type { FieldIssue } from './alerts.errors.ts';
import {
  DISCORD_HOOK,
  type HookService,
  hookUrlProblem,
  SLACK_HOOK,
  TEAMS_HOOK,
} from './delivery/hook-url.rules.ts';
import { literalHostRefusal } from './delivery/literal-host.ts';
import { loginIssue, NO_SMTP_SERVER, type SmtpServerSettings } from './delivery/smtp-credentials.rules.ts';
import { type AllowedHosts, NO_ALLOWED_HOSTS } from './delivery/ssrf.ts';

export interface DestinationSettings {
  /** ALERT_DELIVERY_ALLOWED_HOSTS, parsed. */
  readonly allowedHosts: AllowedHosts;
  /** SMTP_* and SMTP_PLAINTEXT_AUTH_HOSTS. */
  readonly smtp: SmtpServerSettings;
}

export const NO_DESTINATION_SETTINGS: DestinationSettings = {
  allowedHosts: NO_ALLOWED_HOSTS,
  smtp: NO_SMTP_SERVER,
};

/** Every problem of the alert's destinations and logins (`secrets`: the ones it will be stored with). */
export async function destinationIssues(
  configs: DeliveryConfigs,
  secrets: AlertSecrets,
  settings: DestinationSettings,
): Promise<FieldIssue[]> {
  const issues: FieldIssue[] = [];
  const { email, webhook, slack, discord, teams, alertmanager, pagerduty } = configs;
  const hook = (field: string, url: string | undefined, service: HookService) => {
    const problem = url === undefined ? 'is required' : hookUrlProblem(url, service, settings.allowedHosts);
    if (problem) issues.push({ field, message: problem });
  };
  if (slack) hook('slack_config.webhook_url', secrets.slackWebhookUrl, SLACK_HOOK);
  if (discord) hook('discord_config.webhook_url', secrets.discordWebhookUrl, DISCORD_HOOK);
  if (teams) hook('teams_config.webhook_url', secrets.teamsWebhookUrl, TEAMS_HOOK);
  if (pagerduty && secrets.pagerdutyRoutingKey === undefined)
    issues.push({ field: 'pagerduty_config.routing_key', message: 'is required' });
  if (alertmanager) {
    const refused = await literalHostRefusal(new URL(alertmanager.url).hostname, settings.allowedHosts);
    if (refused) issues.push({ field: 'alertmanager_config.url', message: `refused: ${refused}` });
  }
  if (webhook) {
    const refused = await literalHostRefusal(new URL(webhook.url).hostname, settings.allowedHosts);
    if (refused) issues.push({ field: 'webhook_config.url', message: `refused: ${refused}` });
  }
  if (email) {
    if (email.smtpHost !== undefined) {
      const refused = await literalHostRefusal(email.smtpHost, settings.allowedHosts);
      if (refused) issues.push({ field: 'email_config.smtp_host', message: `refused: ${refused}` });
    }
    const login = loginIssue(email, secrets.smtpPassword, settings.smtp);
    if (login) issues.push({ field: `email_config.${login.field}`, message: login.message });
  }
  return issues;
}

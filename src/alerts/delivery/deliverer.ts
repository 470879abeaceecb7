/**
 * From a stored alert and a delivery to the channel that sends it: the method's configuration, its
 * secrets (opened only here, for the attempt) and the server-wide defaults (SMTP_*, CHAT_*).
 */
import {
  type Alert,
  type AlertSecrets,
  type ChatConfig,
  DEFAULT_SMTP_PORT,
  type EmailConfig,
  type WebhookConfig,
} from '../alert.model.ts';
import { sendAlertmanager } from './alertmanager.ts';
import { sendChat } from './chat.ts';
import type { AttemptOutcome, AttemptRequest, Deliverer } from './delivery.model.ts';
import { sendDiscord } from './discord.ts';
import { sendEmail } from './email.ts';
import { sendPagerDuty } from './pagerduty.ts';
import { sendSlack } from './slack.ts';
import { loginFields, type SmtpServerSettings, smtpLoginOf } from './smtp-credentials.rules.ts';
import { DISCORD_TARGET, PAGERDUTY_TARGET, SLACK_TARGET, TEAMS_TARGET } from './targets.ts';
import { sendTeams } from './teams.ts';
import type { ChatTarget, DeliveryContext, EmailOptions, EmailTarget, WebhookTarget } from './types.ts';
import { sendWebhook } from './webhook.ts';

export interface SmtpDefaults extends SmtpServerSettings {
  readonly fromEmail: string | undefined;
}

export interface ChatDefaults {
  readonly botToken: string | undefined;
  readonly apiBaseUrl: string;
}

export interface DelivererSettings {
  readonly smtp: SmtpDefaults;
  readonly chat: ChatDefaults;
  /** PAGERDUTY_EVENTS_URL. */
  readonly pagerdutyEventsUrl: string;
  readonly options: EmailOptions;
}

/** Opens an alert's sealed secrets (AlertService.secretsOf). */
export type SecretsOpener = (alert: Alert) => AlertSecrets;

/** A channel's target, or why the alert cannot be delivered by it (a missing setting). */
type Resolved<T> = { readonly target: T } | { readonly missing: string };

const unconfigured = (error: string): AttemptOutcome => ({
  status: 'failed',
  responseCode: null,
  latencyMs: 0,
  error,
});

export function createDeliverer(openSecrets: SecretsOpener, settings: DelivererSettings): Deliverer {
  return async (request: AttemptRequest) => {
    const secrets = openSecrets(request.alert);
    const controller = new AbortController();
    // The channels bound each exchange; this bounds the attempt, a little later. An email may first
    // wait up to one timeout for a free connection to its server (smtp-pools.ts).
    const exchanges = request.method === 'email' ? 2 : 1;
    const timer = setTimeout(() => controller.abort(), exchanges * settings.options.timeoutMs + 1_000);
    const stop = () => controller.abort();
    request.signal?.addEventListener('abort', stop, { once: true });
    try {
      return await send(request, secrets, settings, contextOf(request, controller.signal));
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', stop);
    }
  };
}

function contextOf(request: AttemptRequest, signal: AbortSignal): DeliveryContext {
  const { alert } = request;
  return {
    deliveryId: request.deliveryId,
    attempt: request.attempt,
    alert: { id: alert.id, name: alert.name, description: alert.description || null },
    event: request.event,
    now: new Date(),
    signal,
    test: request.test,
    notice: request.notice,
  };
}

async function send(
  request: AttemptRequest,
  secrets: AlertSecrets,
  settings: DelivererSettings,
  ctx: DeliveryContext,
): Promise<AttemptOutcome> {
  const { alert } = request;
  switch (request.method) {
    case 'email': {
      const email = emailTarget(alert.email, secrets, settings.smtp);
      if ('missing' in email) return unconfigured(email.missing);
      const to = ownTargets(request, email.target.toEmails);
      return 'missing' in to
        ? unconfigured(to.missing)
        : sendEmail({ ...email.target, toEmails: to.targets }, ctx, settings.options);
    }
    case 'chat': {
      const chat = chatTarget(alert.chat, secrets, settings.chat);
      if ('missing' in chat) return unconfigured(chat.missing);
      const to = ownTargets(request, chat.target.chatIds);
      return 'missing' in to
        ? unconfigured(to.missing)
        : sendChat({ ...chat.target, chatIds: to.targets }, ctx, settings.options);
    }
    case 'webhook': {
      const webhook = webhookTarget(alert.webhook, secrets);
      if ('missing' in webhook) return unconfigured(webhook.missing);
      const to = ownTargets(request, [webhook.target.url]);
      return 'missing' in to ? unconfigured(to.missing) : sendWebhook(webhook.target, ctx, settings.options);
    }
    case 'slack': {
      if (!alert.slack) return unconfigured('the alert has no slack_config');
      const url = secrets.slackWebhookUrl;
      if (!url) return unconfigured('no Slack webhook URL: set slack_config.webhook_url');
      const to = ownTargets(request, [SLACK_TARGET]);
      return 'missing' in to ? unconfigured(to.missing) : sendSlack({ url }, ctx, settings.options);
    }
    case 'discord': {
      if (!alert.discord) return unconfigured('the alert has no discord_config');
      const url = secrets.discordWebhookUrl;
      if (!url) return unconfigured('no Discord webhook URL: set discord_config.webhook_url');
      const to = ownTargets(request, [DISCORD_TARGET]);
      return 'missing' in to ? unconfigured(to.missing) : sendDiscord({ url }, ctx, settings.options);
    }
    case 'teams': {
      if (!alert.teams) return unconfigured('the alert has no teams_config');
      const url = secrets.teamsWebhookUrl;
      if (!url) return unconfigured('no Teams webhook URL: set teams_config.webhook_url');
      const to = ownTargets(request, [TEAMS_TARGET]);
      return 'missing' in to ? unconfigured(to.missing) : sendTeams({ url }, ctx, settings.options);
    }
    case 'pagerduty': {
      if (!alert.pagerduty) return unconfigured('the alert has no pagerduty_config');
      const routingKey = secrets.pagerdutyRoutingKey;
      if (!routingKey) return unconfigured('no routing key: set pagerduty_config.routing_key');
      const to = ownTargets(request, [PAGERDUTY_TARGET]);
      const target = { eventsUrl: settings.pagerdutyEventsUrl, routingKey };
      return 'missing' in to ? unconfigured(to.missing) : sendPagerDuty(target, ctx, settings.options);
    }
    case 'alertmanager': {
      if (!alert.alertmanager) return unconfigured('the alert has no alertmanager_config');
      const to = ownTargets(request, [alert.alertmanager.url]);
      return 'missing' in to
        ? unconfigured(to.missing)
        : sendAlertmanager(alert.alertmanager, ctx, settings.options);
    }
  }
}

/**
 * What one delivery sends to: its own target, while the alert still has it (the alert may have been
 * changed since it fired: a removed recipient or a moved webhook gets nothing, least of all
 * credentials written for the new one); every target of the method for a delivery stored before
 * deliveries were per target.
 */
export function ownTargets(
  request: Pick<AttemptRequest, 'method' | 'target'>,
  current: readonly string[],
): { readonly targets: string[] } | { readonly missing: string } {
  if (request.target === null) return { targets: [...current] };
  if (current.includes(request.target)) return { targets: [request.target] };
  const what = {
    email: 'recipient',
    chat: 'chat id',
    webhook: 'webhook URL',
    slack: 'Slack webhook',
    discord: 'Discord webhook',
    teams: 'Teams webhook',
    pagerduty: 'PagerDuty integration',
    alertmanager: 'Alertmanager receiver URL',
  }[request.method];
  return {
    missing: `the ${what} is no longer one of the alert's targets (the alert changed after it fired)`,
  };
}

/**
 * The alert's own SMTP server, or the server's (SMTP_*). The server's login is used only with the
 * server's host: it is never sent to a host an alert's owner chose.
 */
export function emailTarget(
  config: EmailConfig | null,
  secrets: AlertSecrets,
  smtp: SmtpDefaults,
): Resolved<EmailTarget> {
  if (!config) return { missing: 'the alert has no email_config' };
  const host = config.smtpHost ?? smtp.host;
  const fromEmail = config.fromEmail ?? smtp.fromEmail;
  if (!host) return { missing: 'no SMTP host: set email_config.smtp_host or SMTP_HOST' };
  if (!fromEmail) return { missing: 'no sender: set email_config.from_email or SMTP_FROM_EMAIL' };
  const ownHost = config.smtpHost !== undefined;
  return {
    target: {
      smtpHost: host,
      smtpPort: config.smtpPort ?? (ownHost ? DEFAULT_SMTP_PORT : smtp.port),
      // The server's login only on the server's own connection (smtp-credentials.rules.ts).
      ...loginFields(smtpLoginOf(config, secrets.smtpPassword, smtp), smtp),
      useTls: config.useTls,
      fromEmail,
      toEmails: [...config.toEmails],
    },
  };
}

export function chatTarget(
  config: ChatConfig | null,
  secrets: AlertSecrets,
  chat: ChatDefaults,
): Resolved<ChatTarget> {
  if (!config) return { missing: 'the alert has no chat_config' };
  const botToken = secrets.botToken ?? chat.botToken;
  if (!botToken) return { missing: 'no bot token: set chat_config.bot_token or CHAT_BOT_TOKEN' };
  return { target: { botToken, chatIds: [...config.chatIds], apiBaseUrl: chat.apiBaseUrl } };
}

export function webhookTarget(config: WebhookConfig | null, secrets: AlertSecrets): Resolved<WebhookTarget> {
  if (!config) return { missing: 'the alert has no webhook_config' };
  return {
    target: {
      url: config.url,
      method: config.method,
      headers: { ...config.headers },
      ...(secrets.authToken ? { authToken: secrets.authToken } : {}),
      ...(secrets.signingSecret ? { signingSecret: secrets.signingSecret } : {}),
    },
  };
}

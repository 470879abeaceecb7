/**
 * From a stored alert and a delivery to the adapter that sends it: the method's settings, its
 * secrets (opened only here, for the attempt) and the server-wide defaults (SMTP_*, CHAT_*).
 */
import type { AlertService } from './alert.service.ts';
import { sendChat } from './delivery/chat.ts';
import { sendEmail } from './delivery/email.ts';
import type { DeliveryContext, DeliveryEvent, DeliveryOptions } from './delivery/types.ts';
import { sendWebhook } from './delivery/webhook.ts';
import type { AttemptOutcome, AttemptRequest, Deliverer } from './delivery.runner.ts';

export interface DelivererSettings {
  readonly smtp: {
    readonly host: string | undefined;
    readonly port: number;
    readonly user: string | undefined;
    readonly password: string | undefined;
    readonly fromEmail: string | undefined;
  };
  readonly chat: { readonly botToken: string | undefined; readonly apiBaseUrl: string };
  readonly options: DeliveryOptions;
}

const unconfigured = (error: string): AttemptOutcome => ({
  status: 'failed',
  responseCode: null,
  latencyMs: 0,
  error,
});

export function createDeliverer(store: AlertService, settings: DelivererSettings): Deliverer {
  return async (request: AttemptRequest) => {
    const { alert } = request;
    const secrets = store.secretsOf(alert);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), settings.options.timeoutMs + 1_000);
    const stop = () => controller.abort();
    request.signal?.addEventListener('abort', stop, { once: true });
    const ctx: DeliveryContext = {
      deliveryId: request.deliveryId,
      attempt: request.attempt,
      alert: { id: alert.id, name: alert.name, description: alert.description || null },
      event: request.event as unknown as DeliveryEvent,
      now: new Date(),
      signal: controller.signal,
      test: request.test,
    };
    try {
      switch (request.method) {
        case 'email': {
          const c = alert.config.email_config as Record<string, unknown> | null;
          if (!c) return unconfigured('the alert has no email_config');
          const host = (c.smtp_host as string | undefined) ?? settings.smtp.host;
          const fromEmail = (c.from_email as string | undefined) ?? settings.smtp.fromEmail;
          if (!host) return unconfigured('no SMTP host: set email_config.smtp_host or SMTP_HOST');
          if (!fromEmail) return unconfigured('no sender: set email_config.from_email or SMTP_FROM_EMAIL');
          const ownHost = c.smtp_host !== undefined;
          const user = (c.smtp_user as string | undefined) ?? (ownHost ? undefined : settings.smtp.user);
          const password = secrets.smtp_password ?? (ownHost ? undefined : settings.smtp.password);
          return await sendEmail(
            {
              smtpHost: host,
              smtpPort: (c.smtp_port as number | undefined) ?? (ownHost ? 587 : settings.smtp.port),
              ...(user ? { smtpUser: user } : {}),
              ...(password ? { smtpPassword: password } : {}),
              useTls: c.use_tls !== false,
              fromEmail,
              toEmails: c.to_emails as string[],
            },
            ctx,
            settings.options,
          );
        }
        case 'chat': {
          const c = alert.config.chat_config as Record<string, unknown> | null;
          if (!c) return unconfigured('the alert has no chat_config');
          const botToken = secrets.bot_token ?? settings.chat.botToken;
          if (!botToken) return unconfigured('no bot token: set chat_config.bot_token or CHAT_BOT_TOKEN');
          return await sendChat(
            { botToken, chatIds: c.chat_ids as string[], apiBaseUrl: settings.chat.apiBaseUrl },
            ctx,
            settings.options,
          );
        }
        case 'webhook': {
          const c = alert.config.webhook_config as Record<string, unknown> | null;
          if (!c) return unconfigured('the alert has no webhook_config');
          return await sendWebhook(
            {
              url: c.url as string,
              method: (c.method as 'POST' | 'PUT' | undefined) ?? 'POST',
              headers: (c.headers as Record<string, string> | undefined) ?? {},
              ...(secrets.auth_token ? { authToken: secrets.auth_token } : {}),
              ...(secrets.signing_secret ? { signingSecret: secrets.signing_secret } : {}),
            },
            ctx,
            settings.options,
          );
        }
      }
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', stop);
    }
  };
}

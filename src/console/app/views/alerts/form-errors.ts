/**
 * Errors on the alert form. Keys are the API's snake_case field paths (`webhook_config.url`), so the
 * API's answer lands on the field it names; a webhook header's is `webhook_config.headers.<row>`.
 */
import type { ApiError } from '../../api.ts';
import { type Errors, type FormState, list, type Secret } from './form-model.ts';
import { noiseChecks } from './noise-model.ts';

const ALERT_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

function whole(value: string): boolean {
  return value.trim() === '' || /^-?\d+$/.test(value.trim());
}

function numeric(value: string): boolean {
  return value.trim() === '' || Number.isFinite(Number(value));
}

function triggerChecks(s: FormState, e: Errors): void {
  if (s.triggerType === 'PRICE_THRESHOLD' || s.triggerType === 'VOLUME_THRESHOLD') {
    if (!s.symbol.trim()) e['trigger.symbol'] = 'Enter a symbol, such as BTC/USDT or AAPL.';
  }
  if (s.triggerType === 'PRICE_THRESHOLD') {
    if (!s.priceThreshold.trim()) e['trigger.price_threshold'] = 'Enter the price to watch for.';
    else if (!numeric(s.priceThreshold)) e['trigger.price_threshold'] = 'Must be a number.';
    if (!numeric(s.hysteresisPercent)) e['trigger.hysteresis_percent'] = 'Must be a number.';
  }
  if (s.triggerType === 'VOLUME_THRESHOLD') {
    if (!s.volumeThreshold.trim()) e['trigger.volume_threshold'] = 'Enter the volume to watch for.';
    else if (!numeric(s.volumeThreshold)) e['trigger.volume_threshold'] = 'Must be a number.';
  }
  if (s.triggerType === 'CUSTOM_CONDITION') {
    if (!s.condition.trim()) e['trigger.condition'] = 'Enter an FK-DSL SCAN statement.';
    if (!whole(s.checkIntervalSeconds))
      e['trigger.check_interval_seconds'] = 'Must be a whole number of seconds.';
  }
}

/** Whether a write-only secret will be there after saving (stored and kept, or typed). */
const present = (secret: Secret) => secret.value !== '' || (secret.stored && !secret.remove);

function deliveryChecks(s: FormState, e: Errors): void {
  if (!Object.values(s.methods).some(Boolean)) {
    e.delivery_methods = 'Choose at least one delivery method.';
  }
  if (s.methods.EMAIL) {
    if (list(s.toEmails).length === 0) e['email_config.to_emails'] = 'Enter at least one recipient.';
    if (!whole(s.smtpPort)) e['email_config.smtp_port'] = 'Must be a whole number.';
  }
  if (s.methods.CHAT && list(s.chatIds).length === 0)
    e['chat_config.chat_ids'] = 'Enter at least one chat id.';
  if (s.methods.WEBHOOK && !s.url.trim()) e['webhook_config.url'] = 'Enter the URL to send to.';
  s.headers.forEach((h, i) => {
    if (!h.name.trim() && h.value) e[`webhook_config.headers.${i}`] = 'Give the header a name.';
  });
  if (s.methods.SLACK && !present(s.slackUrl)) e['slack_config.webhook_url'] = 'Enter the webhook URL.';
  if (s.methods.DISCORD && !present(s.discordUrl)) e['discord_config.webhook_url'] = 'Enter the webhook URL.';
  if (s.methods.TEAMS && !present(s.teamsUrl)) e['teams_config.webhook_url'] = 'Enter the webhook URL.';
  if (s.methods.ALERTMANAGER && !s.alertmanagerUrl.trim())
    e['alertmanager_config.url'] = 'Enter the receiver URL.';
  if (s.methods.PAGERDUTY && !present(s.routingKey))
    e['pagerduty_config.routing_key'] = 'Enter the integration routing key.';
}

function muteWindowChecks(s: FormState, e: Errors): void {
  s.muteWindows.forEach((w, i) => {
    const key = `mute_windows.${i}`;
    if (!w.start.trim()) e[`${key}.start`] = 'Enter a start time (HH:MM).';
    if (!w.end.trim()) e[`${key}.end`] = 'Enter an end time (HH:MM).';
    if (!w.timeZone.trim()) e[`${key}.time_zone`] = 'Enter a time zone, such as America/New_York.';
  });
}

/** What can be told before asking the API; everything else is the API's to judge. */
export function clientErrors(s: FormState, creating: boolean): Errors {
  const e: Errors = {};
  if (creating && !s.alertId.trim()) e.alert_id = 'Enter an id for the alert.';
  else if (creating && !ALERT_ID.test(s.alertId.trim())) {
    e.alert_id = 'Use 1 to 64 letters, digits, _ . : - (starting with a letter or digit).';
  }
  if (!s.name.trim()) e.name = 'Enter a name.';
  triggerChecks(s, e);
  deliveryChecks(s, e);
  muteWindowChecks(s, e);
  noiseChecks(s, e);
  if (!whole(s.cooldownSeconds)) e.cooldown_seconds = 'Must be a whole number of seconds.';
  return e;
}

const snake = (path: string) => path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const LISTS = /^(.*\.(?:to_emails|chat_ids|event_types|severities|assets|watchdogs|days|group_by))\.(\d+)$/;
const CONFIG_LABEL: Record<string, string> = {
  email_config: 'Email',
  chat_config: 'Chat',
  webhook_config: 'Webhook',
  slack_config: 'Slack',
  discord_config: 'Discord',
  teams_config: 'Teams',
  alertmanager_config: 'Alertmanager',
  pagerduty_config: 'PagerDuty',
};

/** One API field path onto the form's key for it. */
function formKey(path: string, s: FormState): string {
  const listItem = LISTS.exec(path);
  if (listItem?.[1]) return listItem[1];
  if (path === 'trigger') return 'trigger.type';
  if (CONFIG_LABEL[path]) return 'delivery_methods';
  const header = /^webhook_config\.headers\.(.+)$/.exec(path)?.[1];
  if (header !== undefined) {
    if (/^\d+$/.test(header)) return `webhook_config.headers.${header}`;
    const row = s.headers.findIndex((h) => h.name.trim().toLowerCase() === header.toLowerCase());
    return row >= 0 ? `webhook_config.headers.${row}` : 'webhook_config.headers';
  }
  return path;
}

/** The typed text of list fields, to say which item of a list an error is about. */
function listItem(path: string, s: FormState): string | undefined {
  const match = LISTS.exec(path);
  if (!match?.[1] || !match[2]) return undefined;
  const typed: Record<string, string> = {
    'email_config.to_emails': s.toEmails,
    'chat_config.chat_ids': s.chatIds,
    'trigger.event_filter.assets': s.assets,
  };
  const source = typed[match[1]];
  return source === undefined ? undefined : list(source)[Number(match[2])];
}

/**
 * The API's errors by form key. GraphQL's own input coercion (a number out of Int's range) names
 * the variable path (`at "input.emailConfig.smtpPort"`) instead of a field: that is mapped too.
 */
export function serverErrors(error: ApiError, s: FormState): Errors {
  const out: Errors = {};
  for (const [path, message] of Object.entries(error.fields)) {
    const key = formKey(path, s);
    // A header's error names the header in its path, not in its message: say which one.
    const header = /^webhook_config\.headers\.(.*\D.*)$/.exec(path)?.[1];
    const item = listItem(path, s) ?? header;
    const text = CONFIG_LABEL[path]
      ? `${CONFIG_LABEL[path]} settings ${message}`
      : item !== undefined
        ? `"${item}" ${message}`
        : message;
    if (!out[key]) out[key] = text;
  }
  const coerced = /at "input\.([\w.]+)"; (.*)$/.exec(error.message);
  if (coerced?.[1] && coerced[2]) {
    const key = formKey(snake(coerced[1]).replace(/\.(\d+)(?=\.|$)/g, '.$1'), s);
    if (!out[key]) out[key] = coerced[2];
  }
  return out;
}

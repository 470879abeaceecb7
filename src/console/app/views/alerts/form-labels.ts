/** The alert form's fields by the names they go by on the form, keyed by the API's field paths. */

const LABELS: Record<string, string> = {
  alert_id: 'Alert id',
  name: 'Name',
  description: 'Description',
  enabled: 'Enabled',
  'trigger.type': 'Trigger',
  'trigger.symbol': 'Symbol',
  'trigger.price_threshold': 'Price threshold',
  'trigger.direction': 'Direction',
  'trigger.hysteresis_percent': 'Hysteresis',
  'trigger.volume_threshold': 'Volume threshold',
  'trigger.condition': 'FK-DSL condition',
  'trigger.check_interval_seconds': 'Check interval',
  'trigger.event_filter.event_types': 'Event types',
  'trigger.event_filter.severities': 'Severities',
  'trigger.event_filter.assets': 'Assets',
  'trigger.event_filter.watchdogs': 'Watchdogs',
  delivery_methods: 'Delivery',
  'email_config.to_emails': 'To emails',
  'email_config.smtp_host': 'SMTP host',
  'email_config.smtp_port': 'SMTP port',
  'email_config.smtp_user': 'SMTP user',
  'email_config.smtp_password': 'SMTP password',
  'email_config.use_tls': 'Use TLS',
  'email_config.from_email': 'From',
  'chat_config.chat_ids': 'Chat ids',
  'chat_config.bot_token': 'Bot token',
  'webhook_config.url': 'Webhook URL',
  'webhook_config.method': 'HTTP method',
  'webhook_config.headers': 'Headers',
  'webhook_config.auth_token': 'Auth token',
  'webhook_config.signing_secret': 'Signing secret',
  'slack_config.webhook_url': 'Slack webhook URL',
  'discord_config.webhook_url': 'Discord webhook URL',
  'teams_config.webhook_url': 'Teams webhook URL',
  'alertmanager_config.url': 'Alertmanager receiver URL',
  'pagerduty_config.routing_key': 'PagerDuty routing key',
  mute_windows: 'Mute windows',
  send_resolved: 'Send resolved',
  resolve_timeout_seconds: 'Resolve timeout',
  grouping: 'Grouping',
  'grouping.group_by': 'Group by',
  'grouping.group_wait_seconds': 'Group wait',
  'grouping.group_interval_seconds': 'Group interval',
  'grouping.repeat_interval_seconds': 'Repeat interval',
  cooldown_seconds: 'Cooldown',
};

const WINDOW_PARTS: Record<string, string> = {
  days: 'days',
  start: 'start',
  end: 'end',
  time_zone: 'time zone',
};

/** The name a field goes by on the form, for the summary's links to it. */
export function labelOf(key: string): string {
  const row = /^webhook_config\.headers\.(\d+)$/.exec(key)?.[1];
  if (row !== undefined) return `Header ${Number(row) + 1}`;
  const window = /^mute_windows\.(\d+)(?:\.(\w+))?$/.exec(key);
  if (window?.[1] !== undefined) {
    const part = window[2] ? WINDOW_PARTS[window[2]] : undefined;
    return `Mute window ${Number(window[1]) + 1}${part ? ` ${part}` : ''}`;
  }
  return LABELS[key] ?? key;
}

/** The alert as the API returns it, and the operations the alerts view runs (all public GraphQL). */

export type Method =
  | 'EMAIL'
  | 'CHAT'
  | 'WEBHOOK'
  | 'SLACK'
  | 'DISCORD'
  | 'TEAMS'
  | 'ALERTMANAGER'
  | 'PAGERDUTY';
export type TriggerType = 'WATCHDOG_EVENT' | 'PRICE_THRESHOLD' | 'VOLUME_THRESHOLD' | 'CUSTOM_CONDITION';
export type AttemptStatus = 'DELIVERED' | 'FAILED' | 'RETRY';

export const METHODS: readonly { id: Method; label: string }[] = [
  { id: 'EMAIL', label: 'Email' },
  { id: 'CHAT', label: 'Chat' },
  { id: 'WEBHOOK', label: 'Webhook' },
  { id: 'SLACK', label: 'Slack' },
  { id: 'DISCORD', label: 'Discord' },
  { id: 'TEAMS', label: 'Teams' },
  { id: 'ALERTMANAGER', label: 'Alertmanager' },
  { id: 'PAGERDUTY', label: 'PagerDuty' },
];

export const TRIGGER_TYPES: readonly { id: TriggerType; label: string }[] = [
  { id: 'WATCHDOG_EVENT', label: 'Watchdog event' },
  { id: 'PRICE_THRESHOLD', label: 'Price threshold' },
  { id: 'VOLUME_THRESHOLD', label: 'Volume threshold' },
  { id: 'CUSTOM_CONDITION', label: 'Custom condition' },
];

// The schema's enums (WatchdogEventType, EventSeverity, WatchdogName), offered as checkboxes.
export const EVENT_TYPES = [
  'CORRELATION_BREAK',
  'EARNINGS_ANOMALY',
  'EXCHANGE_OUTAGE',
  'FLASH_CRASH',
  'FUNDING_SPIKE',
  'LIQUIDITY_DROP',
  'PRICE_ANOMALY',
  'UNUSUAL_VOLUME',
  'WHALE_MOVEMENT',
] as const;
export const SEVERITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'] as const;
/** The labels a grouped alert's groups are keyed by (AlertGroupLabel), in the order a group key names them. */
export const GROUP_LABELS = ['WATCHDOG', 'ASSET', 'EVENT_TYPE'] as const;
export type GroupLabel = (typeof GROUP_LABELS)[number];
export const WEEKDAYS = ['MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT', 'SUN'] as const;
export const WATCHDOGS = [
  'CORRELATION_BREAKDOWN',
  'EARNINGS_ANOMALY',
  'EXCHANGE_OUTAGE',
  'FUNDING_RATE',
  'LIQUIDITY_DROP',
  'PRICE_ANOMALY',
  'UNUSUAL_VOLUME',
  'WHALE_MOVEMENT',
] as const;

/** An enum value in words: FLASH_CRASH -> "flash crash". */
export function words(value: string): string {
  return value.toLowerCase().replace(/_/g, ' ');
}

export interface Alert {
  alertId: string;
  name: string;
  description: string;
  enabled: boolean;
  owner: string | null;
  cooldownSeconds: number;
  lastTriggered: string | null;
  triggerCount: number;
  deliveryMethods: Method[];
  trigger: {
    type: TriggerType;
    eventFilter: { eventTypes: string[]; severities: string[]; assets: string[]; watchdogs: string[] } | null;
    symbol: string | null;
    priceThreshold: number | null;
    direction: 'ABOVE' | 'BELOW' | null;
    hysteresisPercent: number | null;
    volumeThreshold: number | null;
    condition: string | null;
    checkIntervalSeconds: number | null;
  };
  emailConfig: {
    toEmails: string[];
    smtpHost: string | null;
    smtpPort: number | null;
    smtpUser: string | null;
    useTls: boolean;
    fromEmail: string | null;
    hasPassword: boolean;
  } | null;
  chatConfig: { chatIds: string[]; hasBotToken: boolean } | null;
  webhookConfig: {
    url: string;
    method: 'POST' | 'PUT';
    headers: { name: string; value: string }[];
    hasAuthToken: boolean;
    hasSigningSecret: boolean;
  } | null;
  slackConfig: { hasWebhookUrl: boolean } | null;
  discordConfig: { hasWebhookUrl: boolean } | null;
  teamsConfig: { hasWebhookUrl: boolean } | null;
  alertmanagerConfig: { url: string } | null;
  pagerdutyConfig: { hasRoutingKey: boolean } | null;
  muteWindows: { days: string[]; start: string; end: string; timeZone: string }[];
  sendResolved: boolean;
  resolveTimeoutSeconds: number;
  grouping: {
    groupBy: GroupLabel[];
    groupWaitSeconds: number;
    groupIntervalSeconds: number;
    repeatIntervalSeconds: number;
  } | null;
}

const ALERT_FIELDS = `alertId name description enabled owner cooldownSeconds lastTriggered triggerCount deliveryMethods
  trigger { type eventFilter { eventTypes severities assets watchdogs } symbol priceThreshold direction
    hysteresisPercent volumeThreshold condition checkIntervalSeconds }
  emailConfig { toEmails smtpHost smtpPort smtpUser useTls fromEmail hasPassword }
  chatConfig { chatIds hasBotToken }
  webhookConfig { url method headers { name value } hasAuthToken hasSigningSecret }
  slackConfig { hasWebhookUrl } discordConfig { hasWebhookUrl } teamsConfig { hasWebhookUrl }
  alertmanagerConfig { url } pagerdutyConfig { hasRoutingKey }
  muteWindows { days start end timeZone }
  sendResolved resolveTimeoutSeconds
  grouping { groupBy groupWaitSeconds groupIntervalSeconds repeatIntervalSeconds }`;

export const ALERTS_QUERY = `{ alerts { ${ALERT_FIELDS} } }`;
export const CREATE_ALERT = `mutation($input: AlertInput!) { createAlert(input: $input) { ${ALERT_FIELDS} } }`;
export const UPDATE_ALERT = `mutation($id: String!, $input: AlertInput!) { updateAlert(id: $id, input: $input) { ${ALERT_FIELDS} } }`;
export const ENABLE_ALERT = 'mutation($id: String!) { enableAlert(id: $id) { alertId enabled } }';
export const DISABLE_ALERT = 'mutation($id: String!) { disableAlert(id: $id) { alertId enabled } }';
export const DELETE_ALERT = 'mutation($id: String!) { deleteAlert(id: $id) }';

export interface TestResult {
  deliveryId: string;
  method: Method;
  target: string | null;
  status: AttemptStatus;
  responseCode: number | null;
  latencyMs: number;
  error: string | null;
}
export interface TestSend {
  alertId: string;
  results: TestResult[];
}
export const TEST_ALERT = `mutation($id: String!) { testAlert(id: $id) {
  alertId results { deliveryId method target status responseCode latencyMs error } } }`;

export interface DeliveryAttempt {
  id: string;
  attempt: number;
  attemptedAt: string;
  method: Method;
  target: string | null;
  status: AttemptStatus;
  responseCode: number | null;
  latencyMs: number;
  error: string | null;
  event: { eventId: string; type: string; watchdog: string | null } | null;
}
export const DELIVERIES_QUERY = `query($id: String!, $limit: Int) { alertDeliveries(id: $id, limit: $limit) {
  id attempt attemptedAt method target status responseCode latencyMs error event { eventId type watchdog } } }`;

/** A trigger in one line, for the list. */
export function triggerSummary(trigger: Alert['trigger']): string {
  switch (trigger.type) {
    case 'WATCHDOG_EVENT': {
      const f = trigger.eventFilter;
      const parts = [
        f?.eventTypes.length ? f.eventTypes.map(words).join(' or ') : '',
        f?.severities.length ? `severity ${f.severities.map(words).join('/')}` : '',
        f?.assets.length ? `on ${f.assets.join(', ')}` : '',
        f?.watchdogs.length ? `from ${f.watchdogs.map(words).join(', ')}` : '',
      ].filter(Boolean);
      return `Watchdog event${parts.length ? `: ${parts.join(', ')}` : ': any'}`;
    }
    case 'PRICE_THRESHOLD':
      return `${trigger.symbol} price ${trigger.direction === 'BELOW' ? 'below' : 'above'} ${trigger.priceThreshold}`;
    case 'VOLUME_THRESHOLD':
      return `${trigger.symbol} volume over ${trigger.volumeThreshold}`;
    case 'CUSTOM_CONDITION':
      return `Condition every ${trigger.checkIntervalSeconds ?? 60} s: ${trigger.condition ?? ''}`;
  }
}

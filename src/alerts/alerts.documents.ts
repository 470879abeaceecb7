/**
 * The GraphQL operations the alert routes and tools run (through the operation runner, as the
 * caller), and the shapes of their data. Variables are named as the wire names them (`alert_id`,
 * `email_config`), so a tool's arguments are the REST body's fields; nested values are GraphQL input
 * objects. Enum values arrive in their GraphQL spelling (WATCHDOG_EVENT) and times as ISO strings;
 * alerts.wire.ts converts both ways.
 */

/** The fields the surfaces select of an `Alert` (AlertData; alertWire reads exactly these). */
export const ALERT_FIELDS =
  'alertId name description enabled ' +
  'trigger { type eventFilter { eventTypes severities assets watchdogs } symbol priceThreshold direction ' +
  'hysteresisPercent volumeThreshold condition checkIntervalSeconds } deliveryMethods ' +
  'emailConfig { smtpHost smtpPort smtpUser hasPassword useTls fromEmail toEmails } ' +
  'chatConfig { chatIds hasBotToken } ' +
  'webhookConfig { url method headers { name value } hasAuthToken hasSigningSecret } ' +
  'slackConfig { hasWebhookUrl } discordConfig { hasWebhookUrl } teamsConfig { hasWebhookUrl } ' +
  'alertmanagerConfig { url } pagerdutyConfig { hasRoutingKey } ' +
  'cooldownSeconds muteWindows { days start end timeZone } sendResolved resolveTimeoutSeconds ' +
  'grouping { groupBy groupWaitSeconds groupIntervalSeconds repeatIntervalSeconds } ' +
  'createdAt updatedAt lastTriggered triggerCount owner';

export const ATTEMPT_FIELDS =
  'deliveryId attempt method target event { eventId type watchdog } status responseCode latencyMs error attemptedAt';
export const TEST_FIELDS = 'alertId results { method target deliveryId status responseCode latencyMs error }';

export interface TriggerData {
  readonly type: string;
  readonly eventFilter: {
    readonly eventTypes: readonly string[];
    readonly severities: readonly string[];
    readonly assets: readonly string[];
    readonly watchdogs: readonly string[];
  } | null;
  readonly symbol: string | null;
  readonly priceThreshold: number | null;
  readonly direction: string | null;
  readonly hysteresisPercent: number | null;
  readonly volumeThreshold: number | null;
  readonly condition: string | null;
  readonly checkIntervalSeconds: number | null;
}

export interface AlertData {
  readonly alertId: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly trigger: TriggerData;
  readonly deliveryMethods: readonly string[];
  readonly emailConfig: {
    readonly smtpHost: string | null;
    readonly smtpPort: number | null;
    readonly smtpUser: string | null;
    readonly hasPassword: boolean;
    readonly useTls: boolean;
    readonly fromEmail: string | null;
    readonly toEmails: readonly string[];
  } | null;
  readonly chatConfig: { readonly chatIds: readonly string[]; readonly hasBotToken: boolean } | null;
  readonly webhookConfig: {
    readonly url: string;
    readonly method: string;
    readonly headers: ReadonlyArray<{ readonly name: string; readonly value: string }>;
    readonly hasAuthToken: boolean;
    readonly hasSigningSecret: boolean;
  } | null;
  readonly slackConfig: { readonly hasWebhookUrl: boolean } | null;
  readonly discordConfig: { readonly hasWebhookUrl: boolean } | null;
  readonly teamsConfig: { readonly hasWebhookUrl: boolean } | null;
  readonly alertmanagerConfig: { readonly url: string } | null;
  readonly pagerdutyConfig: { readonly hasRoutingKey: boolean } | null;
  readonly cooldownSeconds: number;
  readonly muteWindows: ReadonlyArray<{
    readonly days: readonly string[];
    readonly start: string;
    readonly end: string;
    readonly timeZone: string;
  }>;
  readonly sendResolved: boolean;
  readonly resolveTimeoutSeconds: number;
  readonly grouping: {
    readonly groupBy: readonly string[];
    readonly groupWaitSeconds: number;
    readonly groupIntervalSeconds: number;
    readonly repeatIntervalSeconds: number;
  } | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastTriggered: string | null;
  readonly triggerCount: number;
  readonly owner: string | null;
}

export interface AttemptData {
  readonly deliveryId: string;
  readonly attempt: number;
  readonly method: string;
  readonly target: string | null;
  readonly event: {
    readonly eventId: string;
    readonly type: string;
    readonly watchdog: string | null;
  } | null;
  readonly status: string;
  readonly responseCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly attemptedAt: string;
}

export interface TestSendData {
  readonly alertId: string;
  readonly results: ReadonlyArray<Omit<AttemptData, 'attempt' | 'attemptedAt' | 'event'>>;
}

/** The alert's fields as variables, each passed to its `AlertInput` field. */
const ALERT_VARIABLES =
  '$name: String!, $description: String, $enabled: Boolean, $trigger: AlertTriggerInput!, ' +
  '$delivery_methods: [AlertDeliveryMethod!]!, $email_config: AlertEmailConfigInput, ' +
  '$chat_config: AlertChatConfigInput, $webhook_config: AlertWebhookConfigInput, $slack_config: AlertSlackConfigInput, ' +
  '$discord_config: AlertDiscordConfigInput, $teams_config: AlertTeamsConfigInput, ' +
  '$alertmanager_config: AlertAlertmanagerConfigInput, $pagerduty_config: AlertPagerDutyConfigInput, ' +
  '$cooldown_seconds: Int, $mute_windows: [AlertMuteWindowInput!], ' +
  '$send_resolved: Boolean, $resolve_timeout_seconds: Int, $grouping: AlertGroupingInput';

const ALERT_INPUT =
  'name: $name, description: $description, enabled: $enabled, trigger: $trigger, ' +
  'deliveryMethods: $delivery_methods, emailConfig: $email_config, chatConfig: $chat_config, ' +
  'webhookConfig: $webhook_config, slackConfig: $slack_config, ' +
  'discordConfig: $discord_config, teamsConfig: $teams_config, ' +
  'alertmanagerConfig: $alertmanager_config, pagerdutyConfig: $pagerduty_config, cooldownSeconds: $cooldown_seconds, muteWindows: $mute_windows, ' +
  'sendResolved: $send_resolved, resolveTimeoutSeconds: $resolve_timeout_seconds, grouping: $grouping';

export const CREATE_ALERT = `mutation CreateAlert($alert_id: String!, ${ALERT_VARIABLES}) {
  createAlert(input: { alertId: $alert_id, ${ALERT_INPUT} }) { ${ALERT_FIELDS} }
}`;

/** Replaces the alert `alert_id` names (the tool's arguments cannot disagree about the id). */
export const UPDATE_ALERT = `mutation UpdateAlert($alert_id: String!, ${ALERT_VARIABLES}) {
  updateAlert(id: $alert_id, input: { ${ALERT_INPUT} }) { ${ALERT_FIELDS} }
}`;

/** PUT's: the path names the alert; a body naming another id is refused by the mutation (400). */
export const REPLACE_ALERT = `mutation ReplaceAlert($alert_id: String!, $body_alert_id: String, ${ALERT_VARIABLES}) {
  updateAlert(id: $alert_id, input: { alertId: $body_alert_id, ${ALERT_INPUT} }) { ${ALERT_FIELDS} }
}`;

export const LIST_ALERTS = `query ListAlerts($enabled_only: Boolean) {
  alerts(enabledOnly: $enabled_only) { ${ALERT_FIELDS} }
}`;

export const GET_ALERT = `query GetAlert($alert_id: String!) { alert(id: $alert_id) { ${ALERT_FIELDS} } }`;

export const DELETE_ALERT = 'mutation DeleteAlert($alert_id: String!) { deleteAlert(id: $alert_id) }';

export const ENABLE_ALERT = `mutation EnableAlert($alert_id: String!) { enableAlert(id: $alert_id) { ${ALERT_FIELDS} } }`;

export const DISABLE_ALERT = `mutation DisableAlert($alert_id: String!) { disableAlert(id: $alert_id) { ${ALERT_FIELDS} } }`;

export const TEST_ALERT = `mutation TestAlert($alert_id: String!) { testAlert(id: $alert_id) { ${TEST_FIELDS} } }`;

export const ALERT_DELIVERIES = `query AlertDeliveries($alert_id: String!, $limit: Int) {
  alertDeliveries(id: $alert_id, limit: $limit) { ${ATTEMPT_FIELDS} }
}`;

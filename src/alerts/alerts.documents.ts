/**
 * The GraphQL operations the alert routes and tools run (through the operation runner, as the
 * caller). Variables are named as the wire names them (`alert_id`, `email_config`), so a tool's
 * arguments are the REST body's fields; nested values are GraphQL input objects (alerts.wire.ts
 * converts them).
 */
import { ALERT_FIELDS, ATTEMPT_FIELDS, TEST_FIELDS } from './alerts.wire.ts';

/** The alert's fields as variables, each passed to its `AlertInput` field. */
const ALERT_VARIABLES =
  '$name: String!, $description: String, $enabled: Boolean, $trigger: AlertTriggerInput!, ' +
  '$delivery_methods: [AlertDeliveryMethod!]!, $email_config: AlertEmailConfigInput, ' +
  '$chat_config: AlertChatConfigInput, $webhook_config: AlertWebhookConfigInput, $cooldown_seconds: Int';

const ALERT_INPUT =
  'name: $name, description: $description, enabled: $enabled, trigger: $trigger, ' +
  'deliveryMethods: $delivery_methods, emailConfig: $email_config, chatConfig: $chat_config, ' +
  'webhookConfig: $webhook_config, cooldownSeconds: $cooldown_seconds';

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

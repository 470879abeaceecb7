import { defineModule } from '../platform/module.ts';
import * as alertDeliveriesGraphql from './alert-deliveries.graphql.ts';
import * as alertInputsGraphql from './alert-inputs.graphql.ts';
import * as alertRedeliveryGraphql from './alert-redelivery.graphql.ts';
import * as alertTypesGraphql from './alert-types.graphql.ts';
import type { AlertsDeps } from './alerts.deps.ts';
import * as alertsGraphql from './alerts.graphql.ts';
import { alertsRoutes } from './alerts.routes.ts';
import * as alertsTables from './alerts.sql.ts';
import { alertsTools } from './alerts.tools.ts';
import { DELIVERY_CONCURRENCY, deliverJob, evaluateJob } from './delivery/delivery.jobs.ts';
import { fireJob } from './firing.jobs.ts';
import * as firingTypesGraphql from './firing-types.graphql.ts';
import * as firingsGraphql from './firings.graphql.ts';
import { firingsRoutes } from './firings.routes.ts';
import { firingsTools } from './firings.tools.ts';
import { flushGroupJob } from './groups.jobs.ts';
import { priceAlertPrompt } from './price-alert.mcp.ts';
import * as silencesGraphql from './silences.graphql.ts';
import { silencesRoutes } from './silences.routes.ts';
import { silencesTools } from './silences.tools.ts';

/** What the alerts module needs from the app (the composition root wires these). */
/**
 * Alerts: rules on watchdog events (and price and volume thresholds), stored per owner, fired once
 * per event across instances with a cooldown, delivered by email, chat and webhook with retries and
 * a delivery record. Surfaces: GraphQL queries and mutations, the /api/alerts routes and the alert
 * tools (GraphQL documents run as the caller).
 */
export const alertsModule = defineModule<AlertsDeps>({
  name: 'alerts',
  graphql: [
    alertTypesGraphql,
    alertDeliveriesGraphql,
    alertInputsGraphql,
    alertsGraphql,
    alertRedeliveryGraphql,
    silencesGraphql,
    firingTypesGraphql,
    firingsGraphql,
  ],
  tables: [alertsTables],
  errors: {
    SECRETS_KEY_REQUIRED: {
      status: 503,
      description:
        'The alert holds a secret (a password or token) and the server has no SECRETS_KEY to seal it with (a Postgres server needs one; the embedded database generates its own).',
    },
    TOO_MANY_ALERTS: {
      status: 429,
      description:
        'The owner already has ALERTS_MAX_PER_OWNER alerts (`details.limit`, `details.setting`); delete one to create another.',
    },
    TOO_MANY_SILENCES: {
      status: 429,
      description:
        'The owner already has 100 silences that have not ended (`details.limit`); expire or delete one to create another.',
    },
    FIRING_NOT_FOUND: {
      status: 404,
      description:
        'The alert has no firing with this id (`details.firing`); another owner’s alert and its firings are never found.',
    },
    FIRING_HAS_NO_EPISODE: {
      status: 409,
      description:
        'The firing belongs to no episode (a test-send or a silenced firing): there is nothing to acknowledge or resolve.',
    },
    EPISODE_RESOLVED: {
      status: 409,
      description:
        'The firing’s episode has resolved and cannot be acknowledged; the next firing of its condition opens a new episode.',
    },
    SECRETS_UNREADABLE: {
      status: 500,
      description: "An alert's stored secrets cannot be opened with this SECRETS_KEY (the key was changed).",
    },
  },
  tools: [...alertsTools, ...silencesTools, ...firingsTools],
  prompts: [priceAlertPrompt],
  routes: [...alertsRoutes(), ...silencesRoutes(), ...firingsRoutes()],
  jobs: [
    {
      job: fireJob,
      handler: (deps) => (data) => deps.alerts.fireStoredEvent(data.eventId),
      // One short transaction each; a few at once (they contend for the same alert rows).
      work: { concurrency: 4, pollingIntervalSeconds: 1 },
    },
    {
      job: deliverJob,
      handler: (deps) => (data) => deps.alerts.runDelivery(data.deliveryId),
      // Deliveries mostly wait on the network: many at once, far more than cores (one fetch takes
      // a job for every free slot).
      work: { concurrency: DELIVERY_CONCURRENCY, pollingIntervalSeconds: 1 },
    },
    {
      job: flushGroupJob,
      handler: (deps) => (data) => deps.alerts.flushGroup(data.groupId),
      work: { concurrency: 2, pollingIntervalSeconds: 1 },
    },
    {
      job: evaluateJob,
      handler: (deps) => () => deps.alerts.evaluateScheduled(),
      cron: { expression: '* * * * *', data: {} },
    },
  ],
  start: (deps) => deps.alerts.start(),
  stop: (deps) => deps.alerts.stop(),
  release: (deps) => deps.alerts.release(),
});

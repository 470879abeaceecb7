import { builder } from '../builder.ts';
import { ValidationError } from '../platform/errors.ts';
import { DeliveryAttemptRef, TestSendRef } from './alert-deliveries.graphql.ts';
import { parseAlertInput } from './alert-input.wire.ts';
import { AlertInput } from './alert-inputs.graphql.ts';
import { AlertRef } from './alert-types.graphql.ts';
import { alertsDeps } from './alerts.deps.ts';
import { wireOfAlertInput } from './alerts.wire.ts';

/**
 * Alerts: queries and mutations, each as the caller's principal (an alert belongs to whoever
 * created it; anyone else's is NOT_FOUND, as an unknown id is). Inputs are turned into the wire
 * alert and read into the model by the one schema (alert-input.wire.ts): a bad field is
 * INVALID_ARGUMENTS with `details.issues` naming it in snake_case (`email_config.to_emails.0`).
 */

export const MAX_DELIVERY_LIMIT = 1_000;
export const DEFAULT_DELIVERY_LIMIT = 100;

builder.queryField('alerts', (t) =>
  t.field({
    type: [AlertRef],
    description:
      "The caller's alerts, oldest first (admins: every owner's, with `owner` set on other owners' alerts).",
    args: {
      enabledOnly: t.arg.boolean({
        defaultValue: false,
        description: 'True: only enabled alerts.',
      }),
    },
    resolve: (_root, { enabledOnly }, ctx) =>
      alertsDeps(ctx).alerts.store.list(ctx.viewer.principal, enabledOnly ?? false),
  }),
);

builder.queryField('alert', (t) =>
  t.field({
    type: AlertRef,
    description: 'One of the caller’s alerts; NOT_FOUND for an unknown id or anyone else’s.',
    args: { id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }) },
    resolve: (_root, { id }, ctx) => alertsDeps(ctx).alerts.store.get(ctx.viewer.principal, id),
  }),
);

builder.queryField('alertDeliveries', (t) =>
  t.field({
    type: [DeliveryAttemptRef],
    description:
      'The delivery record of one of the caller’s alerts: every attempt (tests too), newest first.',
    args: {
      id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }),
      limit: t.arg.int({
        defaultValue: DEFAULT_DELIVERY_LIMIT,
        description: `Attempts to return, 1 to ${MAX_DELIVERY_LIMIT}.`,
      }),
    },
    resolve: (_root, { id, limit }, ctx) => {
      const n = limit ?? DEFAULT_DELIVERY_LIMIT;
      if (n < 1 || n > MAX_DELIVERY_LIMIT)
        throw new ValidationError('limit', `must be 1 to ${MAX_DELIVERY_LIMIT}`);
      return alertsDeps(ctx).alerts.store.deliveries(ctx.viewer.principal, id, n);
    },
  }),
);

builder.mutationField('createAlert', (t) =>
  t.field({
    type: AlertRef,
    description:
      'Creates an alert owned by the caller. An `alertId` the caller already uses is BAD_USER_INPUT naming `alert_id`; an invalid field is INVALID_ARGUMENTS.',
    args: { input: t.arg({ type: AlertInput, required: true, description: 'The alert.' }) },
    resolve: (_root, { input }, ctx) =>
      alertsDeps(ctx).alerts.store.create(ctx.viewer.principal, parseAlertInput(wireOfAlertInput(input))),
  }),
);

builder.mutationField('updateAlert', (t) =>
  t.field({
    type: AlertRef,
    description:
      'Replaces an alert whole (fields left out take their defaults), keeping its counters. A secret left out keeps its stored value; null removes it. `input.alertId`, if given, must equal `id` (BAD_USER_INPUT naming `alert_id`).',
    args: {
      id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }),
      input: t.arg({ type: AlertInput, required: true, description: 'The whole alert.' }),
    },
    resolve: (_root, { id, input }, ctx) => {
      const wire = wireOfAlertInput(input);
      // Absent and null both mean "the id of the path", as a REST body without alert_id does.
      const definition = parseAlertInput({ ...wire, alert_id: wire.alert_id ?? id });
      return alertsDeps(ctx).alerts.store.replace(ctx.viewer.principal, id, definition);
    },
  }),
);

builder.mutationField('deleteAlert', (t) =>
  t.field({
    type: 'String',
    description: 'Deletes an alert and its firing and delivery records; returns its id.',
    args: { id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }) },
    resolve: async (_root, { id }, ctx) => {
      await alertsDeps(ctx).alerts.store.delete(ctx.viewer.principal, id);
      return id;
    },
  }),
);

for (const [field, enabled, description] of [
  ['enableAlert', true, 'Enables an alert: it fires again on matching events. Returns it.'],
  [
    'disableAlert',
    false,
    'Disables an alert: it does not fire until enabled (a test-send still works). Returns it.',
  ],
] as const) {
  builder.mutationField(field, (t) =>
    t.field({
      type: AlertRef,
      description,
      args: { id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }) },
      resolve: (_root, { id }, ctx) =>
        alertsDeps(ctx).alerts.store.setEnabled(ctx.viewer.principal, id, enabled),
    }),
  );
}

builder.mutationField('testAlert', (t) =>
  t.field({
    type: TestSendRef,
    description:
      'Sends a sample event through each of the alert’s methods now (even when it is disabled or cooling down) and answers with one result per target (each chat id, recipient and webhook); the attempts are recorded and not retried.',
    args: { id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }) },
    resolve: async (_root, { id }, ctx) => ({
      alertId: id,
      results: await alertsDeps(ctx).alerts.testSend(ctx.viewer.principal, id),
    }),
  }),
);

import { builder } from '../builder.ts';
import { AlertDeliveryMethodEnum } from './alert-types.graphql.ts';
import { alertsDeps } from './alerts.deps.ts';
import type { RedeliveredDelivery, Redelivery } from './delivery/redelivery.ts';

/** Redelivery of failed deliveries (delivery/redelivery.ts): the mutation and its answer. */

const RedeliveredRef = builder.objectRef<RedeliveredDelivery>('AlertRedeliveredDelivery').implement({
  description: 'A failed delivery a redelivery put back, or left as it was. Value object: not normalised.',
  fields: (t) => ({
    deliveryId: t.exposeString('deliveryId', {
      description: 'The delivery: the same id (and X-Vigil-Delivery header) as its earlier attempts.',
    }),
    method: t.field({
      type: AlertDeliveryMethodEnum,
      description: 'How it is sent.',
      resolve: (d) => d.method,
    }),
    target: t.exposeString('target', {
      nullable: true,
      description:
        'The chat id, email recipient or webhook URL; null on deliveries recorded before they were per target.',
    }),
    attempts: t.exposeInt('attempts', {
      description: 'Attempts it made before this redelivery; its next attempt is numbered one more.',
    }),
    skipped: t.exposeString('skipped', {
      nullable: true,
      description:
        'Why it was not put back (its target was removed from the alert since, or another request redelivered it); null when it was.',
    }),
  }),
});

const RedeliveryRef = builder.objectRef<Redelivery>('AlertRedelivery').implement({
  description: 'The answer of a redelivery. Value object: not normalised.',
  fields: (t) => ({
    alertId: t.exposeString('alertId', { description: 'The alert.' }),
    deliveries: t.field({
      type: [RedeliveredRef],
      description: 'The failed deliveries considered, oldest first: `skipped` null for those put back.',
      resolve: (r) => r.deliveries,
    }),
  }),
});

builder.mutationField('redeliverAlertDeliveries', (t) =>
  t.field({
    type: RedeliveryRef,
    description:
      'Puts failed deliveries of one of the caller’s alerts back in the queue: the one `deliveryId` names, or every failed one. Each keeps its id and earlier attempts and gets ALERT_DELIVERY_MAX_ATTEMPTS more, recorded as new attempts in `alertDeliveries`. A `deliveryId` that is not failed (delivered, still under way) or whose target was removed from the alert is BAD_USER_INPUT naming `delivery_id` and its status; an unknown one NOT_FOUND.',
    args: {
      id: t.arg.string({ required: true, description: 'The alert id (`alertId`).' }),
      deliveryId: t.arg.string({
        required: false,
        description: 'One delivery to redeliver; left out: every failed delivery of the alert.',
      }),
    },
    resolve: (_root, { id, deliveryId }, ctx) =>
      alertsDeps(ctx).alerts.redeliver(ctx.viewer.principal, id, deliveryId ?? undefined),
  }),
);

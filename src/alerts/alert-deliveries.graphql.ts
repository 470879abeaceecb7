import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { AlertDeliveryMethodEnum } from './alert-types.graphql.ts';
import type { AttemptStatus, DeliveryAttempt, TestSendResult } from './delivery/delivery.model.ts';

/** The delivery record of an alert and the answer of a test-send. */

const AttemptStatusEnum = builder.enumType('AlertAttemptStatus', {
  description: 'How one delivery attempt ended.',
  values: enumValues<AttemptStatus>({
    delivered: 'The receiver accepted it.',
    retry:
      'It failed in a way worth retrying (a timeout, a 5xx, a 429); another attempt follows unless this was the last.',
    failed: 'It failed for good (a 4xx, a refused address, a missing setting); no retry.',
  }),
});

export const DeliveryAttemptRef = builder.objectRef<DeliveryAttempt>('AlertDeliveryAttempt').implement({
  description:
    'One attempt to deliver an alert by one method (retries are further attempts of the same delivery).',
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: `deliveryId:attempt`.',
      resolve: (d) => `${d.deliveryId}:${d.attempt}`,
    }),
    deliveryId: t.exposeString('deliveryId', {
      description: 'The delivery (one per method per firing; the X-Vigil-Delivery header of webhooks).',
    }),
    attempt: t.exposeInt('attempt', { description: 'Attempt number, from 1.' }),
    method: t.field({
      type: AlertDeliveryMethodEnum,
      description: 'How it was sent.',
      resolve: (d) => d.method,
    }),
    status: t.field({ type: AttemptStatusEnum, description: 'How it ended.', resolve: (d) => d.status }),
    responseCode: t.exposeInt('responseCode', {
      nullable: true,
      description: 'HTTP status (webhook, chat) or SMTP reply code; null when no answer came.',
    }),
    latencyMs: t.exposeInt('latencyMs', { description: 'Time the attempt took, in milliseconds.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed; null when delivered.' }),
    attemptedAt: t.field({
      type: 'DateTime',
      description: 'When it started.',
      resolve: (d) => d.attemptedAt,
    }),
  }),
});

export const TestResultRef = builder.objectRef<TestSendResult>('AlertTestResult').implement({
  description:
    'The outcome of a test-send by one method (recorded, not retried). Value object: not normalised.',
  fields: (t) => ({
    method: t.field({
      type: AlertDeliveryMethodEnum,
      description: 'How it was sent.',
      resolve: (r) => r.method,
    }),
    deliveryId: t.exposeString('deliveryId', { description: 'Its delivery id (in alertDeliveries).' }),
    status: t.field({ type: AttemptStatusEnum, description: 'How it ended.', resolve: (r) => r.status }),
    responseCode: t.exposeInt('responseCode', {
      nullable: true,
      description: 'HTTP status or SMTP reply code; null when no answer came.',
    }),
    latencyMs: t.exposeInt('latencyMs', { description: 'Time it took, in milliseconds.' }),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed; null when delivered.' }),
  }),
});

export const TestSendRef = builder
  .objectRef<{ alertId: string; results: readonly TestSendResult[] }>('AlertTestSend')
  .implement({
    description: 'A test-send of an alert by each of its methods. Value object: not normalised.',
    fields: (t) => ({
      alertId: t.exposeString('alertId', { description: 'The alert tested.' }),
      results: t.field({
        type: [TestResultRef],
        description: 'One per delivery method.',
        resolve: (s) => s.results,
      }),
    }),
  });

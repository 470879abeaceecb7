import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { WatchdogNameEnum } from '../watchdogs/watchdogs.graphql.ts';
import { AlertDeliveryMethodEnum } from './alert-types.graphql.ts';
import type {
  AttemptStatus,
  DeliveredEvent,
  DeliveryAttempt,
  TestSendResult,
} from './delivery/delivery.model.ts';

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

const TARGET_DESCRIPTION =
  'Where it went: the chat id, the email recipient or the webhook URL (each target is a delivery of its own). Null on deliveries recorded before deliveries were per target, which went to every target of their method.';

const DeliveredEventRef = builder.objectRef<DeliveredEvent>('AlertDeliveredEvent').implement({
  description: 'The event a delivery carried. Value object: not normalised (it belongs to its delivery).',
  fields: (t) => ({
    eventId: t.exposeString('id', {
      description: 'The event id (`event.event_id` of the webhook body; a test-send’s starts with `test-`).',
    }),
    type: t.exposeString('type', {
      description:
        'The event type as the webhook body spells it: a watchdog event type (`flash_crash`, ...) or the alert’s own trigger (`price_threshold`, `volume_threshold`, `custom_condition`).',
    }),
    watchdog: t.field({
      type: WatchdogNameEnum,
      nullable: true,
      description: 'The watchdog that emitted it; null for the alerts’ own triggers.',
      resolve: (e) => e.watchdog,
    }),
  }),
});

export const DeliveryAttemptRef = builder.objectRef<DeliveryAttempt>('AlertDeliveryAttempt').implement({
  description:
    'One attempt to deliver an alert to one target (retries are further attempts of the same delivery).',
  fields: (t) => ({
    id: t.id({
      description: 'Stable id: `deliveryId:attempt`.',
      resolve: (d) => `${d.deliveryId}:${d.attempt}`,
    }),
    deliveryId: t.exposeString('deliveryId', {
      description:
        'The delivery (one per target per firing; the X-Vigil-Delivery header of webhooks and emails).',
    }),
    attempt: t.exposeInt('attempt', { description: 'Attempt number, from 1.' }),
    method: t.field({
      type: AlertDeliveryMethodEnum,
      description: 'How it was sent.',
      resolve: (d) => d.method,
    }),
    target: t.exposeString('target', { nullable: true, description: TARGET_DESCRIPTION }),
    event: t.field({
      type: DeliveredEventRef,
      nullable: true,
      description: 'The event it delivered; null when its firing is no longer stored.',
      resolve: (d) => d.event,
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
    'The outcome of a test-send to one target (recorded, not retried). Value object: not normalised.',
  fields: (t) => ({
    method: t.field({
      type: AlertDeliveryMethodEnum,
      description: 'How it was sent.',
      resolve: (r) => r.method,
    }),
    target: t.exposeString('target', {
      nullable: true,
      description: 'The chat id, email recipient or webhook URL; null when the method has no configuration.',
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
        description: 'One per target of each delivery method.',
        resolve: (s) => s.results,
      }),
    }),
  });

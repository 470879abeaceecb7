/**
 * Redelivery on the REST route and the MCP tool: the GraphQL document they run (variables named as
 * the wire names them, `alert_id` and `delivery_id`), its data, and the answer in the wire shape.
 */
import { fromEnumName } from '../platform/graphql/enum-values.ts';
import { DELIVERY_METHODS } from './alert.model.ts';

export const REDELIVER_ALERT = `mutation RedeliverAlert($alert_id: String!, $delivery_id: String) {
  redeliverAlertDeliveries(id: $alert_id, deliveryId: $delivery_id) {
    alertId deliveries { deliveryId method target attempts skipped }
  }
}`;

export interface RedeliveryData {
  readonly redeliverAlertDeliveries: {
    readonly alertId: string;
    readonly deliveries: ReadonlyArray<{
      readonly deliveryId: string;
      readonly method: string;
      readonly target: string | null;
      readonly attempts: number;
      readonly skipped: string | null;
    }>;
  };
}

const fromMethod = fromEnumName(DELIVERY_METHODS);

/** The answer: `redelivered` the deliveries put back, `skipped` those left as they were, with why. */
export function redeliveryWire(data: RedeliveryData) {
  const { alertId, deliveries } = data.redeliverAlertDeliveries;
  const one = (d: RedeliveryData['redeliverAlertDeliveries']['deliveries'][number]) => ({
    delivery_id: d.deliveryId,
    method: fromMethod(d.method),
    target: d.target,
    attempts: d.attempts,
  });
  return {
    alert_id: alertId,
    redelivered: deliveries.filter((d) => d.skipped === null).map(one),
    skipped: deliveries.flatMap((d) => (d.skipped === null ? [] : [{ ...one(d), reason: d.skipped }])),
  };
}

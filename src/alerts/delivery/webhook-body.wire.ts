import { alertEventWire } from '../alert-event.wire.ts';
import type { DeliveryContext } from './types.ts';

/**
 * The webhook body, version 1 (documented for receivers):
 * {
 *   "alert_id": string, "alert_name": string,
 *   "event": { event_id, type, severity, description, asset: {symbol, asset_type, ...} | null,
 *              timestamp (ISO 8601), watchdog: string | null, data: object, metadata: object },
 *   "timestamp": ISO 8601 time of this attempt,
 *   "delivery_id": string, the same on every retry of one delivery (deduplicate on it),
 *   "test": boolean, true for a test-send (the alert did not fire)
 * }
 */
export function webhookBody(ctx: DeliveryContext): string {
  return JSON.stringify({
    alert_id: ctx.alert.id,
    alert_name: ctx.alert.name,
    event: alertEventWire(ctx.event),
    timestamp: ctx.now.toISOString(),
    delivery_id: ctx.deliveryId,
    test: ctx.test,
  });
}

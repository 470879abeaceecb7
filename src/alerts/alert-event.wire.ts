/**
 * An alert's event in the compatibility spelling: the dashboard's event shape (spec 2.4 plus
 * `watchdog`, `data` and `metadata`). Receivers get it in the webhook body, and each firing keeps
 * the event it delivers in this shape (`alert_firings.event`).
 */
import type { Severity, WatchdogName } from '../watchdogs/watchdog-event.ts';
import type { AlertEvent, AlertEventAsset, AlertEventType } from './alert-event.model.ts';

export interface AlertEventAssetWire {
  readonly symbol: string;
  readonly asset_type: string;
  readonly name?: string;
  readonly market?: string;
  readonly exchange?: string;
  readonly currency?: string;
  readonly pair?: readonly [string, string];
}

export interface AlertEventWire {
  readonly event_id: string;
  readonly type: AlertEventType;
  readonly severity: Severity;
  readonly description: string;
  /** Null for a market-wide event. */
  readonly asset: AlertEventAssetWire | null;
  /** ISO 8601, UTC. */
  readonly timestamp: string;
  readonly watchdog: WatchdogName | null;
  readonly data: Readonly<Record<string, unknown>>;
  /** `{test: true}` on the sample event of a test-send, else empty. */
  readonly metadata: { readonly test?: true };
}

/** As a firing keeps it: events stored before `data` existed have none. */
export type StoredAlertEvent = Omit<AlertEventWire, 'data' | 'metadata'> & {
  readonly data?: Readonly<Record<string, unknown>>;
  readonly metadata?: { readonly test?: boolean };
};

export function alertEventWire(event: AlertEvent): AlertEventWire {
  return {
    event_id: event.id,
    type: event.type,
    severity: event.severity,
    description: event.description,
    asset: event.asset && assetWire(event.asset),
    timestamp: event.occurredAt.toISOString(),
    watchdog: event.watchdog,
    data: event.data,
    metadata: event.sample ? { test: true } : {},
  };
}

export function alertEventOfStored(stored: StoredAlertEvent): AlertEvent {
  return {
    id: stored.event_id,
    type: stored.type,
    severity: stored.severity,
    description: stored.description,
    asset: stored.asset && assetOfWire(stored.asset),
    occurredAt: new Date(stored.timestamp),
    watchdog: stored.watchdog,
    data: stored.data ?? {},
    sample: stored.metadata?.test === true,
  };
}

/** The optional parts appear only when known, as the earlier implementation sent them. */
function assetWire(asset: AlertEventAsset): AlertEventAssetWire {
  return {
    symbol: asset.symbol,
    asset_type: asset.assetType,
    ...(asset.name != null ? { name: asset.name } : {}),
    ...(asset.market != null ? { market: asset.market } : {}),
    ...(asset.exchange != null ? { exchange: asset.exchange } : {}),
    ...(asset.currency != null ? { currency: asset.currency } : {}),
    ...(asset.pair != null ? { pair: asset.pair } : {}),
  };
}

function assetOfWire(asset: AlertEventAssetWire): AlertEventAsset {
  return {
    symbol: asset.symbol,
    assetType: asset.asset_type,
    ...(asset.name != null ? { name: asset.name } : {}),
    ...(asset.market != null ? { market: asset.market } : {}),
    ...(asset.exchange != null ? { exchange: asset.exchange } : {}),
    ...(asset.currency != null ? { currency: asset.currency } : {}),
    ...(asset.pair != null ? { pair: asset.pair } : {}),
  };
}

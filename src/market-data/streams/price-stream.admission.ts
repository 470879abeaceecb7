import type { TokenBucket } from '../../platform/flow/token-bucket.ts';
import type { SocketLimits } from '../../platform/ws/socket-limits.ts';
import { ASSET_CLASSES, type AssetClass } from '../types.ts';
import {
  type ErrorCode,
  LIMITS,
  quote,
  SUPPORTED_STREAM_TYPES,
  type SubscribeMessage,
} from './price-stream.protocol.ts';

/** A subscribe turned down: the error the client is sent (on /ws/prices also why its socket closes). */
export interface Refusal {
  readonly code: ErrorCode;
  readonly text: string;
  readonly details: Record<string, unknown>;
}

/** What the checks read of a connection (its slots, limits and subscribe rate). */
export interface SubscribeSlots {
  readonly subscriptions: { readonly size: number };
  /** Subscribes past their checks and still resolving symbols: they hold a slot already. */
  readonly opening: number;
  readonly limits: SocketLimits;
  readonly subscribeGate: TokenBucket;
}

export type Admission =
  | { readonly ok: true; readonly assetType: AssetClass | undefined }
  | { readonly ok: false; readonly refusal: Refusal };

const ASSET_TYPES: ReadonlySet<string> = new Set<AssetClass>(ASSET_CLASSES);

function isAssetType(value: string): value is AssetClass {
  return ASSET_TYPES.has(value);
}

function refused(code: ErrorCode, text: string, details: Record<string, unknown> = {}): Admission {
  return { ok: false, refusal: { code, text, details } };
}

/**
 * The checks a subscribe passes before it may resolve its symbols. The subscribe rate comes last:
 * it is the only check that takes something (a token), so a subscribe refused for another reason
 * does not count against the client's rate.
 */
export function admitSubscribe(
  connection: SubscribeSlots,
  message: SubscribeMessage,
  onRateLimited: () => void,
): Admission {
  if (!SUPPORTED_STREAM_TYPES.includes(message.stream_type)) {
    return refused(
      'SUBSCRIPTION_ERROR',
      `stream_type ${message.stream_type} is not available; use ${SUPPORTED_STREAM_TYPES.join(', ')}`,
    );
  }
  // Counts subscribes still resolving too: the slot is taken before the first await.
  if (connection.subscriptions.size + connection.opening >= LIMITS.subscriptionsPerConnection) {
    return refused(
      'LIMIT_EXCEEDED',
      `at most ${LIMITS.subscriptionsPerConnection} subscriptions per connection`,
      {
        limit: LIMITS.subscriptionsPerConnection,
      },
    );
  }
  const assetType = message.asset_type;
  if (assetType !== undefined && !isAssetType(assetType)) {
    return refused(
      'SUBSCRIPTION_ERROR',
      `asset_type ${quote(message.asset_type)} is not one of ${[...ASSET_TYPES].join(', ')}`,
    );
  }
  const taken = connection.subscribeGate.tryTake();
  if (!taken.ok) {
    onRateLimited();
    const { perSecond, burst } = connection.limits.subscribeRate;
    return refused(
      'LIMIT_EXCEEDED',
      `more than ${perSecond} subscribes per second (WS_SUBSCRIBE_RATE_PER_SECOND); retry in ${taken.retryAfterMs} ms`,
      { limit: perSecond, burst, retry_after_ms: taken.retryAfterMs },
    );
  }
  return { ok: true, assetType };
}

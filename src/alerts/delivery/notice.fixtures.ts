/**
 * Notices for the channels' tests: a group of any size (varied events, descriptions with every
 * medium's control characters, long enough that 500 of them overflow every channel), a resolution
 * and an acknowledgement, and the delivery context carrying one.
 */
import type { Severity } from '../../watchdogs/watchdog-event.ts';
import type { AlertEvent } from '../alert-event.model.ts';
import type { Notice } from '../episode.model.ts';
import type { DeliveryContext } from './types.ts';

const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];
const SYMBOLS = ['AAPL', 'MSFT', 'BTC/USDT'];
const T0 = Date.parse('2025-01-02T03:00:00Z');

/** The `i`th event of a group: a volume spike or price anomaly, one of three symbols, a minute apart. */
export function groupEvent(
  i: number,
  description = `Volume <${i}x> & *more* _than_ usual. `.repeat(8),
): AlertEvent {
  return {
    id: `ev-${i}`,
    type: i % 2 === 0 ? 'unusual_volume' : 'price_anomaly',
    severity: SEVERITIES[i % 3] ?? 'low',
    description,
    asset: { symbol: SYMBOLS[i % 3] ?? 'AAPL', assetType: 'equity' },
    occurredAt: new Date(T0 + i * 60_000),
    watchdog: i % 2 === 0 ? 'unusual_volume' : 'price_anomaly',
    data: { ratio: i },
    sample: false,
  };
}

export function groupNotice(count: number, repeat = false): Extract<Notice, { kind: 'group' }> {
  return {
    kind: 'group',
    incidentKey: 'group/watchdog=unusual_volume,asset=AAPL',
    groupKey: 'watchdog=unusual_volume,asset=AAPL',
    labels: { watchdog: 'unusual_volume', asset: 'AAPL' },
    events: Array.from({ length: count }, (_, i) => groupEvent(i)),
    repeat,
  };
}

export const resolvedNotice: Extract<Notice, { kind: 'resolved' }> = {
  kind: 'resolved',
  incidentKey: 'unusual_volume/AAPL',
  startedAt: new Date('2025-01-02T03:00:00Z'),
  resolvedAt: new Date('2025-01-02T03:12:30Z'),
  durationSeconds: 750,
  reason: 'manual',
  by: 'alice',
  note: 'fixed upstream',
};

export const acknowledgedNotice: Extract<Notice, { kind: 'acknowledged' }> = {
  kind: 'acknowledged',
  incidentKey: 'unusual_volume/AAPL',
  by: 'bob',
  at: new Date('2025-01-02T03:05:00Z'),
  note: 'looking',
};

/** A delivery of `notice`; its event is a group's newest, else the first group event. */
export function noticeContext(notice: Notice, overrides: Partial<DeliveryContext> = {}): DeliveryContext {
  const event = notice.kind === 'group' ? (notice.events.at(-1) ?? groupEvent(0)) : groupEvent(0);
  return {
    deliveryId: 'dlv-1',
    attempt: 1,
    notice,
    alert: { id: 'a-1', name: 'Volume watch', description: null },
    event,
    now: new Date('2025-01-02T04:00:00Z'),
    signal: new AbortController().signal,
    test: false,
    ...overrides,
  };
}

import { describe, expect, it } from 'vitest';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
import type { DeliveryContext } from './types.ts';
import { webhookBody } from './webhook-body.wire.ts';

const context = (overrides: Partial<DeliveryContext> = {}): DeliveryContext => ({
  deliveryId: 'dlv-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'a-1', name: 'Big <moves> & co.', description: 'Watch "it"' },
  event: {
    id: 'ev-9',
    type: 'correlation_break',
    severity: 'high',
    description: 'BTC and ETH decoupled',
    asset: { symbol: 'BTC/USDT', assetType: 'crypto', exchange: 'binance', pair: ['BTC/USDT', 'ETH/USDT'] },
    occurredAt: new Date('2025-01-02T03:04:05.000Z'),
    watchdog: 'correlation_breakdown',
    data: { change: 0.72 },
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
  ...overrides,
});

describe('webhookBody', () => {
  it('is the documented shape, the event in the dashboard spelling', () => {
    const ctx = context({ test: true });
    expect(JSON.parse(webhookBody(ctx))).toEqual({
      alert_id: 'a-1',
      alert_name: 'Big <moves> & co.',
      event: {
        event_id: 'ev-9',
        type: 'correlation_break',
        severity: 'high',
        description: 'BTC and ETH decoupled',
        asset: {
          symbol: 'BTC/USDT',
          asset_type: 'crypto',
          exchange: 'binance',
          pair: ['BTC/USDT', 'ETH/USDT'],
        },
        timestamp: '2025-01-02T03:04:05.000Z',
        watchdog: 'correlation_breakdown',
        data: { change: 0.72 },
        metadata: {},
      },
      timestamp: '2025-01-02T03:04:06.000Z',
      delivery_id: 'dlv-1',
      test: true,
    });
  });

  it('marks the sample event of a test-send in its metadata, and a market-wide event has no asset', () => {
    const base = context().event;
    const body = JSON.parse(webhookBody(context({ event: { ...base, asset: null, sample: true } })));
    expect(body.event).toMatchObject({ asset: null, metadata: { test: true } });
  });
});

describe('webhookBody of a notice', () => {
  it("a group: the newest event as `event`, and `notice` with the group's key, labels and events", () => {
    const body = JSON.parse(webhookBody(noticeContext(groupNotice(3, true))));
    expect(body.event.event_id).toBe('ev-2');
    expect(body.notice).toMatchObject({
      kind: 'group',
      incident_key: 'group/watchdog=unusual_volume,asset=AAPL',
      group_key: 'watchdog=unusual_volume,asset=AAPL',
      labels: { watchdog: 'unusual_volume', asset: 'AAPL' },
      repeat: true,
    });
    expect(body.notice.events.map((e: { event_id: string }) => e.event_id)).toEqual(['ev-0', 'ev-1', 'ev-2']);
    expect(Object.keys(body)).toEqual([
      'alert_id',
      'alert_name',
      'event',
      'notice',
      'timestamp',
      'delivery_id',
      'test',
    ]);
  });

  it('a 500-event group lists every event in the event wire shape', () => {
    const body = JSON.parse(webhookBody(noticeContext(groupNotice(500))));
    expect(body.notice.events).toHaveLength(500);
    expect(body.notice.events[499]).toMatchObject({
      event_id: 'ev-499',
      timestamp: '2025-01-02T11:19:00.000Z',
    });
  });

  it('a resolution and an acknowledgement', () => {
    expect(JSON.parse(webhookBody(noticeContext(resolvedNotice))).notice).toEqual({
      kind: 'resolved',
      incident_key: 'unusual_volume/AAPL',
      started_at: '2025-01-02T03:00:00.000Z',
      resolved_at: '2025-01-02T03:12:30.000Z',
      duration_seconds: 750,
      reason: 'manual',
      by: 'alice',
      note: 'fixed upstream',
    });
    expect(JSON.parse(webhookBody(noticeContext(acknowledgedNotice))).notice).toEqual({
      kind: 'acknowledged',
      incident_key: 'unusual_volume/AAPL',
      by: 'bob',
      at: '2025-01-02T03:05:00.000Z',
      note: 'looking',
    });
  });

  it("an event's body has no notice", () => {
    expect(JSON.parse(webhookBody(context()))).not.toHaveProperty('notice');
  });
});

import { describe, expect, it } from 'vitest';
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

import { describe, expect, it } from 'vitest';
import { eventWire } from '../watchdogs/dashboard/dashboard.wire.ts';
import type { WatchdogDomainEvent } from '../watchdogs/watchdog-event.ts';
import { alertEventOf } from './alert-event.model.ts';
import { alertEventOfStored, alertEventWire } from './alert-event.wire.ts';

const watchdogEvent: WatchdogDomainEvent = {
  id: '01JTESTEVENT0000000000000A',
  watchdog: 'liquidity_drop',
  eventType: 'liquidity_drop',
  severity: 'critical',
  asset: { symbol: 'ETH/USDT', assetType: 'crypto', exchange: 'binance', currency: 'USDT' },
  description: 'Order-book depth of ETH/USDT fell to 0.25x its 7-day average',
  data: { ratio: 0.25, threshold: 0.3 },
  occurredAt: new Date('2025-06-11T15:00:00.123Z'),
};

describe('alert event wire', () => {
  it('spells a watchdog event as the dashboard does (receivers get one event shape)', () => {
    expect(alertEventWire(alertEventOf(watchdogEvent))).toEqual(eventWire(watchdogEvent));
  });

  it('reads back what a firing stored, unchanged', () => {
    const wire = alertEventWire(alertEventOf(watchdogEvent));
    const stored = JSON.parse(JSON.stringify(wire));
    expect(alertEventOfStored(stored)).toEqual(alertEventOf(watchdogEvent));
    expect(alertEventWire(alertEventOfStored(stored))).toEqual(wire);
  });

  it('keeps a market-wide event without an asset, and the alerts’ own events without a watchdog', () => {
    const event = {
      ...alertEventOf(watchdogEvent),
      type: 'custom_condition' as const,
      asset: null,
      watchdog: null,
    };
    expect(alertEventWire(event)).toMatchObject({ type: 'custom_condition', asset: null, watchdog: null });
    expect(alertEventOfStored(alertEventWire(event))).toEqual(event);
  });

  it('reads an event stored before events carried data, and a test-send’s sample', () => {
    const read = alertEventOfStored({
      event_id: 'test-1',
      type: 'price_anomaly',
      severity: 'high',
      description: 'Test notification',
      asset: { symbol: 'TEST', asset_type: 'equity' },
      timestamp: '2025-06-11T15:00:00.000Z',
      watchdog: 'price_anomaly',
      metadata: { test: true },
    });
    expect(read).toMatchObject({ data: {}, sample: true, occurredAt: new Date('2025-06-11T15:00:00.000Z') });
    expect(alertEventWire(read).metadata).toEqual({ test: true });
  });
});

import { describe, expect, it } from 'vitest';
import { dedupKey, PAGERDUTY_LIMITS, pagerDutyEvent } from './pagerduty.ts';
import type { DeliveryContext } from './types.ts';

const ctx = (
  description: string,
  severity: 'critical' | 'high' | 'medium' | 'low' = 'high',
): DeliveryContext => ({
  deliveryId: 'dlv-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'flash_crash/BTC/USDT' },
  alert: { id: 'a-1', name: 'BTC crash', description: null },
  event: {
    id: 'ev-1',
    type: 'flash_crash',
    severity,
    description,
    asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
    occurredAt: new Date('2025-01-02T03:04:05Z'),
    watchdog: 'price_anomaly',
    data: { change: -0.12 },
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
});

// biome-ignore lint/suspicious/noExplicitAny: the payload is checked by the expectations.
type Json = any;

describe('PagerDuty event', () => {
  it('is an Events API v2 trigger with its payload and a dedup key of the alert and condition', () => {
    const event: Json = pagerDutyEvent('R0UTINGKEY0123456789abcdefABCDEF', ctx('fell 12%'));
    expect(event).toMatchObject({
      routing_key: 'R0UTINGKEY0123456789abcdefABCDEF',
      event_action: 'trigger',
      dedup_key: 'vigil/a-1/flash_crash/BTC/USDT',
      payload: {
        summary: 'BTC crash: fell 12%',
        source: 'vigil',
        severity: 'error',
        timestamp: '2025-01-02T03:04:05.000Z',
        component: 'BTC/USDT',
        group: 'price_anomaly',
        class: 'flash_crash',
        custom_details: { alert_id: 'a-1', event_id: 'ev-1', data: { change: -0.12 } },
      },
    });
    // The same condition again joins the open incident.
    expect(dedupKey(ctx('another text'))).toBe(event.dedup_key);
  });

  it('maps every severity to one PagerDuty knows, and cuts the summary at 1024', () => {
    const mapped = (['critical', 'high', 'medium', 'low'] as const).map(
      (s) => (pagerDutyEvent('k'.repeat(32), ctx('x', s)) as Json).payload.severity,
    );
    expect(mapped).toEqual(['critical', 'error', 'warning', 'info']);
    const long: Json = pagerDutyEvent('k'.repeat(32), ctx('d'.repeat(900_000)));
    expect([...long.payload.summary]).toHaveLength(PAGERDUTY_LIMITS.summary);
    expect(long.payload.summary.endsWith('…')).toBe(true);
    expect(Buffer.byteLength(JSON.stringify(long))).toBeLessThanOrEqual(PAGERDUTY_LIMITS.bytes);
  });
});

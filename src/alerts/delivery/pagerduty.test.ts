import { describe, expect, it } from 'vitest';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
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

describe('PagerDuty notices', () => {
  const key = 'R0UTINGKEY0123456789abcdefABCDEF';

  it("the dedup key is the alert's and the notice's incident key", () => {
    const threshold = {
      ...ctx('x'),
      notice: { kind: 'event' as const, incidentKey: 'price_threshold/AAPL' },
    };
    expect(dedupKey(threshold)).toBe('vigil/a-1/price_threshold/AAPL');
    expect(dedupKey(noticeContext(groupNotice(2)))).toBe(
      'vigil/a-1/group/watchdog=unusual_volume,asset=AAPL',
    );
  });

  it('a group: one trigger for the group, the worst severity, a line per event in custom_details', () => {
    const event: Json = pagerDutyEvent(key, noticeContext(groupNotice(3)));
    expect(event).toMatchObject({
      event_action: 'trigger',
      dedup_key: 'vigil/a-1/group/watchdog=unusual_volume,asset=AAPL',
      payload: {
        summary:
          'Volume watch (watchdog=unusual_volume, asset=AAPL): 3 events: unusual_volume on AAPL, price_anomaly on MSFT, unusual_volume on BTC/USDT',
        severity: 'error',
        timestamp: '2025-01-02T03:02:00.000Z',
        component: 'AAPL',
        group: 'unusual_volume',
        class: 'group',
        custom_details: {
          alert_id: 'a-1',
          group_key: 'watchdog=unusual_volume,asset=AAPL',
          labels: { watchdog: 'unusual_volume', asset: 'AAPL' },
          repeat: false,
          event_count: 3,
        },
      },
    });
    expect(event.payload.custom_details.events).toHaveLength(3);
    expect(event.payload.custom_details.events[0]).toMatch(/^2025-01-02T03:00:00Z LOW unusual_volume AAPL: /);
    const reminder: Json = pagerDutyEvent(key, noticeContext(groupNotice(3, true)));
    expect(reminder.payload.summary).toMatch(/^\[still firing\] Volume watch .*: Still firing: 3 events/);
  });

  it("a group about no asset is the watchdog's component", () => {
    const notice = { ...groupNotice(2), labels: { watchdog: 'exchange_outage', asset: '-' } };
    const event: Json = pagerDutyEvent(key, noticeContext(notice));
    expect(event.payload).toMatchObject({ component: 'exchange_outage', group: 'exchange_outage' });
  });

  it('a 500-event group stays under 512 KB with its summary within 1024', () => {
    const event: Json = pagerDutyEvent(key, noticeContext(groupNotice(500)));
    expect(Buffer.byteLength(JSON.stringify(event))).toBeLessThanOrEqual(PAGERDUTY_LIMITS.bytes);
    expect([...event.payload.summary].length).toBeLessThanOrEqual(PAGERDUTY_LIMITS.summary);
    expect(event.payload.custom_details.event_count).toBe(500);
    expect(event.payload.custom_details.events).toHaveLength(500);
    // Lines are bounded (about 250 bytes), so only thousands of events need cutting.
    const huge: Json = pagerDutyEvent(key, noticeContext(groupNotice(3_000)));
    expect(Buffer.byteLength(JSON.stringify(huge))).toBeLessThanOrEqual(PAGERDUTY_LIMITS.bytes);
    const lines: string[] = huge.payload.custom_details.events;
    const more = lines.at(-1) ?? '';
    expect(more).toMatch(/^and \d+ more$/);
    expect(lines.length - 1 + Number(more.split(' ')[1])).toBe(3_000);
  });

  it('a resolution and an acknowledgement are the Events API bodies for the same incident', () => {
    const resolved = pagerDutyEvent(key, noticeContext(resolvedNotice));
    expect(resolved).toEqual({
      routing_key: key,
      event_action: 'resolve',
      dedup_key: 'vigil/a-1/unusual_volume/AAPL',
    });
    const acknowledged = pagerDutyEvent(key, noticeContext(acknowledgedNotice));
    expect(acknowledged).toEqual({
      routing_key: key,
      event_action: 'acknowledge',
      dedup_key: 'vigil/a-1/unusual_volume/AAPL',
    });
    const fired = pagerDutyEvent(key, {
      ...noticeContext(resolvedNotice),
      notice: { kind: 'event', incidentKey: 'unusual_volume/AAPL' },
    });
    expect(fired.dedup_key).toBe(resolved.dedup_key);
  });
});

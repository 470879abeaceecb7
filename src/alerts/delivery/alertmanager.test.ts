import { describe, expect, it } from 'vitest';
import { ALERTMANAGER_LIMITS, alertmanagerBody, fingerprint } from './alertmanager.ts';
import type { DeliveryContext } from './types.ts';

const ctx = (description: string, asset = 'BTC/USDT'): DeliveryContext => ({
  deliveryId: 'dlv-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'a-1', name: 'BTC crash', description: null },
  event: {
    id: 'ev-1',
    type: 'flash_crash',
    severity: 'critical',
    description,
    asset: { symbol: asset, assetType: 'crypto' },
    occurredAt: new Date('2025-01-02T03:04:05Z'),
    watchdog: 'price_anomaly',
    data: {},
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
});

// biome-ignore lint/suspicious/noExplicitAny: the payload is checked by the expectations.
type Json = any;

describe('Alertmanager body', () => {
  it("is Alertmanager's webhook body, version 4, one firing alert", () => {
    const body: Json = alertmanagerBody(ctx('fell 12%'));
    expect(body).toMatchObject({
      version: '4',
      status: 'firing',
      receiver: 'vigil',
      groupLabels: { alertname: 'a-1' },
      truncatedAlerts: 0,
    });
    expect(body.alerts).toHaveLength(1);
    const [alert] = body.alerts;
    expect(alert).toMatchObject({
      status: 'firing',
      labels: {
        alertname: 'a-1',
        severity: 'critical',
        event_type: 'flash_crash',
        asset: 'BTC/USDT',
        watchdog: 'price_anomaly',
      },
      annotations: { summary: 'BTC crash', description: 'fell 12%' },
      startsAt: '2025-01-02T03:04:05.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: '/api/alerts/a-1',
    });
    expect(alert.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(body.commonLabels).toEqual(alert.labels);
  });

  it('keeps one fingerprint per label set, whatever the order, and another for other labels', () => {
    expect(fingerprint({ a: '1', b: '2' })).toBe(fingerprint({ b: '2', a: '1' }));
    const one = (alertmanagerBody(ctx('x')) as Json).alerts[0].fingerprint;
    expect((alertmanagerBody(ctx('y')) as Json).alerts[0].fingerprint).toBe(one);
    expect((alertmanagerBody(ctx('x', 'ETH/USDT')) as Json).alerts[0].fingerprint).not.toBe(one);
  });

  it('cuts a long description with an ellipsis', () => {
    const body: Json = alertmanagerBody(ctx('d'.repeat(100_000)));
    const { description } = body.alerts[0].annotations;
    expect([...description]).toHaveLength(ALERTMANAGER_LIMITS.description);
    expect(description.endsWith('…')).toBe(true);
  });
});

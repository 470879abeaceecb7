import { describe, expect, it } from 'vitest';
import { ALERTMANAGER_LIMITS, alertmanagerBody, fingerprint } from './alertmanager.ts';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
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

describe('Alertmanager notices', () => {
  it("a group: one alert per event with its own labels and fingerprint, the group's key and labels", () => {
    const body: Json = alertmanagerBody(noticeContext(groupNotice(3)));
    expect(body).toMatchObject({
      status: 'firing',
      truncatedAlerts: 0,
      groupLabels: { alertname: 'a-1', watchdog: 'unusual_volume', asset: 'AAPL' },
      groupKey: '{}:{alertname="a-1", asset="AAPL", watchdog="unusual_volume"}',
    });
    expect(body.alerts).toHaveLength(3);
    expect(body.alerts.map((a: Json) => a.labels.asset)).toEqual(['AAPL', 'MSFT', 'BTC/USDT']);
    expect(body.alerts[1]).toMatchObject({
      status: 'firing',
      labels: {
        alertname: 'a-1',
        severity: 'medium',
        event_type: 'price_anomaly',
        watchdog: 'price_anomaly',
      },
      startsAt: '2025-01-02T03:01:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
    });
    expect(new Set(body.alerts.map((a: Json) => a.fingerprint)).size).toBe(3);
    // Common labels are the ones every alert has alike.
    expect(body.commonLabels).toEqual({ alertname: 'a-1', alert_name: 'Volume watch' });
    expect(body.commonAnnotations).toEqual({ summary: 'Volume watch' });
  });

  it('a 500-event group sends 100 alerts and counts the rest in truncatedAlerts', () => {
    const body: Json = alertmanagerBody(noticeContext(groupNotice(500)));
    expect(body.alerts).toHaveLength(ALERTMANAGER_LIMITS.alerts);
    expect(body.truncatedAlerts).toBe(400);
    for (const alert of body.alerts)
      expect([...alert.annotations.description].length).toBeLessThanOrEqual(
        ALERTMANAGER_LIMITS.groupDescription,
      );
    expect(Buffer.byteLength(JSON.stringify(body))).toBeLessThan(1024 * 1024);
  });

  it("a resolution: status resolved, the episode's start and end, the firing's fingerprint", () => {
    const ctx = noticeContext(resolvedNotice);
    const body: Json = alertmanagerBody(ctx);
    expect(body.status).toBe('resolved');
    expect(body.alerts).toHaveLength(1);
    const fired: Json = alertmanagerBody({
      ...ctx,
      notice: { kind: 'event', incidentKey: 'unusual_volume/AAPL' },
    });
    expect(body.alerts[0]).toMatchObject({
      status: 'resolved',
      startsAt: '2025-01-02T03:00:00.000Z',
      endsAt: '2025-01-02T03:12:30.000Z',
      annotations: {
        summary: '[RESOLVED] Volume watch',
        description: 'Resolved after 12m 30s (resolved by alice: fixed upstream)',
      },
      fingerprint: fired.alerts[0].fingerprint,
    });
    expect(body.groupKey).toBe(fired.groupKey);
  });

  it("a group's resolution carries the group's labels and key", () => {
    const notice = { ...resolvedNotice, incidentKey: 'group/watchdog=unusual_volume,asset=AAPL' };
    const body: Json = alertmanagerBody(noticeContext(notice));
    expect(body.groupKey).toBe(alertmanagerBody(noticeContext(groupNotice(2))).groupKey);
    expect(body.alerts[0].labels).toEqual({
      alertname: 'a-1',
      alert_name: 'Volume watch',
      watchdog: 'unusual_volume',
      asset: 'AAPL',
    });
    const ungrouped: Json = alertmanagerBody(noticeContext({ ...resolvedNotice, incidentKey: 'group/*' }));
    expect(ungrouped.groupLabels).toEqual({ alertname: 'a-1' });
  });

  it('an acknowledgement says who, still firing', () => {
    const body: Json = alertmanagerBody(noticeContext(acknowledgedNotice));
    expect(body.status).toBe('firing');
    expect(body.alerts[0].annotations).toEqual({
      summary: '[ACKNOWLEDGED] Volume watch',
      description: 'Acknowledged by bob: looking',
    });
  });
});

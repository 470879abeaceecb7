import { describe, expect, it } from 'vitest';
import type { WatchdogEvent } from '../events.repository.ts';
import type { HealthData } from './dashboard.documents.ts';
import {
  eventFromGraphql,
  eventWire,
  healthFromGraphql,
  healthWire,
  monitorWire,
  overallHealth,
  statsWire,
  uptimeSeconds,
} from './dashboard.wire.ts';

const stored: WatchdogEvent = {
  id: '01JXP0000000000000000000AA',
  watchdog: 'correlation_breakdown',
  eventType: 'correlation_break',
  severity: 'high',
  symbol: 'AAPL',
  asset: { symbol: 'AAPL', assetType: 'equity', pair: ['AAPL', 'MSFT'] },
  description: 'AAPL~MSFT correlation fell',
  data: { short: 0.1, long: 0.9 },
  occurredAt: new Date('2025-06-11T15:00:00Z'),
  createdAt: new Date('2025-06-11T15:00:01Z'),
};

describe('event wire (spec 2.4)', () => {
  it('maps a stored event, keeping only the asset parts that are known', () => {
    expect(eventWire(stored)).toEqual({
      event_id: stored.id,
      type: 'correlation_break',
      severity: 'high',
      description: 'AAPL~MSFT correlation fell',
      asset: { symbol: 'AAPL', asset_type: 'equity', pair: ['AAPL', 'MSFT'] },
      timestamp: '2025-06-11T15:00:00.000Z',
      watchdog: 'correlation_breakdown',
      data: { short: 0.1, long: 0.9 },
      metadata: {},
    });
  });

  it('maps GraphQL data (upper-case enums, ISO times) to the same wire', () => {
    const data = {
      id: stored.id,
      watchdog: 'CORRELATION_BREAKDOWN',
      eventType: 'CORRELATION_BREAK',
      severity: 'HIGH',
      symbol: 'AAPL',
      asset: {
        symbol: 'AAPL',
        assetType: 'equity',
        name: null,
        market: null,
        exchange: null,
        currency: null,
        pair: ['AAPL', 'MSFT'],
      },
      description: stored.description,
      occurredAt: '2025-06-11T15:00:00.000Z',
      data: stored.data,
    };
    expect(eventWire(eventFromGraphql(data))).toEqual(eventWire(stored));
  });

  it('gives a market-wide event a null asset', () => {
    expect(eventWire({ ...stored, asset: null }).asset).toBeNull();
  });
});

describe('health wire', () => {
  const data: HealthData = {
    name: 'PRICE_ANOMALY',
    description: 'moves',
    enabled: true,
    running: true,
    status: 'DEGRADED',
    intervalSeconds: 60,
    lastCheck: '2025-06-11T15:00:00.000Z',
    lastCheckMs: 12.5,
    lastEvent: null,
    checks: 3,
    events: 1,
    errors: 0,
    consecutiveFailures: 0,
    lastChecked: 10,
    lastGaps: 2,
    lastError: 'XYZ: no data',
    since: '2025-06-11T14:00:00.000Z',
    uptimeSeconds: 3600,
    updatedBy: null,
  };

  it('maps every field to its snake_case name and lower-case values', () => {
    expect(healthWire(healthFromGraphql(data))).toEqual({
      name: 'price_anomaly',
      description: 'moves',
      enabled: true,
      running: true,
      status: 'degraded',
      interval_seconds: 60,
      last_check: '2025-06-11T15:00:00.000Z',
      last_check_ms: 12.5,
      last_event: null,
      total_checks: 3,
      events_emitted: 1,
      errors: 0,
      consecutive_failures: 0,
      last_error: 'XYZ: no data',
      last_checked: 10,
      last_gaps: 2,
      uptime_seconds: 3600,
      since: '2025-06-11T14:00:00.000Z',
      updated_by: null,
    });
  });

  it('counts uptime only while enabled, never below zero', () => {
    const since = new Date('2025-06-11T14:00:00Z');
    expect(uptimeSeconds({ enabled: true, since }, new Date('2025-06-11T14:01:01.900Z'))).toBe(61);
    expect(uptimeSeconds({ enabled: true, since }, new Date('2025-06-11T13:59:00Z'))).toBe(0);
    expect(uptimeSeconds({ enabled: false, since }, new Date('2025-06-11T15:00:00Z'))).toBeNull();
  });

  it('sums statuses up: failing or stopped is unhealthy, degraded degrades, disabled does not count', () => {
    expect(overallHealth(['running', 'disabled'])).toBe('healthy');
    expect(overallHealth(['running', 'degraded'])).toBe('degraded');
    expect(overallHealth(['degraded', 'stopped'])).toBe('unhealthy');
    expect(overallHealth(['failing'])).toBe('unhealthy');
  });
});

describe('stats wire', () => {
  it('lists every severity, zero when absent', () => {
    expect(
      statsWire({
        totalEvents: 3,
        eventsBySeverity: { high: 2, critical: 1 },
        activeWatchdogs: 8,
        healthyWatchdogs: 7,
        activeSubscriptions: 2,
        timestamp: new Date('2025-06-11T15:00:00Z'),
      }),
    ).toEqual({
      total_events: 3,
      events_by_severity: { low: 0, medium: 0, high: 2, critical: 1 },
      active_watchdogs: 8,
      healthy_watchdogs: 7,
      active_subscriptions: 2,
      timestamp: '2025-06-11T15:00:00.000Z',
    });
  });
});

describe('monitor wire', () => {
  it('keeps the order asked and gives a failed symbol an error entry, not null prices', () => {
    const wire = monitorWire({
      quotes: [
        {
          requested: 'btc',
          instrument: { symbol: 'BTC/USDT', assetClass: 'CRYPTO' },
          quote: {
            price: 100_000,
            changePercent: -1.5,
            volume: 12,
            currency: 'USDT',
            asOf: '2025-06-11T15:00:00Z',
          },
          lineage: { used: ['binance', 'coingecko'], simulated: false },
          error: null,
        },
        {
          requested: 'NOPE',
          instrument: null,
          quote: null,
          lineage: null,
          error: { code: 'UNKNOWN_SYMBOL', message: 'no' },
        },
      ],
    });
    expect(wire).toEqual([
      {
        symbol: 'BTC/USDT',
        requested: 'btc',
        asset_type: 'crypto',
        price: 100_000,
        change_percent: -1.5,
        volume: 12,
        currency: 'USDT',
        timestamp: '2025-06-11T15:00:00.000Z',
        provider: 'binance, coingecko',
        simulated: false,
      },
      { symbol: 'NOPE', requested: 'NOPE', error: { code: 'UNKNOWN_SYMBOL', message: 'no' } },
    ]);
  });
});
